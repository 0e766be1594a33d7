import Synchronization

/// The deadline passed before the operation ended.
struct DeadlineExceeded: Error {}

/// Runs `operation` and returns its result, or throws ``DeadlineExceeded`` once `timeout` has
/// passed, cancelling it.
///
/// The caller gets its answer at the deadline even when the operation does not end at its
/// cancellation (a query already sent to the database): that is why it runs in a task of its
/// own instead of a task group, which would wait for it. Cancelling the caller cancels it too.
func withDeadline<Result: Sendable>(
    _ timeout: Duration, _ operation: @escaping @Sendable () async throws -> Result
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

/// The operation and the timer of ``withDeadline(_:_:)``: whichever ends first answers, once,
/// and cancels the other.
private final class DeadlineRace<Result: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result, any Error>?
        var work: Task<Void, Never>?
        var timer: Task<Void, Never>?
        var cancelled = false
    }

    private let state = Mutex(State())

    func start(
        _ continuation: CheckedContinuation<Result, any Error>, timeout: Duration,
        _ operation: @escaping @Sendable () async throws -> Result
    ) {
        // The continuation first: the operation may end before the tasks are noted.
        state.withLock { $0.continuation = continuation }
        let work = Task {
            do { self.answer(.success(try await operation())) } catch { self.answer(.failure(error)) }
        }
        let timer = Task {
            guard (try? await Task.sleep(for: timeout)) != nil else { return }  // cancelled: the work ended
            self.answer(.failure(DeadlineExceeded()))
        }
        let (answered, cancelled) = state.withLock { state in
            state.work = work
            state.timer = timer
            return (state.continuation == nil, state.cancelled)
        }
        if answered || cancelled {
            work.cancel()
            timer.cancel()
        }
    }

    func cancel() {
        let tasks = state.withLock { state in
            state.cancelled = true
            return (state.work, state.timer)
        }
        tasks.0?.cancel()
        tasks.1?.cancel()
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
