import Foundation
import Glibc
import Synchronization

/// A child process started with `posix_spawn`, its output and error in one pipe. Every child
/// process of the server's tests starts here, and nothing waits for one by blocking a thread.
///
/// Foundation's `Process.run()` on Linux reads past a buffer while it lists the parent's open
/// files (swift-corelibs-foundation #5472, fixed after this toolchain): a test that starts many
/// processes from a parent with many open files crashed in it. This starts the child without
/// that listing, and closes in the child every descriptor but its standard three: a child
/// that kept another test's pipe open (PostgreSQL's server, started by `pg_ctl`, lives on)
/// kept that test's read of its output waiting, and two such waits blocking the pool's threads
/// on a machine of two cores stop every test of the process.
final class SpawnedProcess: Sendable {
    let pid: pid_t
    /// What it printed so far.
    let log = OutputLog()
    /// The reading end of its output, kept for as long as this handle lives: its readability
    /// handler goes with it.
    private let outputHandle: FileHandle
    /// The wait status, once the process was reaped.
    private let status = Mutex<Int32?>(nil)

    /// Starts `executable` with `arguments`, in `directory` (this process's when nil), and this
    /// process's environment with `environment`'s variables added or replaced.
    init(_ executable: URL, _ arguments: [String], environment: [String: String] = [:], directory: URL? = nil) throws {
        guard let closeFrom = Self.addCloseFrom, let changeDirectory = Self.addChangeDirectory else {
            throw TestFailure("this C library has no posix_spawn_file_actions_addclosefrom_np (glibc 2.34 and later do)")
        }
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { throw TestFailure("pipe: errno \(errno)") }
        // Closed on exec: a process another test spawns meanwhile must not inherit this pipe's
        // write end, or the output would not end before that process does (the dup2 below makes
        // the child's own copies, which stay open). `pipe2` would set it at once; Glibc's module
        // does not offer it.
        for end in pipe { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 2)
        guard closeFrom(&actions, 3) == 0, directory.map({ changeDirectory(&actions, $0.path) == 0 }) ?? true else {
            for end in pipe { close(end) }
            throw TestFailure("posix_spawn's file actions could not be set")
        }
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for variable in envp { free(variable) } }
        // The child starts with no signal blocked and every signal at its default, as Foundation's
        // `Process` starts it: a thread of this process may block some (a server that inherited a
        // blocked SIGTERM would not stop when told to).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, &attributes, argv, envp)
        close(pipe[1])
        guard spawned == 0 else {
            close(pipe[0])
            throw TestFailure("posix_spawn \(executable.path): \(spawned)")
        }
        self.pid = pid
        let handle = FileHandle(fileDescriptor: pipe[0], closeOnDealloc: true)
        outputHandle = handle
        // Read as it comes, so that a talkative child never blocks on a full pipe, and what it
        // printed can be read while it runs; by the file handle's own dispatch source, not a task
        // blocked in a read (tests that run many processes would take every thread of the pool).
        let log = self.log
        let descriptor = pipe[0]
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        handle.readabilityHandler = { handle in
            log.readAvailable(from: descriptor)
            if log.isFinished { handle.readabilityHandler = nil }
        }
    }

    // glibc's spawn actions that close every inherited descriptor and change the directory: Swift's
    // Glibc module leaves them out (they are GNU extensions), so they are looked up at run time.
    // Safety: the casts give each the signature <spawn.h> declares for it (glibc 2.34 and later).
    private static let addCloseFrom = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
        unsafeBitCast($0, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }
    private static let addChangeDirectory = dlsym(nil, "posix_spawn_file_actions_addchdir_np").map {
        unsafeBitCast(
            $0, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32).self)
    }

    /// Sends `signal` to the process, unless it was reaped already (its ID may be another's now).
    func send(_ signal: Int32) {
        status.withLock { status in
            if status == nil { _ = Glibc.kill(pid, signal) }
        }
    }

    /// Kills the process with SIGKILL, unless it was reaped already (its ID may be another's now).
    func kill() { send(SIGKILL) }

    /// A process does not outlive its handle, nor stays a zombie after it.
    deinit {
        if reap() == nil {
            _ = Glibc.kill(pid, SIGKILL)
            var value: Int32 = 0
            _ = waitpid(pid, &value, 0)
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

    /// Runs `executable` to its end and returns what it printed; throws when it fails, or still
    /// runs after `limit` (which only catches a hang).
    @discardableResult
    static func run(
        _ executable: URL, _ arguments: [String], directory: URL? = nil, within limit: Duration = .seconds(120)
    ) async throws -> String {
        let process = try SpawnedProcess(executable, arguments, directory: directory)
        let command = ([executable.lastPathComponent] + arguments).joined(separator: " ")
        guard let exit = await process.exit(within: limit) else {
            process.kill()
            throw TestFailure("\(command) still runs after \(limit): \(process.log.text)")
        }
        guard !exit.signaled, exit.code == 0 else {
            throw TestFailure("\(command) ended with \(exit.signaled ? "signal" : "status") \(exit.code): \(exit.output)")
        }
        return exit.output
    }

    /// Waits for the exit, polling; nil if the process still runs after `limit` (which only catches
    /// a hang). Returns whether a signal ended it, the exit code or signal, and what it printed.
    func exit(within limit: Duration) async -> (signaled: Bool, code: Int32, output: String)? {
        let deadline = ContinuousClock.now + limit
        while true {
            if let status = reap() {
                // It exited: all it printed is in the pipe, read now rather than left to the
                // handler (whose end of output another process may delay, by holding the pipe).
                log.readAvailable(from: outputHandle.fileDescriptor)
                let text = log.text
                let signal = status & 0x7F
                return signal != 0 ? (true, signal, text) : (false, (status >> 8) & 0xFF, text)
            }
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }
}
