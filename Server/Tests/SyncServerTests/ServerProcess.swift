import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ObjectGraphSyncProtocol
import Synchronization

/// The `objectgraph-sync-server` executable, run as a real process (as a user runs it), for
/// the tests that kill it or run several instances.
final class ServerProcess {
    /// The executable `swift test` built next to the test bundle.
    static let executable = BuiltExecutable.url(named: "objectgraph-sync-server")

    /// Started with `posix_spawn` (see ``SpawnedProcess``): Foundation's `Process.run()` crashed a
    /// CI run here, as it lists the parent's open files.
    private let process: SpawnedProcess
    /// The port the server listens on.
    let port: Int

    /// Starts `serve` on `port` (any free port for 0), with `arguments` more and `environment`
    /// added to this process's, and returns once it listens.
    init(database: String, port: Int = 0, arguments: [String] = [], environment: [String: String] = [:]) async throws {
        // A minute for the readiness ping, as SyncTestServer allows: a busy machine is not an outage.
        process = try Self.launch(
            ["serve", "--database", database, "--port", String(port), "--readiness-timeout", "60"] + arguments,
            environment: environment)
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            // Hummingbird says "Server started and listening on 127.0.0.1:PORT".
            if let line = process.log.text.split(separator: "\n").first(where: { $0.contains("listening on") }),
                let port = line.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
            {
                self.port = port
                return
            }
            guard process.isRunning, ContinuousClock.now < deadline else {
                process.kill()
                throw TestFailure("objectgraph-sync-server did not start:\n\(process.log.text)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Runs a subcommand to its end and returns what it printed.
    static func run(_ arguments: [String]) async throws -> String {
        try await SpawnedProcess.run(try builtExecutable(), arguments)
    }

    /// `kill -9`: no chance to finish anything.
    func kill() async throws {
        process.kill()
        _ = try await waitForExit()
    }

    /// SIGTERM: the server finishes what is in flight and stops; returns its exit status (a
    /// signal's number, when one ended it).
    func terminate() async throws -> Int32 {
        process.send(SIGTERM)
        return try await waitForExit()
    }

    var log: String { process.log.text }

    private func waitForExit() async throws -> Int32 {
        guard let exit = await process.exit(within: .seconds(30)) else {
            throw TestFailure("the server did not stop:\n\(process.log.text)")
        }
        return exit.code
    }

    /// The process's command line as the system shows it to every user (`ps`).
    var commandLine: String {
        let data = FileManager.default.contents(atPath: "/proc/\(process.pid)/cmdline") ?? Data()
        return String(decoding: data.map { $0 == 0 ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
    }

    private static func launch(_ arguments: [String], environment: [String: String] = [:]) throws -> SpawnedProcess {
        try SpawnedProcess(try builtExecutable(), arguments, environment: environment)
    }

    private static func builtExecutable() throws -> URL {
        guard let executable else {
            throw TestFailure("objectgraph-sync-server was not built next to the tests (swift build builds it)")
        }
        return executable
    }
}

/// What a server process printed so far.
final class OutputLog: Sendable {
    private let data = Mutex(Data())
    private let finished = Mutex(false)

    func append(_ chunk: Data) { data.withLock { $0.append(chunk) } }

    var text: String { data.withLock { String(decoding: $0, as: UTF8.self) } }

    /// Notes that the process closed its output: nothing more will come.
    func finish() { finished.withLock { $0 = true } }

    /// Appends what a non-blocking descriptor holds now, under the log's lock (so that two readers
    /// never interleave), and notes the end of the output when it is reached.
    func readAvailable(from descriptor: Int32) {
        data.withLock { data in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(descriptor, &buffer, buffer.count)
                if count > 0 {
                    data.append(contentsOf: buffer[0..<count])
                } else {
                    // 0: the end; -1: nothing more now (EAGAIN), or the descriptor is closed.
                    if count == 0 { finished.withLock { $0 = true } }
                    return
                }
            }
        }
    }

    /// Whether the process closed its output.
    var isFinished: Bool { finished.withLock { $0 } }
}

extension HTTPClient {
    /// The tests' HTTP client. A connection refused fails at once, instead of being retried until
    /// the request's deadline: a test that killed its server wants to know, and to try the new one.
    static let tests: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        // Idle connections go well before the server's idle timeout (60 s) closes them: the pool
        // never hands out one the server is closing at that moment.
        configuration.connectionPool.idleTimeout = .seconds(20)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()
}

/// Calls a server process's HTTP API over a real connection.
struct HTTPSyncClient: Sendable {
    var port: Int

    struct Answer: Sendable {
        var status: HTTPResponseStatus
        var body: Data
        /// The push was a replay of one applied before (`ObjectGraph-Replayed: true`).
        var isReplay = false

        func decoded<Value: Decodable>(_ type: Value.Type) throws -> Value {
            try JSONDecoder().decode(type, from: body)
        }
    }

    func push(_ zone: String, _ request: PushRequest, token: String) async throws -> Answer {
        var http = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/zones/\(zone)/push")
        http.method = .POST
        http.headers.add(name: "Authorization", value: "Bearer \(token)")
        http.headers.add(name: "Content-Type", value: "application/json")
        http.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(request)))
        return try await execute(http)
    }

    /// Pushes a body as it is, well-formed or not.
    func push(_ zone: String, body: String, token: String) async throws -> Answer {
        var http = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/zones/\(zone)/push")
        http.method = .POST
        http.headers.add(name: "Authorization", value: "Bearer \(token)")
        http.headers.add(name: "Content-Type", value: "application/json")
        http.body = .bytes(ByteBuffer(string: body))
        return try await execute(http)
    }

    /// Any request to `path`, with a JSON body as given.
    func request(_ method: HTTPMethod, _ path: String, token: String, body: String? = nil) async throws -> Answer {
        var http = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        http.method = method
        http.headers.add(name: "Authorization", value: "Bearer \(token)")
        if let body {
            http.headers.add(name: "Content-Type", value: "application/json")
            http.body = .bytes(ByteBuffer(string: body))
        }
        return try await execute(http)
    }

    /// Pushes and expects the batch to be applied.
    @discardableResult
    func pushApplied(_ zone: String, _ request: PushRequest, token: String) async throws -> PushResult {
        let answer = try await push(zone, request, token: token)
        guard answer.status == .ok else {
            throw TestFailure("push answered \(answer.status): \(String(decoding: answer.body, as: UTF8.self))")
        }
        return try answer.decoded(PushResult.self)
    }

    func changes(_ zone: String, since: FeedCursor, limit: Int, token: String) async throws -> ChangesPage {
        var http = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/zones/\(zone)/changes?since=\(since)&limit=\(limit)")
        http.headers.add(name: "Authorization", value: "Bearer \(token)")
        let answer = try await execute(http)
        guard answer.status == .ok else {
            throw TestFailure("changes answered \(answer.status): \(String(decoding: answer.body, as: UTF8.self))")
        }
        return try answer.decoded(ChangesPage.self)
    }

    /// The whole feed from the start.
    func allChanges(_ zone: String, token: String) async throws -> [FeedChange] {
        var changes: [FeedChange] = []
        var cursor = FeedCursor.start
        while true {
            let page = try await self.changes(zone, since: cursor, limit: 500, token: token)
            changes += page.changes
            cursor = page.cursor
            if !page.hasMore { return changes }
        }
    }

    private func execute(_ request: HTTPClientRequest) async throws -> Answer {
        // A deadline that only catches a hang: a debug build on a busy machine reads a 4 MB body
        // in seconds, not milliseconds.
        let response = try await HTTPClient.tests.execute(request, timeout: .seconds(120))
        let body = try await response.body.collect(upTo: 64 << 20)
        return Answer(
            status: response.status, body: Data(body.readableBytesView),
            isReplay: response.headers.first(name: "ObjectGraph-Replayed") == "true")
    }
}
