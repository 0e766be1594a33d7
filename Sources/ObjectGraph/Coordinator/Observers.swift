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

/// The handlers waiting for one kind of notification from a context.
///
/// Handlers are called on the context's isolation, in the order they were added. The list is behind
/// a lock only because a token may be released, or a stream ended, on another thread.
final class Observers<Value>: @unchecked Sendable {
    // Safety: `handlers` is only touched under its lock; handlers are only called by `post`, which
    // the context calls from its own isolation.
    private let handlers = Locked<(next: Int, entries: [(id: Int, handler: (Value) -> Void)])>((0, []))

    /// Adds a handler until the returned token goes.
    func add(_ handler: @escaping (Value) -> Void) -> ObservationToken {
        let id = handlers.withLock { state in
            state.next += 1
            state.entries.append((state.next, handler))
            return state.next
        }
        return ObservationToken { [weak self] in self?.remove(id) }
    }

    /// A stream of the values posted from now on; it ends when its consumer stops iterating.
    ///
    /// A value that is not `Sendable` (``ObjectsDidChange`` holds the context's objects) makes the
    /// stream not `Sendable` either: it is iterated in the isolation that asked for it, the context's,
    /// where the values belong. The compiler cannot see that the value reaches the same isolation
    /// through the continuation, hence the unchecked hand-over.
    func stream() -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream<Value>.makeStream()
        let token = add { value in
            nonisolated(unsafe) let value = value
            continuation.yield(value)
        }
        continuation.onTermination = { _ in token.cancel() }
        return stream
    }

    /// Whether anyone is listening (the notification need not be built otherwise).
    var isObserved: Bool {
        handlers.withLock { !$0.entries.isEmpty }
    }

    func post(_ value: Value) {
        for entry in handlers.withLock({ $0.entries }) { entry.handler(value) }
    }

    private func remove(_ id: Int) {
        handlers.withLock { $0.entries.removeAll { $0.id == id } }
    }
}
