import Foundation
import ObjectGraphContext
import ObjectGraphModel

extension ObjectsDidChange {
    /// What this notification means for `object`, the one object a screen shows; nil when it does not
    /// concern it. The single rule that ``ObjectObserver`` and ``ObjectMonitor`` share: deleted (here,
    /// by a cascade, or by a merged save), invalidated, forgotten by a reset, marked for deletion, or
    /// no longer matching `predicate` is a deletion; any other change is an update.
    ///
    /// A predicate that cannot be evaluated on the object's values does not hold for it: a deletion,
    /// and `evaluationFailed` is called with the error.
    func kind<Object: Entity>(
        for object: Object, matching predicate: Predicate<Object>? = nil,
        evaluationFailed: (any Error) -> Void = { _ in }
    ) -> ObjectObserver<Object>.Change? {
        if isGone(object) { return .delete }
        var concerned = false
        var keys = Set<String>()
        for update in [updatedObjects, refreshedObjects].joined() where update.object === object {
            concerned = true
            keys.formUnion(update.changedKeys)
        }
        guard concerned else { return nil }
        if let deletable = object as? any DelayedDeletable, deletable.markedForDeletionDate != nil { return .delete }
        if let predicate {
            do {
                if try !CheckedPredicate(predicate, entity: Object._$entity.name).evaluate(object) { return .delete }
            } catch {
                evaluationFailed(error)
                return .delete
            }
        }
        return .update(changedKeys: keys)
    }
}
