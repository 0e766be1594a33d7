import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import ObjectGraphSyncProtocol
import PostgresNIO
import ServiceLifecycle
import SyncServer

/// A running sync server on one database, the plain SQL store beside it, and an HTTP client.
struct BenchTarget: Sendable {
    /// "SQLite" or "PostgreSQL", for workload names.
    var label: String
    var server: SyncServer
    var user: SyncUser
    var token: String
    var port: Int
    var plain: any PlainStore
    var http: HTTPClient
    /// A client on an event loop of its own, for a user who is not on the load's machines (the
    /// fair-share workload's victim): the load's clients writing their bodies do not delay it.
    var separateHTTP: HTTPClient
    /// The users of the load workloads' clients.
    let clients = ClientUsers()

    /// Starts a server on `database` (serving HTTP on a free port) and runs `body` with it.
    static func run<Result: Sendable>(
        label: String, database: SyncDatabase, plainSQLitePath: String,
        _ body: @Sendable (BenchTarget) async throws -> Result
    ) async throws -> Result {
        var logger = Logger(label: "objectgraph-sync-bench")
        logger.logLevel = .warning
        let configuration = SyncServerConfiguration(database: database, port: 0)
        let token = try await SyncServer(configuration: configuration, logger: logger).addUser(named: "bench").text
        let server = try SyncServer(configuration: configuration, logger: logger)
        let (ports, listening) = AsyncStream.makeStream(of: Int.self)
        let application = server.application { port in
            listening.yield(port)
            listening.finish()
        }
        var httpConfiguration = HTTPClient.Configuration()
        httpConfiguration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        // The clients' event loops are not the server's: a client writing a large body would
        // otherwise hold up the server's reading of another request on the same loop, which
        // clients on other machines never do.
        let http = HTTPClient(eventLoopGroupProvider: .shared(Self.clientLoops), configuration: httpConfiguration)
        let separateHTTP = HTTPClient(eventLoopGroupProvider: .shared(Self.separateClientLoop))
        do {
            // The server stops as on SIGTERM, letting live streams end, instead of being cancelled.
            let services = ServiceGroup(configuration: .init(services: [application], logger: logger))
            // The plain PostgreSQL store's client, when there is one; cancelling it closes it.
            var clientTask: Task<Void, Never>?
            defer { clientTask?.cancel() }
            let result = try await withThrowingTaskGroup(of: Void.self, returning: Result.self) { group in
                group.addTask { try await services.run() }
                var port = 0
                for await listened in ports { port = listened }
                guard port > 0, let user = try await server.user(authenticatedBy: token) else {
                    throw BenchmarkError("the server did not start on \(database)")
                }
                let plain: any PlainStore
                switch database {
                case .sqlite:
                    plain = try PlainSQLite(path: plainSQLitePath)
                case .postgres(let url):
                    let client = PostgresClient(configuration: url.clientConfiguration, backgroundLogger: logger)
                    clientTask = Task { await client.run() }
                    plain = try await PlainPostgres.prepare(client, logger: logger)
                }
                let result = try await body(
                    BenchTarget(
                        label: label, server: server, user: user, token: token, port: port, plain: plain, http: http,
                        separateHTTP: separateHTTP))
                await services.triggerGracefulShutdown()
                try await group.waitForAll()
                return result
            }
            try await http.shutdown()
            try await separateHTTP.shutdown()
            return result
        } catch {
            // The benchmark's own clients; the first error is the one to report.
            try? await http.shutdown()
            try? await separateHTTP.shutdown()
            throw error
        }
    }

    /// The benchmark's HTTP clients' event loops, apart from the server's.
    private static let clientLoops = MultiThreadedEventLoopGroup(numberOfThreads: 2)
    /// ``separateHTTP``'s event loop.
    private static let separateClientLoop = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// Pushes a request's JSON over HTTP as a client honouring `Retry-After` does: a push refused
    /// with 429 is sent again after the wait the server asked for.
    func pushOverHTTPWaitingWhenAsked(_ body: ByteBuffer, zone: String, token: String) async throws {
        while let wait = try await sendPush(body, zone: zone, token: token, client: http) {
            try await Task.sleep(for: .seconds(wait))
        }
    }

    /// Pushes over HTTP (as the bench user, or the user of `token`; through `client`, or the
    /// load's clients) and expects the batch to be applied.
    func pushOverHTTP(_ request: PushRequest, zone: String, token: String? = nil, client: HTTPClient? = nil) async throws {
        let body = ByteBuffer(bytes: try JSONEncoder().encode(request))
        if try await sendPush(body, zone: zone, token: token ?? self.token, client: client ?? http) != nil {
            throw BenchmarkError("push answered 429 Too Many Requests")
        }
    }

    /// Sends a push: nil when applied, the seconds `Retry-After` asks for when answered 429; any
    /// other answer is an error.
    private func sendPush(_ body: ByteBuffer, zone: String, token: String, client: HTTPClient) async throws -> Double? {
        var http = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/zones/\(zone)/push")
        http.method = .POST
        http.headers.add(name: "Authorization", value: "Bearer \(token)")
        http.headers.add(name: "Content-Type", value: "application/json")
        http.body = .bytes(body)
        let response = try await client.execute(http, timeout: .seconds(60))
        let answer = try await response.body.collect(upTo: 16 << 20)
        switch response.status {
        case .ok: return nil
        case .tooManyRequests: return response.headers.first(name: "Retry-After").flatMap(Double.init) ?? 1
        default: throw BenchmarkError("push answered \(response.status): \(String(buffer: answer))")
        }
    }

    /// The token of the load workloads' client `index`, a user of its own (made on first use,
    /// with every client before it).
    func clientToken(_ index: Int) async throws -> String {
        try await clients.client(index, server: server).token
    }

    /// The user of the load workloads' client `index`.
    func clientUser(_ index: Int) async throws -> SyncUser {
        try await clients.client(index, server: server).user
    }

    /// Reads a page over HTTP.
    func changesOverHTTP(zone: String, since: FeedCursor, limit: Int) async throws -> ChangesPage {
        var http = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/zones/\(zone)/changes?since=\(since)&limit=\(limit)")
        http.headers.add(name: "Authorization", value: "Bearer \(token)")
        let response = try await self.http.execute(http, timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 64 << 20)
        guard response.status == .ok else {
            throw BenchmarkError("changes answered \(response.status): \(String(buffer: body))")
        }
        return try JSONDecoder().decode(ChangesPage.self, from: Data(body.readableBytesView))
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The load workloads' clients, each a user of its own with a token, made on first use. (Names
/// are unique: two callers waiting on `addUser` at once each add a user of their own.)
actor ClientUsers {
    private var clients: [(token: String, user: SyncUser)] = []

    func client(_ index: Int, server: SyncServer) async throws -> (token: String, user: SyncUser) {
        while index >= clients.count {
            let token = try await server.addUser(named: "client-\(UUID().uuidString.prefix(13))").text
            guard let user = try await server.user(authenticatedBy: token) else { throw BenchmarkError("a new user's token failed") }
            clients.append((token, user))
        }
        return clients[index]
    }
}
