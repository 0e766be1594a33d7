import Foundation
import Glibc
import Synchronization

/// A child process started with `posix_spawn`, its output and error in one pipe.
///
/// Foundation's `Process.run()` on Linux reads past a buffer while it lists the parent's open
/// files (swift-corelibs-foundation #5472, fixed after this toolchain): a test that starts many
/// processes from a parent with many open files crashed in it. This starts the child without
/// that listing; the child inherits the parent's descriptors, which it never uses.
final class SpawnedProcess: Sendable {
    let pid: pid_t
    private let output: Task<Data, Never>
    /// The wait status, once the process was reaped.
    private let status = Mutex<Int32?>(nil)

    /// Starts `executable` with `arguments`.
    init(_ executable: URL, _ arguments: [String]) throws {
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { throw TestFailure("pipe: errno \(errno)") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 2)
        posix_spawn_file_actions_addclose(&actions, pipe[0])
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, nil, argv, environ)
        close(pipe[1])
        guard spawned == 0 else {
            close(pipe[0])
            throw TestFailure("posix_spawn \(executable.path): \(spawned)")
        }
        self.pid = pid
        let reading = FileHandle(fileDescriptor: pipe[0], closeOnDealloc: true)
        // Read as it comes, so that a talkative child never blocks on a full pipe.
        output = Task.detached { reading.readDataToEndOfFile() }
    }

    /// Kills the process with SIGKILL, unless it was reaped already (its ID may be another's now).
    func kill() {
        status.withLock { status in
            if status == nil { _ = Glibc.kill(pid, SIGKILL) }
        }
    }

    /// Whether it has not exited yet (reaping it when it has).
    var isRunning: Bool { reap() == nil }

    /// The wait status once the process exited; nil while it runs.
    private func reap() -> Int32? {
        status.withLock { status in
            if let status { return status }
            var value: Int32 = 0
            if waitpid(pid, &value, WNOHANG) == pid { status = value }
            return status
        }
    }

    /// Waits for the exit, polling; nil if the process still runs after `limit` (which only catches
    /// a hang). Returns whether a signal ended it, the exit code or signal, and what it printed.
    func exit(within limit: Duration) async -> (signaled: Bool, code: Int32, output: String)? {
        let deadline = ContinuousClock.now + limit
        while true {
            if let status = reap() {
                let text = String(decoding: await output.value, as: UTF8.self)
                let signal = status & 0x7F
                return signal != 0 ? (true, signal, text) : (false, (status >> 8) & 0xFF, text)
            }
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }
}
