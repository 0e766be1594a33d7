import Synchronization
import Testing

@testable import SyncServer

@Suite("Deadlines: a request stops waiting for the database at its deadline or its cancellation", .timeLimit(.minutes(5)))
struct DeadlineTests {
    @Test("An operation that ends before the deadline answers, and one that fails throws its error")
    func operationAnswers() async throws {
        #expect(try await withDeadline(.seconds(600)) { 42 } == 42)
        await #expect(throws: Refusal.self) { try await withDeadline(.seconds(600)) { throw Refusal() } }
    }

    @Test("An operation past the deadline gets DeadlineExceeded, even when it ignores its cancellation")
    func deadlinePasses() async throws {
        let operation = Gate()
        defer { operation.open() }
        await #expect(throws: DeadlineExceeded.self) {
            try await withDeadline(.milliseconds(10)) { await operation.passed() }
        }
    }

    @Test(
        "A cancelled caller gets CancellationError at once, even while its operation ignores cancellation: a server's shutdown never waits for a stuck database call"
    )
    func cancellationAnswersAtOnce() async throws {
        let operation = Gate()
        let caller = Task { try await withDeadline(.seconds(600)) { await operation.passed() } }
        await operation.entered()
        caller.cancel()
        let (result, answeredWhileStuck) = await Self.answer(of: caller, whileStuckAt: operation)
        #expect(answeredWhileStuck, "the cancelled caller waited for its operation")
        #expect(throws: CancellationError.self) { try result.get() }
    }

    @Test("A caller cancelled before it starts gets CancellationError at once")
    func cancelledBeforeStart() async throws {
        let operation = Gate()
        let caller = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await withDeadline(.seconds(600)) { await operation.passed() }
        }
        let (result, answeredWhileStuck) = await Self.answer(of: caller, whileStuckAt: operation)
        #expect(answeredWhileStuck, "the cancelled caller waited for its operation")
        #expect(throws: CancellationError.self) { try result.get() }
    }

    /// The caller's result, and whether it came while the operation still waited at `gate`. Only
    /// a hang opens the gate first (after a minute), so that a wrong answer fails instead of hanging.
    private static func answer<Value: Sendable>(
        of caller: Task<Value, any Error>, whileStuckAt gate: Gate
    ) async -> (Result<Value, any Error>, Bool) {
        let watchdog = Task {
            try await Task.sleep(for: .seconds(60))
            gate.open()
        }
        let result = await caller.result
        let answeredWhileStuck = !gate.isOpen
        watchdog.cancel()
        gate.open()
        return (result, answeredWhileStuck)
    }

    private struct Refusal: Error {}
}

/// An operation that ignores cancellation: it ends only when the test opens the gate.
private final class Gate: Sendable {
    private let state = Mutex<(open: Bool, entered: Bool, waiting: [CheckedContinuation<Void, Never>])>(
        (false, false, []))

    var isOpen: Bool { state.withLock { $0.open } }

    /// Waits, whatever cancellation says, until the gate opens.
    func passed() async {
        await withCheckedContinuation { continuation in
            let resume = state.withLock { state -> Bool in
                state.entered = true
                if state.open { return true }
                state.waiting.append(continuation)
                return false
            }
            if resume { continuation.resume() }
        }
    }

    /// Returns once an operation waits at the gate (or went through it), or the test is cancelled.
    func entered() async {
        while !state.withLock({ $0.entered }), !Task.isCancelled { await Task.yield() }
    }

    func open() {
        let waiting = state.withLock { state in
            state.open = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}
