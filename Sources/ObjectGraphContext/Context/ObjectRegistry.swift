import ObjectGraphModel

/// A context's live objects by ID, unretained: the uniquing table.
///
/// Each state removes itself when it is deallocated (see ``ObjectContext/forget(_:)``), so the
/// table holds exactly the objects someone still uses. Every fetched or released object costs a few
/// lookups here, so the table is keyed the cheap way: one dictionary of primary keys per entity
/// (integer keys hash much faster than a composite ID), found by a short linear search. Temporary
/// keys are negative and never collide with a row's key.
struct ObjectRegistry {
    private let store: StoreIdentity
    private var tables: [Table] = []

    /// One entity's live states, and the keys of those that are deleted (a deletion in progress or
    /// merged from elsewhere: few, so counting the deleted members of a large relationship looks at
    /// them rather than at every member). A key whose state was replaced since may stay among them:
    /// the state registered under it is checked when they are read.
    private struct Table {
        let entity: ObjectIdentifier
        var states: [RowKey: Unmanaged<ObjectState>] = [:]
        var deleted: Set<RowKey> = []
    }

    init(store: StoreIdentity) {
        self.store = store
    }

    /// The live state with this ID.
    func state(for id: ObjectID) -> ObjectState? {
        guard id.store == nil || id.store == store, let table = table(for: id.entity) else { return nil }
        return tables[table].states[RowKey(id.key)]?.takeUnretainedValue()
    }

    /// Registers a state under its current ID.
    mutating func register(_ state: ObjectState) {
        tables[tableCreatingIfNeeded(for: state.id.entity)].states[RowKey(state.id.key)] = Unmanaged.passUnretained(state)
    }

    /// Notes that a state was deleted, or undeleted. Whether the state registered under the key is
    /// still that one is checked when the keys are read, which is rarer.
    mutating func noteDeletion(of state: ObjectState, isDeleted: Bool) {
        guard let table = table(for: state.id.entity) else { return }
        if isDeleted {
            tables[table].deleted.insert(RowKey(state.id.key))
        } else if !tables[table].deleted.isEmpty {
            tables[table].deleted.remove(RowKey(state.id.key))
        }
    }

    /// Removes whatever is registered under an ID.
    mutating func unregister(_ id: ObjectID) {
        guard let table = table(for: id.entity) else { return }
        tables[table].states[RowKey(id.key)] = nil
        if !tables[table].deleted.isEmpty { tables[table].deleted.remove(RowKey(id.key)) }
    }

    /// Removes a state being deallocated, unless another state took its ID since; returns whether
    /// it was registered.
    @discardableResult
    mutating func forget(_ state: ObjectState) -> Bool {
        guard let table = table(for: state.id.entity),
            let index = tables[table].states.index(forKey: RowKey(state.id.key)),
            tables[table].states.values[index].toOpaque() == Unmanaged.passUnretained(state).toOpaque()
        else { return false }
        tables[table].states.remove(at: index)
        if !tables[table].deleted.isEmpty { tables[table].deleted.remove(RowKey(state.id.key)) }
        return true
    }

    /// Whether some live object may be deleted (keys of replaced states may linger: never a false
    /// "no"). A save's checks of links to deleted objects are skipped when none is.
    var mayHoldDeletedObjects: Bool {
        tables.contains { !$0.deleted.isEmpty }
    }

    /// Whether the ID names a live object that is deleted; one test when none of its entity is.
    func isDeleted(_ id: ObjectID) -> Bool {
        guard id.store == nil || id.store == store, let table = table(for: id.entity),
            !tables[table].deleted.isEmpty, tables[table].deleted.contains(RowKey(id.key))
        else { return false }
        return tables[table].states[RowKey(id.key)]?._withUnsafeGuaranteedRef { $0.isDeleted } == true
    }

    /// How many of these IDs, all of one entity, name live objects that are deleted. With
    /// `contains`, a test of membership in `ids`, the deleted objects are tested when fewer.
    func deletedCount(among ids: [ObjectID], of entity: EntityDeclaration, contains: ((ObjectID) -> Bool)? = nil) -> Int {
        guard let table = table(for: entity), !tables[table].deleted.isEmpty else { return 0 }
        let states = tables[table].states
        func isDeleted(_ key: Int64) -> Bool {
            states[RowKey(key)]?._withUnsafeGuaranteedRef { $0.isDeleted } == true
        }
        let deleted = tables[table].deleted
        if let contains, deleted.count < ids.count {
            return deleted.count { key in
                isDeleted(key.value) && contains(ObjectID(entity: entity, key: key.value, store: key.value < 0 ? nil : store))
            }
        }
        // The live state first: most members of a large relationship have none (only their IDs were
        // read), and one lookup settles those.
        return ids.count { id in (id.store == nil || id.store == store) && isDeleted(id.key) && deleted.contains(RowKey(id.key)) }
    }

    /// Every live state.
    var states: [ObjectState] {
        var states: [ObjectState] = []
        forEachState { states.append($0) }
        return states
    }

    /// Calls `body` with every live state, without collecting them.
    func forEachState(_ body: (ObjectState) -> Void) {
        for table in tables {
            for entry in table.states.values { body(entry.takeUnretainedValue()) }
        }
    }

    /// Registers states made for fetched rows (kept alive by their objects), growing the table once.
    mutating func register(_ states: [Unmanaged<ObjectState>], of entity: EntityDeclaration) {
        guard !states.isEmpty else { return }
        let table = tableCreatingIfNeeded(for: entity)
        tables[table].states.reserveCapacity(tables[table].states.count + states.count)
        for state in states {
            tables[table].states[RowKey(state._withUnsafeGuaranteedRef { $0.id.key })] = state
        }
    }

    mutating func removeAll() {
        tables = []
    }

    private func table(for entity: EntityDeclaration) -> Int? {
        let identifier = ObjectIdentifier(entity)
        return tables.firstIndex { $0.entity == identifier }
    }

    private mutating func tableCreatingIfNeeded(for entity: EntityDeclaration) -> Int {
        if let table = table(for: entity) { return table }
        tables.append(Table(entity: ObjectIdentifier(entity)))
        return tables.count - 1
    }
}

/// An object's state as a dictionary key: its identity, hashed by one multiplication. The context's
/// bookkeeping (inserted, updated, deleted objects, changes to post) is keyed by state, and touched
/// for every object a change or a deletion involves. Only a state makes one, so that a key made of
/// the entity object by mistake does not compile.
struct StateKey: Hashable {
    let identifier: ObjectIdentifier

    init(_ state: ObjectState) { identifier = ObjectIdentifier(state) }

    func hash(into hasher: inout Hasher) {
        hasher.combine(identifier)
    }

    func _rawHashValue(seed: Int) -> Int {
        CheapHash.identity(identifier, seed: seed)
    }
}
