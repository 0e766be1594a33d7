import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOPosix
import ObjectGraphSyncProtocol
import SyncServer
import Testing

@Suite("Connections: clients that stall cannot take the server")
struct ConnectionLimitTests {
    @Test("Connections that send nothing, half their headers or half their body are closed at their deadline; at the connection limit others wait and are then served; a live stream is never cut")
    func stallingClients() async throws {
        let logs = CapturedLogs()
        var server = try await SyncTestServer(.sqlite, logger: logs.logger)
        let limit = 12
        server.configuration.connections = ConnectionLimits(
            idleTimeout: .milliseconds(500), requestHeaderTimeout: .milliseconds(500), requestBodyTimeout: .milliseconds(500),
            maxConnections: limit)
        let token = try await server.addUser("alice")
        try await server.serve { port in
            // A live stream holds a connection for as long as its client reads it.
            let live = try await LiveListener(port: port, zone: "moods", token: token)
            // The others fill the limit, each stalled in its own way.
            let stalls = [
                "",  // nothing at all
                "GET /health HTTP/1.1\r\nHost: x",  // half its headers
                "POST /v1/zones/moods/push HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nContent-Length: 100\r\n\r\n{\"clientID\"",  // half its body
            ]
            var stalled: [RawConnection] = []
            for index in 0..<(limit - 1) {
                let connection = try await RawConnection(port: port)
                try await connection.send(stalls[index % stalls.count])
                stalled.append(connection)
            }
            // A client beyond the limit waits for a connection to be freed, then is served.
            let answer = try await HTTPClient.tests.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(port)/health"), timeout: .seconds(60))
            #expect(answer.status == .ok)
            // Every stalled connection was closed by the server.
            let closed = try await withThrowingTaskGroup(of: Bool.self) { group in
                for connection in stalled { group.addTask { try await connection.isClosedByServer(within: .seconds(60)) } }
                return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            #expect(closed == stalled.count)
            // The live stream outlived every deadline: it hears the next push.
            var push = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/zones/moods/push")
            push.method = .POST
            push.headers.add(name: "Authorization", value: "Bearer \(token)")
            push.body = .bytes(ByteBuffer(data: try JSONEncoder().encode(
                PushRequest(UUID(), .upsert(1, entity: "Mood", id: UUID(), fields: ["text": .string("Fine")])))))
            #expect(try await HTTPClient.tests.execute(push, timeout: .seconds(60)).status == .ok)
            #expect(try await live.arrival(reaching: 1, within: .seconds(60)) != nil)
            #expect(!live.isFinished)
            live.close()
        }
        let limits = Set(logs.records.compactMap { $0.metadata["limit"] })
        #expect(limits.isSuperset(of: ["idle timeout", "request header timeout", "request body timeout", "connection limit"]), "\(limits)")
    }
}

/// A TCP connection that sends what a test tells it to, byte for byte, and notices when the
/// server closes it.
struct RawConnection {
    private let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>

    init(port: Int) async throws {
        channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
    }

    func send(_ text: String) async throws {
        guard !text.isEmpty else { return }
        try await channel.channel.writeAndFlush(ByteBuffer(string: text))
    }

    /// Whether the server closes the connection within `timeout` (the timeout only catches a hang).
    func isClosedByServer(within timeout: Duration) async throws -> Bool {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await channel.executeThenClose { inbound, _ in
                    for try await _ in inbound {}  // what the server answers, until it closes
                }
                return true
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return false
            }
            defer { group.cancelAll() }
            return try await group.next() ?? false
        }
    }
}
