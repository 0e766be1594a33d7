public import Foundation

/// Tells its owner when one object changes or goes (Core Data apps write a `ManagedObjectObserver` for it), for a detail
/// screen that must close when its object is deleted, whoever deleted it.
///
/// It listens to the object's context's ``ObjectsDidChange``. An object deleted (in this context, by a
/// cascade, or by another context's save once merged), invalidated, or forgotten by a reset, counts as
/// ``Change/delete``; so does an update that marks it for deletion (``DelayedDeletable``), and one after
/// which the object no longer matches `predicate`. Other updates and refreshes count as ``Change/update(changedKeys:)``.
/// Delivery stops when the observer is released; it holds the object weakly, so it never keeps it
/// alive.
public final class ObjectObserver<Object: Entity> {
    /// What happened to the observed object.
    public enum Change: Equatable, Sendable {
        /// The object changed; the names of the properties that did, where known.
        case update(changedKeys: Set<String>)
        /// The object is gone, or no longer matches the observer's predicate.
        case delete
    }

    private var token: ObservationToken?

    /// The last error met evaluating `predicate` on the object: it was reported as a deletion (a
    /// predicate that cannot be evaluated does not hold), and the error is kept here.
    public private(set) var lastError: (any Error)?

    /// Observes `object`, which must belong to a context (otherwise the initializer fails).
    public init?(_ object: Object, matching predicate: Predicate<Object>? = nil,
                 onChange: @escaping (Change) -> Void) {
        guard let context = object.objectContext else { return nil }
        token = context.observeObjectsDidChange { [weak object, weak self] change in
            guard let object, let kind = change.kind(for: object, matching: predicate,
                                                     evaluationFailed: { self?.lastError = $0 }) else { return }
            onChange(kind)
        }
    }

    /// Stops the deliveries.
    public func cancel() {
        token = nil
    }
}
