import Synchronization

/// The deadline passed before the operation ended.
struct DeadlineExceeded: Error {}

/// Runs `operation` and returns its result, or throws ``DeadlineExceeded`` once `timeout` has
/// passed, cancelling it.
///
/// The caller gets its answer at the deadline even when the operation does not end at its
/// cancellation (a query already sent to the database): that is why it runs in a task of its
/// own instead of a task group, which would wait for it. Cancelling the caller cancels the
/// operation too, and answers the caller at once with `CancellationError`: a server shutting
/// down (which cancels its services) never waits for a database call that ignores cancellation.
/// PostgresNIO has such calls: a readiness ping cancelled by a shutdown never ended, and held
/// the server's shutdown (and a test process) until it was killed.
func withDeadline<Result: Sendable>(
    _ timeout: Duration, _ operation: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    try await race(operation, timeout: timeout)
}

/// Runs `operation` and returns its result; cancelling the caller cancels it and answers the
/// caller at once with `CancellationError`, whether or not the operation ends then: for the
/// server's services, whose shutdown must not wait for a database call that ignores
/// cancellation (see ``withDeadline(_:_:)``).
func withPromptCancellation<Result: Sendable>(
    _ operation: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    try await race(operation, timeout: nil)
}

private func race<Result: Sendable>(
    _ operation: @escaping @Sendable () async throws -> Result, timeout: Duration?
) async throws -> Result {
    let race = DeadlineRace<Result>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            race.start(continuation, timeout: timeout, operation)
        }
    } onCancel: {
        race.cancel()
    }
}

/// The operation and the timer of ``withDeadline(_:_:)``: whichever ends first (or the caller's
/// cancellation) answers, once, and cancels the others.
private final class DeadlineRace<Result: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result, any Error>?
        var work: Task<Void, Never>?
        var timer: Task<Void, Never>?
        var cancelled = false
    }

    private let state = Mutex(State())

    func start(
        _ continuation: CheckedContinuation<Result, any Error>, timeout: Duration?,
        _ operation: @escaping @Sendable () async throws -> Result
    ) {
        // The continuation first: the operation may end before the tasks are noted.
        state.withLock { $0.continuation = continuation }
        let work = Task {
            do { self.answer(.success(try await operation())) } catch { self.answer(.failure(error)) }
        }
        let timer = timeout.map { timeout in
            Task {
                guard (try? await Task.sleep(for: timeout)) != nil else { return }  // cancelled: the work ended
                self.answer(.failure(DeadlineExceeded()))
            }
        }
        let (answered, cancelled) = state.withLock { state in
            state.work = work
            state.timer = timer
            return (state.continuation == nil, state.cancelled)
        }
        if answered {
            work.cancel()
            timer?.cancel()
        } else if cancelled {  // the caller was cancelled before the tasks were noted
            answer(.failure(CancellationError()))
        }
    }

    /// The caller was cancelled: it gets `CancellationError` now, whether or not the operation
    /// ends at its own cancellation.
    func cancel() {
        state.withLock { $0.cancelled = true }
        answer(.failure(CancellationError()))
    }

    private func answer(_ result: Swift.Result<Result, any Error>) {
        let taken = state.withLock { state in
            defer { state.continuation = nil }
            return (state.continuation, state.work, state.timer)
        }
        guard let continuation = taken.0 else { return }  // answered already
        taken.1?.cancel()
        taken.2?.cancel()
        continuation.resume(with: result)
    }
}
