import ObjectGraphModel
import ObjectGraphStore
import OrderedCollections

/// Writing the changes of to-many relationships at save.
///
/// A one-to-many link is the member's foreign key, written (and versioned) with the member's row;
/// only the order column of an ordered one is written here. A many-to-many link is a join-table row,
/// which carries no version: a save writes the links its context added and removed, never the whole
/// set as it was loaded (that would bring back links another context removed since), and each link
/// once, though both of its objects recorded it.
extension SaveTransaction {
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
    func writeToMany(
        _ states: [ObjectState], resolutions: RelationshipResolutions,
        _ writer: RowWriter
    ) throws -> [(ObjectState, slot: Int)] {
        var links: OrderedDictionary<JoinTableLink, Bool> = [:]  // true: insert, false: delete
        var discardedLinks: Set<JoinTableLink> = []
        var recorded: [(state: ObjectState, slot: Int, links: [JoinTableLink])] = []
        var orders: [(link: JoinTableLink, column: String, position: Int)] = []
        for state in states {
            guard let mapping = state.mapping else { continue }
            let owner = writer.permanentKey(state.id.key)
            let isDiscarded = resolutions.discarded.contains(StateKey(state))
            for (slot, changes) in state.changedToMany {
                let relationship = mapping.toManyRelationships[slot]
                switch relationship.storage {
                case let .inverseForeignKey(table, _, orderColumn?):
                    guard !isDiscarded, case .loaded(let members) = state.toMany[slot] else { continue }
                    try writer.setPositions(of: members.lazy.map(\.key), table: table, orderColumn: orderColumn)
                case let .joinTable(table, source, _, orderColumn):
                    /// The row linking the owner to the object with this key, whichever side owns it.
                    func link(to other: Int64?) -> JoinTableLink {
                        source == "Z_SOURCE"
                            ? JoinTableLink(table: table, source: owner, target: other)
                            : JoinTableLink(table: table, source: other, target: owner)
                    }
                    func link(_ member: ObjectID) -> JoinTableLink { link(to: writer.permanentKey(member.key)) }
                    let changed = (changes.added.elements + Array(changes.removed)).map(link)
                    recorded.append((state, slot, changed))
                    if isDiscarded {
                        discardedLinks.formUnion(changed)
                        continue
                    }
                    if resolutions.overwritten.contains(StateKey(state)), case .loaded(let members) = state.toMany[slot] {
                        let stored = try writer.linkedKeys(table: table, ownerColumn: source, owner: owner)
                        let current = Set(members.map { writer.permanentKey($0.key) })
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
        for (link, exists) in links { try writer.writeLink(link, exists: exists) }
        // Positions go to the rows that exist: a link removed elsewhere stays removed.
        for (link, column, position) in orders where !discardedLinks.contains(link) {
            try writer.setPosition(position, of: link, orderColumn: column)
        }
        return recorded.filter { entry in
            resolutions.discarded.contains(StateKey(entry.state)) || entry.links.contains(where: discardedLinks.contains)
        }.map { ($0.state, $0.slot) }
    }
}
