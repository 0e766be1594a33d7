public import Foundation
import ObjectGraphContext
public import ObjectGraphModel

/// Tells its owner when one object changes or goes (Core Data apps write a `ManagedObjectObserver` for it), for a detail
/// screen that must close when its object is deleted, whoever deleted it.
///
/// A closure-based use of an ``ObjectMonitor`` that does not keep the object alive, with a
/// predicate the object must keep matching. An object deleted (in this context, by a
/// cascade, or by another context's save once merged), invalidated, or forgotten by a reset, counts as
/// ``Change/delete``; so does an update that marks it for deletion (``DelayedDeletable``), and one after
/// which the object no longer matches `predicate`. Other updates and refreshes count as ``Change/update(changedKeys:)``.
/// Delivery stops after the deletion, and when the observer is released; it holds the object
/// weakly, so it never keeps it alive.
public final class ObjectObserver<Object: Entity> {
    /// What happened to the observed object.
    public enum Change: Equatable, Sendable {
        /// The object changed; the names of the properties that did, where known.
        case update(changedKeys: Set<String>)
        /// The object is gone, or no longer matches the observer's predicate.
        case delete
    }

    /// The monitor it uses, not keeping the object alive; nil once cancelled.
    private var monitor: ObjectMonitor<Object>?
    /// Hears the monitor's events for `onChange` (the monitor holds its observers weakly).
    private let relay: Relay

    /// The last error met evaluating `predicate` on the object: it was reported as a deletion (a
    /// predicate that cannot be evaluated does not hold), and the error is kept here.
    public private(set) var lastError: (any Error)?

    /// Observes `object`, which must belong to a context and not be deleted (otherwise the
    /// initializer fails).
    public init?(
        _ object: Object, matching predicate: Predicate<Object>? = nil,
        onChange: @escaping (Change) -> Void
    ) {
        guard let monitor = ObjectMonitor(object: object, related: [], predicate: predicate, holdsObject: false) else {
            return nil
        }
        self.monitor = monitor
        relay = Relay(onChange)
        monitor.evaluationFailed = { [weak self] in self?.lastError = $0 }
        monitor.addObserver(relay)
    }

    /// Stops the deliveries.
    public func cancel() {
        monitor = nil
    }

    private final class Relay: ObjectMonitorObserver {
        let onChange: (Change) -> Void
        init(_ onChange: @escaping (Change) -> Void) { self.onChange = onChange }

        func objectMonitor(_ monitor: ObjectMonitor<Object>, didUpdateObject object: Object, changedPersistentKeys: Set<String>) {
            onChange(.update(changedKeys: changedPersistentKeys))
        }

        func objectMonitor(_ monitor: ObjectMonitor<Object>, didDeleteObject object: Object) {
            onChange(.delete)
        }
    }
}
