import ObjectGraphModel

/// Keeps a registration alive: releasing it, or calling ``cancel()``, stops the deliveries.
public final class ObservationToken: Sendable {
    private let cancellation: Locked<(@Sendable () -> Void)?>

    init(cancellation: @escaping @Sendable () -> Void) {
        self.cancellation = Locked(cancellation)
    }

    deinit { cancel() }

    /// Stops the deliveries; calling it again does nothing.
    public func cancel() {
        let cancellation = self.cancellation.withLock { value in
            defer { value = nil }
            return value
        }
        cancellation?()
    }
}

/// Who listens to one kind of event: handlers registered with a token, and observer objects held
/// weakly. The one registry of the library: a context's notifications, the container's commits, a
/// list's changesets and the monitors' observers all go through it.
///
/// Handlers are called in the order they were added, on the thread that posts (a context's
/// isolation for its notifications and monitors; the committing thread for commits). The list is
/// behind a lock only because a token may be released, a stream ended, or an observer deallocated on
/// another thread.
package final class Observers<Value>: @unchecked Sendable {
    // Safety: `state` is only touched under its lock; handlers are only called by `post`, from the
    // isolation that posts this kind of event. Handlers that may run on any thread (commits') are
    // `@Sendable` where they are accepted from users.
    private let state = Locked<(next: Int, entries: [Entry])>((0, []))

    private struct Entry {
        let id: Int
        /// The observer object the entry belongs to, held weakly; the entry goes with it. Nil for a
        /// handler kept by its token.
        weak var owner: AnyObject?
        let isOwned: Bool
        let deliver: (Value) -> Void

        var isGone: Bool { isOwned && owner == nil }
    }

    package init() {}

    /// Adds a handler until the returned token goes.
    package func add(_ handler: @escaping (Value) -> Void) -> ObservationToken {
        let id = state.withLock { state in
            state.next += 1
            state.entries.append(Entry(id: state.next, owner: nil, isOwned: false, deliver: handler))
            return state.next
        }
        return ObservationToken { [weak self] in
            self?.state.withLock { $0.entries.removeAll { $0.id == id } }
        }
    }

    /// Adds an observer object, held weakly and delivered by `deliver` while it lives; adding it
    /// twice has no effect.
    package func add(_ owner: AnyObject, deliver: @escaping (Value) -> Void) {
        state.withLock { state in
            state.entries.removeAll(where: \.isGone)
            guard !state.entries.contains(where: { $0.owner === owner }) else { return }
            state.next += 1
            state.entries.append(Entry(id: state.next, owner: owner, isOwned: true, deliver: deliver))
        }
    }

    /// Stops the deliveries to an observer object.
    package func remove(_ owner: AnyObject) {
        state.withLock { $0.entries.removeAll { $0.owner === owner || $0.isGone } }
    }

    /// A stream of the values posted from now on; it ends when its consumer stops iterating. The
    /// values the consumer has not taken yet are kept as `bufferingPolicy` says.
    ///
    /// A value that is not `Sendable` (``ObjectsDidChange`` holds the context's objects) makes the
    /// stream not `Sendable` either: it is iterated in the isolation that asked for it, the context's,
    /// where the values belong. The compiler cannot see that the value reaches the same isolation
    /// through the continuation, hence the unchecked hand-over.
    package func stream(bufferingPolicy: AsyncStream<Value>.Continuation.BufferingPolicy) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream<Value>.makeStream(bufferingPolicy: bufferingPolicy)
        let token = add { value in
            nonisolated(unsafe) let value = value
            continuation.yield(value)
        }
        continuation.onTermination = { _ in token.cancel() }
        return stream
    }

    /// Whether anyone is listening (the event need not be built otherwise).
    package var isObserved: Bool {
        state.withLock { !$0.entries.isEmpty }
    }

    /// Delivers `value` to every handler, and to every observer object still alive.
    package func post(_ value: Value) {
        let entries = state.withLock { state in
            if state.entries.contains(where: \.isGone) { state.entries.removeAll(where: \.isGone) }
            return state.entries
        }
        for entry in entries where !entry.isOwned || entry.owner != nil { entry.deliver(value) }
    }
}
