import Foundation

/// A child process's exit, told by the process itself rather than polled. Made before the process
/// runs (its termination handler must be in place by then).
final class ProcessExit: Sendable {
    private let exits: AsyncStream<Void>

    init(of process: Process) {
        let (exits, exited) = AsyncStream<Void>.makeStream()
        self.exits = exits
        process.terminationHandler = { _ in exited.finish() }
    }

    /// Waits until the process has exited; false if it still runs after `limit`, which only catches
    /// a hang.
    func wait(upTo limit: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { [exits] in
                for await _ in exits {}
                return true
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return false
            }
            let exited = await group.next() ?? false
            group.cancelAll()
            return exited
        }
    }
}
