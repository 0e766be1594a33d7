import Synchronization

/// Wakes a started coordinator's loop, remembering why: the app's changes to send, or the server's
/// to read.
///
/// The reason matters because a cycle for the server's changes only reads the feed. Were it to
/// push too, every push would move the feed, the live route would announce it, and the cycle that
/// announcement wakes would push the app's next saves at once: a chain of cycles for as long as
/// the app saves, around the gathering of its saves (``GatheringWake``).
final class CoordinatorWake: Sendable {
    struct Reasons: Sendable {
        /// Local changes may be waiting: a full cycle (record, push, pull).
        var localChanges = false
        /// The server's feed moved past the cursor: a pull.
        var serverChanges = false
    }

    private let reasons = Mutex(Reasons())
    private let continuation: AsyncStream<Void>.Continuation
    /// One element per wake; several wakes before the loop looks are one.
    let wakes: AsyncStream<Void>

    init() {
        (wakes, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    func forLocalChanges() {
        reasons.withLock { $0.localChanges = true }
        continuation.yield()
    }

    func forServerChanges() {
        reasons.withLock { $0.serverChanges = true }
        continuation.yield()
    }

    /// The reasons gathered since the last call, forgotten.
    func take() -> Reasons {
        reasons.withLock { reasons in
            defer { reasons = Reasons() }
            return reasons
        }
    }

    /// Ends the loop.
    func finish() {
        continuation.finish()
    }
}
