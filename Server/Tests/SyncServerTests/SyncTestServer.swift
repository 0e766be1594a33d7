import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import ObjectGraphSyncFeed
import ObjectGraphSyncProtocol
import ServiceLifecycle
import SyncServer
import Testing

/// The databases a test runs against: SQLite always, PostgreSQL when its server is installed.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    static var available: [Backend] { PostgresTestServer.binaries == nil ? [.sqlite] : [.sqlite, .postgres] }

    var testDescription: String { rawValue }

    func newDatabase() async throws -> SyncDatabase {
        try SyncDatabase(parsing: try await newDatabaseArgument())
    }

    /// A fresh database, as `--database` names it.
    func newDatabaseArgument() async throws -> String {
        switch self {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("objectgraph-sync-tests")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            return directory.appendingPathComponent("\(UUID().uuidString).sqlite").path
        case .postgres:
            return try await PostgresTestServer.newDatabaseURL()
        }
    }
}

/// A server on a fresh database, run by HummingbirdTesting on a real socket.
///
/// Every suite of these tests has a time limit of five minutes, far above what any takes: a
/// run that hung (seen twice, all tasks suspended, cause not yet found) then names the test that
/// hung instead of waiting for ever.
struct SyncTestServer {
    var configuration: SyncServerConfiguration
    var logger = Logger(label: "objectgraph-sync-server")

    init(_ backend: Backend, limits: ServerLimits = ServerLimits(), logger: Logger? = nil) async throws {
        configuration = SyncServerConfiguration(database: try await backend.newDatabase(), port: 0, limits: limits)
        // A ping slower than the two seconds a server allows is an outage there (every request then
        // gets 503): on a machine as busy as a whole suite makes it, a database that answers is
        // slow, not away. Tests of outages stop their database, which refuses at once.
        configuration.readinessTimeout = .seconds(60)
        if let logger { self.logger = logger }
    }

    /// Adds a user through the administration path (as `user add` does) and returns the token.
    func addUser(_ name: String) async throws -> String {
        try await SyncServer(configuration: configuration).addUser(named: name).text
    }

    /// Runs the server as the command does (HummingbirdTesting's framework leaves out the
    /// connection limit) for the duration of `body`, which gets its port.
    func serve(_ body: @Sendable (Int) async throws -> Void) async throws {
        let server = try SyncServer(configuration: configuration, logger: logger)
        let (ports, listening) = AsyncStream<Int>.makeStream()
        let application = server.application(onListening: { listening.yield($0) })
        let services = ServiceGroup(configuration: .init(services: [application], logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await services.run() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw TestFailure("the server never listened") }
            do {
                try await body(port)
            } catch {
                await services.triggerGracefulShutdown()
                throw error
            }
            await services.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    /// Runs the server for the duration of `body`.
    func run(_ body: @Sendable (SyncTestClient) async throws -> Void) async throws {
        let server = try SyncServer(configuration: configuration, logger: logger)
        try await server.application().test(.live) { client in
            try await body(SyncTestClient(client: client, server: server))
        }
    }
}

/// Calls the HTTP API as a client would.
struct SyncTestClient: Sendable {
    let client: any TestClientProtocol
    let server: SyncServer

    var port: Int { client.port ?? 0 }

    func request(
        _ method: HTTPRequest.Method, _ uri: String, token: String?, body: String? = nil
    ) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await client.execute(
            uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
    }

    func push(_ zone: String, _ request: PushRequest, token: String) async throws -> TestResponse {
        let body = String(decoding: try JSONEncoder().encode(request), as: UTF8.self)
        return try await self.request(.post, "/v1/zones/\(zone)/push", token: token, body: body)
    }

    /// Pushes and expects the batch to be applied.
    @discardableResult
    func pushApplied(_ zone: String, _ request: PushRequest, token: String) async throws -> PushResult {
        let response = try await push(zone, request, token: token)
        try #require(response.status == .ok, "push answered \(response.status): \(response.text)")
        return try response.decoded(PushResult.self)
    }

    func changes(_ zone: String, since: FeedCursor = .start, limit: Int? = nil, token: String) async throws -> TestResponse {
        var uri = "/v1/zones/\(zone)/changes?since=\(since)"
        if let limit { uri += "&limit=\(limit)" }
        return try await request(.get, uri, token: token)
    }

    /// Reads the whole feed after a cursor, page by page.
    func allChanges(
        _ zone: String, since: FeedCursor = .start, limit: Int = 100, token: String
    ) async throws -> (changes: [FeedChange], cursor: FeedCursor) {
        var cursor = since
        var changes: [FeedChange] = []
        while true {
            let response = try await self.changes(zone, since: cursor, limit: limit, token: token)
            try #require(response.status == .ok, "changes answered \(response.status): \(response.text)")
            let page = try response.decoded(ChangesPage.self)
            changes += page.changes
            cursor = page.cursor
            if !page.hasMore { return (changes, cursor) }
        }
    }
}

extension TestResponse {
    var text: String { String(buffer: body) }

    func decoded<Value: Decodable>(_ type: Value.Type) throws -> Value {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }

    var error: SyncErrorBody? { try? decoded(SyncErrorBody.self) }
}

/// Helpers to write mutations briefly.
extension PushRequest {
    init(_ clientID: UUID, _ mutations: Mutation...) {
        self.init(clientID: clientID, mutations: mutations)
    }
}
