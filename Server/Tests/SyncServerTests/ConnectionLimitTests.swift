import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOPosix
import ObjectGraphSyncProtocol
import SyncServer
import Testing

@Suite("Connections: clients that stall cannot take the server", .timeLimit(.minutes(5)))
struct ConnectionLimitTests {
    @Test("Connections that send nothing, half their headers or half their body are closed at their deadline; a live stream is never cut")
    func stallingClients() async throws {
        let logs = CapturedLogs()
        var server = try await SyncTestServer(.sqlite, logger: logs.logger)
        // The idle deadline is the longest: a busy machine may take a while between opening a
        // connection and sending its first bytes, and the half-sent requests must reach the server
        // before it gives up on them as idle, or their own deadlines are never tested.
        server.configuration.connections = ConnectionLimits(
            idleTimeout: .seconds(5), requestHeaderTimeout: .seconds(1), requestBodyTimeout: .seconds(1))
        let token = try await server.addUser("alice")
        try await server.serve { port in
            // A live stream holds a connection for as long as its client reads it.
            let live = try await LiveListener(port: port, zone: "moods", token: token)
            let stalls = [
                "",  // nothing at all
                "GET /health HTTP/1.1\r\nHost: x",  // half its headers
                // half its body
                "POST /v1/zones/moods/push HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nContent-Length: 100\r\n\r\n{\"clientID\""
            ]
            var stalled: [RawConnection] = []
            for stall in stalls + stalls {
                let connection = try await RawConnection(port: port)
                try await connection.send(stall)
                stalled.append(connection)
            }
            let closed = try await withThrowingTaskGroup(of: Bool.self) { group in
                for connection in stalled { group.addTask { try await connection.isClosedByServer(within: .seconds(60)) } }
                return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            #expect(closed == stalled.count, "every stalled connection was closed by the server")
            // The live stream outlived every deadline: it hears the next push (sent through a
            // client that reconnects).
            var push = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/zones/moods/push")
            push.method = .POST
            push.headers.add(name: "Authorization", value: "Bearer \(token)")
            push.body = .bytes(
                ByteBuffer(
                    data: try JSONEncoder().encode(
                        PushRequest(UUID(), .upsert(1, entity: "Mood", id: UUID(), fields: ["text": .string("Fine")])))))
            #expect(try await HTTPClient.tests.execute(push, timeout: .seconds(60)).status == .ok)
            #expect(try await live.arrival(reaching: 1, within: .seconds(60)) != nil)
            #expect(!live.isFinished)
            live.close()
        }
        let limits = Set(logs.records.compactMap { $0.metadata["limit"] })
        #expect(limits.isSuperset(of: ["idle timeout", "request header timeout", "request body timeout"]), "\(limits)")
    }

    @Test("At the connection limit the server accepts no more; a client beyond it is served once a connection closes")
    func connectionLimit() async throws {
        let logs = CapturedLogs()
        var server = try await SyncTestServer(.sqlite, logger: logs.logger)
        let limit = 6
        server.configuration.connections = ConnectionLimits(maxConnections: limit)
        try await server.serve { port in
            var idle: [RawConnection] = []
            for _ in 0..<limit { idle.append(try await RawConnection(port: port)) }
            let waiting = Task {
                try await HTTPClient.tests.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/health"), timeout: .seconds(60))
            }
            // The server noticed it is at the limit (the timeout only catches a hang).
            let deadline = ContinuousClock.now + .seconds(60)
            while !logs.records.contains(where: { $0.metadata["limit"] == "connection limit" }) {
                guard ContinuousClock.now < deadline else { throw TestFailure("the connection limit was never reached") }
                try await Task.sleep(for: .milliseconds(5))
            }
            try await idle.removeFirst().close()
            #expect(try await waiting.value.status == .ok)
            for connection in idle { try await connection.close() }
        }
    }
}

/// A TCP connection that sends what a test tells it to, byte for byte, and notices when the
/// server closes it. It is read once, by `firstLine` or `isClosedByServer`, which close it.
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

    func close() async throws {
        try await channel.executeThenClose { _, _ in }
    }

    /// Sends `text`. A connection the server closed already is left as it is (`isClosedByServer`
    /// reports it): a stalling client's bytes may come after the server gave up on it.
    func send(_ text: String) async throws {
        guard !text.isEmpty else { return }
        do {
            try await channel.channel.writeAndFlush(ByteBuffer(string: text))
        } catch ChannelError.ioOnClosedChannel {
            return
        }
    }

    /// The first line the server answers, once it came (the timeout only catches a hang).
    func firstLine(within timeout: Duration) async throws -> String? {
        try await withThrowingTaskGroup(of: String?.self) { group in
            group.addTask {
                try await channel.executeThenClose { inbound, _ in
                    var received = ""
                    for try await buffer in inbound {
                        received += String(buffer: buffer)
                        if let end = received.range(of: "\r\n") { return String(received[..<end.lowerBound]) }
                    }
                    return nil
                }
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
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
