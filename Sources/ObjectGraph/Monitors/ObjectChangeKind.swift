import Foundation

/// What one ``ObjectsDidChange`` means for one object that a screen shows: the single rule that
/// ``ObjectObserver`` and ``ObjectMonitor`` share.
enum ObjectChangeKind: Equatable {
    /// The object changed; the names of the properties that did, where known.
    case update(changedKeys: Set<String>)
    /// The object is gone as far as a screen is concerned: deleted (here, by a cascade, or by a merged
    /// save), invalidated, forgotten by a reset, marked for deletion, or no longer matching the
    /// observer's predicate.
    case delete
}

extension ObjectsDidChange {
    /// What this notification means for `object`; nil when it does not concern it.
    func kind<Object: Entity>(for object: Object, matching predicate: Predicate<Object>? = nil) -> ObjectChangeKind? {
        if isGone(object) { return .delete }
        var concerned = false
        var keys = Set<String>()
        for update in updatedObjects where update.object === object {
            concerned = true
            keys.formUnion(update.changedKeys)
        }
        for update in refreshedObjects where update.object === object {
            concerned = true
            keys.formUnion(update.changedKeys)
        }
        guard concerned else { return nil }
        if let deletable = object as? any DelayedDeletable, deletable.markedForDeletionDate != nil { return .delete }
        // A predicate that cannot be evaluated on the object's values does not hold for it.
        if let predicate, (try? predicate.evaluate(object)) != true { return .delete }
        return .update(changedKeys: keys)
    }
}
