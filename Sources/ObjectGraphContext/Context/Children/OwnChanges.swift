import ObjectGraphModel
import ObjectGraphStore
import OrderedCollections

/// What a child context changed of one of its objects, measured from what it got from its parent
/// (its ``ParentBaseline``), or from the store for an object it read from there: what the child's
/// save gives the parent, and what a refresh from the parent keeps.
struct OwnChanges {
    /// Row values (attributes and to-one keys), by position.
    var values: [(position: Int, value: StoredValue)] = []
    /// Members gained and lost, by to-many slot.
    var added: [Int: [ObjectID]] = [:]
    var removed: [Int: [ObjectID]] = [:]
    /// The order of each ordered relationship the child reordered, by slot.
    var orders: [Int: OrderedSet<ObjectID>] = [:]
    /// Whether the child deleted the object.
    var deletes = false

    init(of state: ObjectState) {
        let baseline = state.parentBaseline
        if !state.isFault {
            // An object the child inserted has no base: all its values are its own.
            let base = baseline?.values ?? state.committedValues ?? (state.isInserted ? nil : state.values)
            for position in 0..<state.valueCount where base.map({ $0[position] != state.value(atPosition: position) }) ?? true {
                values.append((position, state.value(atPosition: position)))
            }
        }
        let baseChanges = baseline?.changedToMany ?? [:]
        for slot in Set(state.changedToMany.keys).union(baseChanges.keys) {
            let now = state.changedToMany[slot] ?? MemberChanges(), before = baseChanges[slot] ?? MemberChanges()
            let gained = now.added.filter { !before.added.contains($0) } + before.removed.filter { !now.removed.contains($0) }
            let lost = now.removed.filter { !before.removed.contains($0) } + before.added.filter { !now.added.contains($0) }
            if !gained.isEmpty { added[slot] = gained }
            if !lost.isEmpty { removed[slot] = lost }
            guard state.mapping?.toManyIsOrdered[slot] == true,
                case .loaded(let order) = state.toMany[slot]
            else { continue }
            if let baseline, case .loaded(let baseOrder) = baseline.toMany[slot], baseOrder == order { continue }
            if baseline == nil, state.changedToMany[slot] == nil { continue }
            orders[slot] = order
        }
        deletes = state.isDeleted && baseline?.isDeleted != true
    }

    /// Whether the child changed nothing of the object.
    var isEmpty: Bool {
        values.isEmpty && added.isEmpty && removed.isEmpty && orders.isEmpty && !deletes
    }
}

extension ObjectContext {
    /// Gives `state` the values, members and order `changes` name, each recorded as a change of
    /// this context (a parent taking its child's save, a child keeping its changes through a
    /// refresh). The object's existence is the caller's.
    func apply(_ changes: OwnChanges, to state: ObjectState) throws {
        if !changes.values.isEmpty, state.isFault { try loadFault(state) }
        for (position, value) in changes.values { setRowValue(value, atPosition: position, of: state) }
        for (slot, ids) in changes.removed.sorted(by: { $0.key < $1.key }) {
            for id in ids { removeMember(id, from: state, slot: slot) }
        }
        for (slot, ids) in changes.added.sorted(by: { $0.key < $1.key }) {
            for id in ids { addMember(id, to: state, slot: slot) }
        }
        for (slot, order) in changes.orders.sorted(by: { $0.key < $1.key }) {
            let current = OrderedSet(try loadedMembers(of: state, slot: slot))
            reorderMembers(of: state, slot: slot, to: OwnChanges.order(current, following: order, added: Set(changes.added[slot] ?? [])))
        }
    }
}

extension OwnChanges {
    /// `current`'s members in the order `child` gives them, where it can: the members both hold
    /// take `child`'s order among the places they hold in `current`; those `child` added follow the
    /// member they follow in `child`; the others (added by the parent meanwhile) keep their place.
    static func order(_ current: OrderedSet<ObjectID>, following child: OrderedSet<ObjectID>, added: Set<ObjectID>) -> OrderedSet<ObjectID>
    {
        var result = current.filter { !added.contains($0) }
        let common = child.filter { result.contains($0) && !added.contains($0) }
        let places = result.indices.filter { common.contains(result[$0]) }
        var members = Array(result)
        for (place, member) in zip(places, common) { members[place] = member }
        result = OrderedSet(members)
        for (index, member) in child.enumerated() where added.contains(member) && current.contains(member) {
            let predecessor = child[..<index].last { result.contains($0) }
            let position = predecessor.flatMap { result.firstIndex(of: $0) }.map { $0 + 1 } ?? 0
            result.insert(member, at: position)
        }
        return result
    }
}
