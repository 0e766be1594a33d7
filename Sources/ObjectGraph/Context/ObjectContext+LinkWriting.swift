import GRDB
import OrderedCollections

/// Writing the changes of to-many relationships at save.
///
/// A one-to-many link is the member's foreign key, written (and versioned) with the member's row;
/// only the order column of an ordered one is written here. A many-to-many link is a join-table row,
/// which carries no version: a save writes the links its context added and removed, never the whole
/// set as it was loaded (that would bring back links another context removed since), and each link
/// once, though both of its objects recorded it.
extension ObjectContext {
    /// One row of a join table, by the keys of its `Z_SOURCE` and `Z_TARGET` objects.
    private struct Link: Hashable {
        let table: String
        let source: DatabaseValue
        let target: DatabaseValue
    }

    /// What the merge policy decided for the relationships of the objects it resolved.
    struct RelationshipResolutions {
        /// Objects whose changes are discarded (``MergePolicy/rollback``).
        var discarded: Set<StateKey> = []
        /// Objects written as they are here (``MergePolicy/overwrite``): their sets replace the
        /// store's.
        var overwritten: Set<StateKey> = []

        /// What `policy` decides for the objects it resolved; the other policies write the link
        /// changes as they were made.
        init(policy: MergePolicy, resolved: [ConflictResolution]) {
            let states = Set(resolved.map { StateKey($0.state) })
            if policy == .rollback { discarded = states }
            if policy == .overwrite { overwritten = states }
        }
    }

    /// Writes the to-many changes of `states`; returns the relationships whose changes were not
    /// written (discarded by the merge policy), to be read again from the store after the commit.
    func writeToMany(_ states: [ObjectState], resolutions: RelationshipResolutions,
                     key: (Int64?) -> DatabaseValue, _ db: Database) throws -> [(ObjectState, slot: Int)] {
        var links: OrderedDictionary<Link, Bool> = [:]  // true: insert, false: delete
        var discardedLinks: Set<Link> = []
        var recorded: [(state: ObjectState, slot: Int, links: [Link])] = []
        var orders: [(link: Link, column: String, position: Int)] = []
        for state in states {
            guard let mapping = state.mapping else { continue }
            let owner = key(state.id.key)
            let isDiscarded = resolutions.discarded.contains(StateKey(state))
            for (slot, changes) in state.changedToMany {
                let relationship = mapping.toManyRelationships[slot]
                switch relationship.storage {
                case let .inverseForeignKey(table, _, orderColumn?):
                    guard !isDiscarded, case .loaded(let members) = state.toMany[slot] else { continue }
                    let statement = try db.cachedStatement(
                        sql: "UPDATE \(SQL.quote(table)) SET \(SQL.quote(orderColumn)) = ? WHERE Z_PK = ?")
                    for (position, member) in members.enumerated() {
                        try statement.execute(arguments: [position, key(member.key)])
                    }
                case let .joinTable(table, source, _, orderColumn):
                    /// The row linking the owner to the object with this key, whichever side owns it.
                    func link(to other: DatabaseValue) -> Link {
                        source == "Z_SOURCE"
                            ? Link(table: table, source: owner, target: other)
                            : Link(table: table, source: other, target: owner)
                    }
                    func link(_ member: ObjectID) -> Link { link(to: key(member.key)) }
                    let changed = (changes.added.elements + Array(changes.removed)).map(link)
                    recorded.append((state, slot, changed))
                    if isDiscarded {
                        discardedLinks.formUnion(changed)
                        continue
                    }
                    if resolutions.overwritten.contains(StateKey(state)), case .loaded(let members) = state.toMany[slot] {
                        let column = source == "Z_SOURCE" ? "Z_TARGET" : "Z_SOURCE"
                        let stored = try DatabaseValue.fetchAll(
                            db, sql: "SELECT \(column) FROM \(SQL.quote(table)) WHERE \(source) = ?", arguments: [owner])
                        let current = Set(members.map { key($0.key) })
                        for other in stored where !current.contains(other) { links[link(to: other)] = false }
                        for member in members { links[link(member)] = true }
                    } else {
                        for member in changes.removed { links[link(member)] = false }
                        for member in changes.added { links[link(member)] = true }
                    }
                    if let orderColumn, case .loaded(let members) = state.toMany[slot] {
                        for (position, member) in members.enumerated() {
                            orders.append((link(member), orderColumn, position))
                        }
                    }
                default:
                    break
                }
            }
        }
        for link in discardedLinks { links[link] = nil }
        for (link, inserts) in links {
            let sql = inserts
                ? "INSERT INTO \(SQL.quote(link.table)) (Z_SOURCE, Z_TARGET) VALUES (?, ?) ON CONFLICT (Z_SOURCE, Z_TARGET) DO NOTHING"
                : "DELETE FROM \(SQL.quote(link.table)) WHERE Z_SOURCE = ? AND Z_TARGET = ?"
            try db.cachedStatement(sql: sql).execute(arguments: [link.source, link.target])
        }
        // Positions go to the rows that exist: a link removed elsewhere stays removed.
        for (link, column, position) in orders where !discardedLinks.contains(link) {
            try db.cachedStatement(sql: "UPDATE \(SQL.quote(link.table)) SET \(column) = ? WHERE Z_SOURCE = ? AND Z_TARGET = ?")
                .execute(arguments: [position.databaseValue, link.source, link.target])
        }
        return recorded.filter { entry in
            resolutions.discarded.contains(StateKey(entry.state)) || entry.links.contains(where: discardedLinks.contains)
        }.map { ($0.state, $0.slot) }
    }

    /// Whether a save of the object changes join-table rows: a versioned change of the object, since
    /// the rows carry no version of their own.
    func changesManyToMany(_ state: ObjectState) -> Bool {
        guard !state.changedToMany.isEmpty, let mapping = state.mapping else { return false }
        return state.changedToMany.keys.contains { mapping.toManyRelationships[$0].isManyToMany }
    }
}
