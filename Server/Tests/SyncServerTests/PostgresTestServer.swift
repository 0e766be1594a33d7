import Foundation
import SyncServer

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
    private static let started = Task<Int, any Error> { try start() }

    /// A new, empty database on the test server.
    static func newDatabaseURL() async throws -> String {
        let port = try await started.value
        let name = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try run("psql", ["-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "-q", "-c", "CREATE DATABASE \(name)"])
        return "postgres://postgres@127.0.0.1:\(port)/\(name)"
    }

    private static func start() throws -> Int {
        let directory = "/tmp/objectgraph-test-pg-\(ProcessInfo.processInfo.processIdentifier)"
        let port = 20_000 + Int(ProcessInfo.processInfo.processIdentifier % 20_000)
        try? FileManager.default.removeItem(atPath: directory)
        try run("initdb", ["-D", directory, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync"], asPostgres: true)
        // The server stops (and its directory goes) when this test process ends, however it ends.
        // The watchdog runs as this process's user, so that it may probe this process with kill -0;
        // its output goes nowhere, so that `swift test` does not wait on a pipe it holds open.
        let parent = ProcessInfo.processInfo.processIdentifier
        let asPostgres = getuid() == 0 ? "/usr/sbin/runuser -u postgres -- " : ""
        let bin = binaries ?? ""
        let script = """
            \(asPostgres)"\(bin)/postgres" -D \(directory) -p \(port) -k \(directory) \
                -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=300 \
                > \(directory).log 2>&1 &
            while kill -0 \(parent) 2>/dev/null; do sleep 1; done
            \(asPostgres)"\(bin)/pg_ctl" -D \(directory) -m immediate stop > /dev/null 2>&1
            rm -rf \(directory) \(directory).log
            """
        let watchdog = process("/bin/sh", ["-c", script], asPostgres: false)
        watchdog.standardInput = FileHandle.nullDevice
        watchdog.standardOutput = FileHandle.nullDevice
        watchdog.standardError = FileHandle.nullDevice
        try watchdog.run()
        for _ in 0..<100 {
            if (try? run("pg_isready", ["-h", "127.0.0.1", "-p", "\(port)", "-q"])) != nil { return port }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw TestFailure("PostgreSQL did not start on port \(port); see \(directory).log")
    }

    @discardableResult
    private static func run(_ program: String, _ arguments: [String], asPostgres: Bool = false) throws -> Int32 {
        let process = process("\(binaries ?? "")/\(program)", arguments, asPostgres: asPostgres)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestFailure("\(program) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        }
        return process.terminationStatus
    }

    /// PostgreSQL refuses to run as root: then it runs as the `postgres` user the package made.
    private static func process(_ executable: String, _ arguments: [String], asPostgres: Bool) -> Process {
        let process = Process()
        if asPostgres && getuid() == 0 {
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
            process.arguments = ["-u", "postgres", "--", executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        }
        return process
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
