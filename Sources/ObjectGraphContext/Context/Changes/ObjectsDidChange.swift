public import ObjectGraphModel

/// Posted by a context when it processes its pending changes: which of its objects were inserted,
/// updated, deleted, refreshed or invalidated since it last posted.
///
/// It holds the context's objects, so it stays on the context's isolation (it is not `Sendable`).
/// ``ObjectContext/processPendingChanges()`` posts it; so do `delete(_:)`, ``ObjectContext/save()``
/// (before writing, and after it for objects the merge policy settled), ``ObjectContext/rollback()``,
/// ``ObjectContext/reset()`` and merging another context's save. Changes to properties are gathered
/// until then; the view context also processes them by itself once the main actor is free, as Core
/// Data does at the end of an event. Observe it with ``ObjectContext/observeObjectsDidChange(_:)`` or
/// ``ObjectContext/objectsDidChangeNotifications``.
public struct ObjectsDidChange {
    /// An updated object, with the names of the properties that changed.
    public struct Update {
        /// The object.
        public let object: any Entity
        /// The names of its properties that changed since the context last posted.
        public let changedKeys: Set<String>
    }

    /// Objects inserted here, or, after a merge, inserted by another context's save (as faults).
    public let insertedObjects: [any Entity]
    /// Objects changed since the context last posted, with their changed keys: saved objects, and
    /// inserted ones whose insertion was already posted.
    public let updatedObjects: [Update]
    /// Objects deleted. They keep their last values until saved.
    public let deletedObjects: [any Entity]
    /// Objects given their saved values again (refreshed, rolled back, or merged from another
    /// context's save), with the properties that save changed where it is known.
    public let refreshedObjects: [Update]
    /// Objects the context no longer manages (such as inserted objects a rollback discarded).
    public let invalidatedObjects: [any Entity]
    /// Whether the context forgot every object (``ObjectContext/reset()``).
    public let invalidatedAllObjects: Bool
    /// The rows merged saves updated that no object of the context stands for: a list monitor
    /// looks at them (a row that starts matching its filter elsewhere), observers cannot.
    package let unheldUpdates: UnheldUpdates

    /// Whether the notification names any object, or every object: one that does not carries only
    /// ``unheldUpdates``, and is posted to list monitors alone.
    var namesObjects: Bool {
        !insertedObjects.isEmpty || !updatedObjects.isEmpty || !deletedObjects.isEmpty || !refreshedObjects.isEmpty
            || !invalidatedObjects.isEmpty || invalidatedAllObjects
    }

    /// Whether `object` was deleted or invalidated, or every object was.
    public func isGone(_ object: some Entity) -> Bool {
        invalidatedAllObjects || deletedObjects.contains { $0 === object } || invalidatedObjects.contains { $0 === object }
    }
}

/// A context's changes since it last posted ``ObjectsDidChange``, by state identity.
struct PendingObjectsChange {
    var inserted: StateMap<any Entity> = [:]
    var updated: StateMap<(object: any Entity, properties: PropertySet)> = [:]
    var deleted: StateMap<any Entity> = [:]
    var refreshed: StateMap<(object: any Entity, keys: Set<String>)> = [:]
    var invalidated: StateMap<any Entity> = [:]
    var invalidatedAll = false
    var unheldUpdates = UnheldUpdates()

    var isEmpty: Bool {
        inserted.isEmpty && updated.isEmpty && deleted.isEmpty && refreshed.isEmpty && invalidated.isEmpty
            && !invalidatedAll && unheldUpdates.isEmpty
    }

    /// Records a change to property `index` of an object. A change to an object whose insertion or
    /// deletion is still to be posted is part of it; an inserted object already posted as such is
    /// reported updated, as a saved one is (a list showing it must learn of it).
    mutating func recordUpdate(of state: ObjectState, property index: Int) {
        guard !state.isDeleted, !state.isInserted || state.insertionIsPosted, let object = state.object else { return }
        updated[StateKey(state), default: (object, PropertySet())].properties.insert(index)
    }

    /// The notification, with property indexes turned into names.
    var notification: ObjectsDidChange {
        ObjectsDidChange(
            insertedObjects: Array(inserted.values),
            updatedObjects: updated.values.compactMap { object, properties in
                // An object deleted after it changed is reported as deleted only.
                guard !object._$state.isDeleted else { return nil }
                let names = object._$state.entity.propertyNames
                return ObjectsDidChange.Update(object: object, changedKeys: Set(properties.indexes.map { names[$0] }))
            },
            deletedObjects: Array(deleted.values),
            refreshedObjects: refreshed.values.map { ObjectsDidChange.Update(object: $0.object, changedKeys: $0.keys) },
            invalidatedObjects: Array(invalidated.values),
            invalidatedAllObjects: invalidatedAll,
            unheldUpdates: unheldUpdates)
    }
}

/// Property indexes, as bits for the first 64 (recording a change is then one operation).
struct PropertySet {
    private var bits: UInt64 = 0
    private var others: Set<Int> = []

    mutating func insert(_ index: Int) {
        if index < 64 { bits |= 1 << UInt64(index) } else { others.insert(index) }
    }

    var indexes: [Int] {
        (0..<64).filter { bits & (1 << UInt64($0)) != 0 } + others.sorted()
    }
}
