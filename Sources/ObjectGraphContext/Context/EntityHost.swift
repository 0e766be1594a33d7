package import Foundation
package import ObjectGraphModel
package import ObjectGraphStore
package import Observation

/// A context's host for the states of one entity's objects (see ``ObjectHost``): what a state asks
/// goes to the context, with the entity's mapping at hand. One per entity of the store, made with
/// the context, which it never outlives.
package final class EntityHost: ObjectHost {
    /// Unretained: the context owns its hosts.
    package unowned(unsafe) let context: ObjectContext
    /// Unretained: the context keeps the store, and the store its mappings, alive.
    package unowned(unsafe) let mapping: EntityMapping

    init(context: ObjectContext, mapping: EntityMapping) {
        self.context = context
        self.mapping = mapping
        // A state tests its layout's mark slot before telling its host; the store finds the same.
        assert(mapping.markedForDeletionSlot == mapping.declaration.layout.markedForDeletionSlot, "\(mapping.name)'s mark")
    }

    package var observesReads: Bool { context.observation.observesReads }

    @inline(__always) package func beginUse() -> ExclusiveUse.Use { context.beginUse() }

    package func forget(_ state: ObjectState) { context.forget(state) }

    package func detach(_ state: ObjectState) {
        context.observation.forget(state)
    }

    // MARK: Fault me in

    package func fulfillFault(_ state: ObjectState) { context.fulfillFault(state) }

    package func readGlobalID(of state: ObjectState) -> UUID? { context.readGlobalID(of: state) }

    package func recordReadFailure(_ failure: ObjectGraphError, of state: ObjectState, property: String) {
        context.recordReadFailure(failure, of: state, property: property)
    }

    // MARK: Record a change

    package func willChange(_ state: ObjectState, property index: Int) -> Bool {
        context.willChange(state, property: index)
    }

    package func didWriteMark(of state: ObjectState) {
        context.noteUnsavedMark(of: state, mapping: mapping)
    }

    package func didChangeDeletion(of state: ObjectState, isDeleted: Bool) {
        context.registry.noteDeletion(of: state, isDeleted: isDeleted)
        context.deletionPass?.forgetMemberCounts()
    }

    package func forgetCachedMembers(of state: ObjectState) { context.deletionPass?.forgetCachedMembers(of: state) }

    // MARK: Resolve a relationship

    package func relatedObject(of state: ObjectState, slot: Int, property index: Int) -> (any Entity)? {
        guard let id = state.relatedID(at: slot) else { return nil }
        // An object marked for deletion is hidden, as if the relationship were empty.
        if mapping.toOneDestinationsHideMarked[slot],
            context.isHiddenAsMarked(id, owner: state, property: state.entity.properties[index].name)
        {
            return nil
        }
        return context.object(with: id)
    }

    package func relatedObjects(of state: ObjectState, slot: Int, property index: Int) -> [any Entity] {
        let destination = mapping.toManyDestinations[slot]
        return context.objects(
            with: context.unmarked(
                context.members(of: state, slot: slot), destination: destination,
                owner: state, property: state.entity.properties[index].name),
            of: destination)
    }

    package func setToOne(_ state: ObjectState, slot: Int, to object: (any Entity)?) {
        context.setToOne(state, slot: slot, to: object)
    }

    package func setToMany(_ state: ObjectState, slot: Int, to objects: [any Entity]) {
        context.setToMany(state, slot: slot, to: objects)
    }

    package func cachedMembers(of state: ObjectState, index: Int) -> Any? { context.deletionPass?.cachedMembers(of: state, index: index) }

    package func cacheMembers(_ members: Any, of state: ObjectState, index: Int) {
        context.deletionPass?.cacheMembers(members, of: state, index: index)
    }

    // MARK: Observation

    package func registrar(of state: ObjectState) -> ObservationRegistrar {
        context.observation.registrar(for: state)
    }
}

/// A state as its context sees it: the context and mapping its host names.
extension ObjectState {
    /// The context's host for this state's entity, if the state belongs to a context.
    @inline(__always)
    var entityHost: EntityHost? {
        // Every host is an `EntityHost` (only contexts attach states).
        host.map { unsafeDowncast($0 as AnyObject, to: EntityHost.self) }
    }

    /// The context, unretained (see ``_ObjectStateHeader/host``); change it with ``attach(to:)``.
    package var context: ObjectContext? { entityHost?.context }

    /// The entity's mapping in the context's store, set and cleared with ``context``.
    package var mapping: EntityMapping? { entityHost?.mapping }

    /// An object of the context's store, as a fault (`row == nil`) or filled with a fetched row's
    /// values.
    @inline(__always)
    static func make(entity: EntityDeclaration, id: ObjectID, host: EntityHost, row: CurrentRow?) -> ObjectState {
        make(entity: entity, id: id, host: host, version: row?.version) { values, count in
            row?.initializeValues(values, count: count)
        }
    }

    /// Fills the state with a row's values: they become the committed ones.
    @inline(__always)
    func load(_ row: CurrentRow) {
        load(version: row.version) { values, count in row.initializeValues(values, count: count) }
    }

    /// The ID of the object a to-one relationship points to, in the context's store.
    package func relatedID(at slot: Int) -> ObjectID? {
        guard let key = relatedKey(at: slot), let host = entityHost else { return nil }
        let id = ObjectID(
            entity: host.mapping.toOneDestinations[slot], key: key,
            store: key < 0 ? nil : host.context.store.identity)
        // An object of a subentity, maybe: its own class is its row's.
        let destination = host.context.store.mappings[host.mapping.toOneRelationships[slot].destination]
        guard destination.hierarchy?.hasSubentities == true else { return id }
        return host.context.concreteIDs([id], of: destination)[0]
    }

    /// The number of members of a to-many relationship that are not deleted, from their IDs.
    func liveMemberCount(of keyPath: AnyKeyPath) -> Int {
        guard let index = entity.propertyIndex(for: keyPath), case .toMany(let slot) = entity.layout.slots[index] else {
            return 0
        }
        guard let context, let mapping else { return detachedRelatives[index]?.count { !$0.isDeleted } ?? 0 }
        if let cached = context.deletionPass?.cachedMemberCount(of: self, slot: slot) { return cached }
        // Not loaded, in a deletion pass counting many owners: counted from the keys the store's
        // index holds, corrected for this context's changes, without loading the relationship.
        if toMany[slot].needsLoading, let count = context.countUnloadedMembers(of: self, slot: slot, property: index) {
            context.deletionPass?.cacheMemberCount(count, of: self, slot: slot)
            return count
        }
        let destination = mapping.toManyDestinations[slot]
        let all = context.members(of: self, slot: slot)
        let members = context.unmarked(all, destination: destination, owner: self, property: entity.properties[index].name)
        // Tested against the loaded set when nothing was hidden: then the members are the set's.
        var contains: ((ObjectID) -> Bool)?
        if members.count == all.count, case .loaded(let set) = toMany[slot] { contains = { set.contains($0) } }
        let count = members.count - context.registry.deletedCount(among: members, of: destination, contains: contains)
        // Kept only when read in full: a count made of what memory knew, after a failed read, is
        // counted again at the next call.
        if !toMany[slot].needsLoading, context.readFailures[id] == nil {
            context.deletionPass?.cacheMemberCount(count, of: self, slot: slot)
        }
        return count
    }
}
