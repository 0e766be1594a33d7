import Foundation
import SyncServer
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A throwaway PostgreSQL server for the tests: started once per test process from Debian's
/// `postgresql` package (`initdb` in a temporary directory, a free port), stopped when the
/// process ends. Each test gets a database of its own.
enum PostgresTestServer {
    /// The directory holding PostgreSQL's server programs, when they are installed. Debian's own
    /// directory comes first: `/usr/bin` and `/usr/local/bin` may hold only some of them.
    static let binaries: String? = {
        var candidates: [String] = []
        if let versions = try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql") {
            candidates += versions.sorted(by: >).map { "/usr/lib/postgresql/\($0)/bin" }
        }
        if let path = ProcessInfo.processInfo.environment["PATH"] {
            candidates += path.split(separator: ":").map(String.init)
        }
        let programs = ["initdb", "postgres", "pg_ctl", "pg_isready", "psql"]
        return candidates.first { directory in
            programs.allSatisfy { FileManager.default.isExecutableFile(atPath: "\(directory)/\($0)") }
        }
    }()

    /// Why the PostgreSQL tests do not run, said by the tests that are skipped.
    static let unavailable =
        "PostgreSQL's server programs (initdb, postgres) are not installed: `apt-get install postgresql` runs these tests"

    /// The running server's port, started on first use.
    private static let started = Task<Int, any Error> { try await start() }

    /// A new, empty database on the test server.
    static func newDatabaseURL() async throws -> String {
        let port = try await started.value
        let name = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await run("psql", ["-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "-q", "-c", "CREATE DATABASE \(name)"])
        return "postgres://postgres@127.0.0.1:\(port)/\(name)"
    }

    /// A PostgreSQL server of one test's own, which it may stop and start again (taking the
    /// database away from a server under test); it goes when the test process ends.
    struct Dedicated {
        let directory: String
        let port: Int

        /// Its `postgres` database's URL.
        var url: String { "postgres://postgres@127.0.0.1:\(port)/postgres" }

        /// Stops it: its connections are cut and new ones refused. (A fast stop, not an immediate
        /// one: the test servers commit without waiting for the log, which a crash would lose.)
        func stop() async throws {
            try await PostgresTestServer.run("pg_ctl", ["-D", directory, "-m", "fast", "-w", "stop"], asPostgres: true)
        }

        /// Gives the `postgres` user `password` and makes connections over TCP prove it.
        func requirePassword(_ password: String) async throws {
            try await PostgresTestServer.run(
                "psql",
                [
                    "-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "-q", "-c",
                    "ALTER USER postgres PASSWORD '\(password)'"
                ])
            try "local all all trust\nhost all all 127.0.0.1/32 scram-sha-256\n"
                .write(toFile: "\(directory)/pg_hba.conf", atomically: true, encoding: .utf8)
            try await PostgresTestServer.run("pg_ctl", ["-D", directory, "-w", "reload"], asPostgres: true)
        }

        /// Starts it again on the same port and data.
        func start() async throws {
            try await PostgresTestServer.run(
                "pg_ctl",
                [
                    "-D", directory, "-w", "-l", "\(directory).restart.log", "-o",
                    "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off", "start"
                ],
                asPostgres: true)
        }
    }

    /// Starts a dedicated server on a free port.
    static func dedicated() async throws -> Dedicated {
        let port = try freePort()
        let directory = "/tmp/objectgraph-test-pg-\(ProcessInfo.processInfo.processIdentifier)-\(port)"
        return Dedicated(directory: directory, port: try await start(directory: directory, port: port))
    }

    /// Starts the shared server on a port the system chose free (a port made from the process ID
    /// fell in the range of outgoing connections' ports, and was sometimes taken by one).
    private static func start() async throws -> Int {
        try await start(directory: "/tmp/objectgraph-test-pg-\(ProcessInfo.processInfo.processIdentifier)", port: try freePort())
    }

    /// A port nothing listens on now: the system's choice for a socket bound to port 0.
    private static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(socket, address, length) == 0 && getsockname(socket, address, &length) == 0
            }
        }
        guard bound else { throw TestFailure("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func start(directory: String, port: Int) async throws -> Int {
        try? FileManager.default.removeItem(atPath: directory)
        try await run("initdb", ["-D", directory, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync"], asPostgres: true)
        // The server stops (and its directory goes) when this test process ends, however it ends.
        // The watchdog runs as this process's user, so that it may probe this process with kill -0.
        let parent = ProcessInfo.processInfo.processIdentifier
        let asPostgres = getuid() == 0 ? "/usr/sbin/runuser -u postgres -- " : ""
        let bin = binaries ?? ""
        let script = """
            \(asPostgres)"\(bin)/postgres" -D \(directory) -p \(port) -k \(directory) \
                -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=300 \
                > \(directory).log 2>&1 &
            while kill -0 \(parent) 2>/dev/null; do sleep 1; done
            \(asPostgres)"\(bin)/pg_ctl" -D \(directory) -m immediate stop > /dev/null 2>&1
            rm -rf \(directory) \(directory).log \(directory).restart.log
            """
        let watchdog = try SpawnedProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", script])
        watchdogs.withLock { $0.append(watchdog) }  // a handle that goes kills its process
        for _ in 0..<300 {
            if (try? await run("pg_isready", ["-h", "127.0.0.1", "-p", "\(port)", "-q"])) != nil { return port }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestFailure("PostgreSQL did not start on port \(port); see \(directory).log")
    }

    /// The servers' watchdogs, which live as long as the test process.
    private static let watchdogs = Mutex<[SpawnedProcess]>([])

    /// Runs one of PostgreSQL's programs to its end, as the `postgres` user when `asPostgres` and
    /// this process runs as root (PostgreSQL refuses to run as root); throws when it fails.
    private static func run(_ program: String, _ arguments: [String], asPostgres: Bool = false) async throws {
        let path = "\(binaries ?? "")/\(program)"
        if asPostgres && getuid() == 0 {
            try await SpawnedProcess.run(URL(fileURLWithPath: "/usr/sbin/runuser"), ["-u", "postgres", "--", path] + arguments)
        } else {
            try await SpawnedProcess.run(URL(fileURLWithPath: path), arguments)
        }
    }
}
struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
