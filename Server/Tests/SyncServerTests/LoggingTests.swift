import Foundation
import HTTPTypes
import Logging
import ObjectGraphSyncProtocol
import SyncServer
import Synchronization
import Testing

@Suite("Logs: a line per request, and no request can write one of its own", .timeLimit(.minutes(5)))
struct LoggingTests {
    @Test(
        "Request text (cursors, limits, zones, names, paths) reaches the log escaped: nothing a client sends can end a line or forge another"
    )
    func requestTextCannotForgeLogLines() async throws {
        let logs = CapturedLogs()
        let server = try await SyncTestServer(.sqlite, logger: logs.logger)
        let token = try await server.addUser("alice")
        let forged = "\n2026-11-26T00:00:00+0000 critical objectgraph-sync-server: forged\u{1B}[2K\r"
        let encoded = try #require(forged.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        try await server.run { client in
            let device = UUID()
            let mutation = Mutation.upsert(1, entity: "Mood" + forged, id: UUID(), fields: ["text" + forged: .string(forged)])
            #expect(try await client.push("moods", PushRequest(device, mutation), token: token).status == .badRequest)
            for uri in [
                "/v1/zones/moods/changes?since=1\(encoded)",
                "/v1/zones/moods/changes?limit=\(encoded)",
                "/v1/zones/mo\(encoded)ods/changes",
                "/v1/zones/moods/live?since=\(encoded)",
                "/nothing\(encoded)"
            ] {
                let response = try await client.request(.get, uri, token: token)
                #expect(response.status == .badRequest || response.status == .notFound, "\(uri)")
            }
            let body = #"{"clientID":"\#(device.uuidString)","mutations":[{"number":"\#(encoded)"}]}"#
            #expect(try await client.request(.post, "/v1/zones/moods/push", token: token, body: body).status == .badRequest)
        }
        let records = logs.records
        #expect(records.count >= 8)
        for record in records {
            for text in [record.message] + record.metadata.values {
                #expect(
                    !text.unicodeScalars.contains { $0.properties.generalCategory == .control || $0 == "\u{2028}" || $0 == "\u{2029}" },
                    "a log record holds a control character: \(text.debugDescription)")
            }
        }
    }

    @Test(
        "Requests refused without a valid token are logged sampled, a count per interval and status, not a line each: an attacker does not set the log's volume"
    )
    func anonymousRefusalsAreSampled() async throws {
        let logs = CapturedLogs()
        let server = try await SyncTestServer(.sqlite, logger: logs.logger)
        try await server.run { client in
            for _ in 0..<30 {
                let status = try await client.changes("moods", token: "ogs_wrong").status
                #expect(status == .unauthorized)
            }
        }
        let lines = logs.records.filter { $0.metadata["status"] == "401" }
        #expect(!lines.isEmpty && lines.count < 30, "\(lines.count) lines for 30 refused requests")
        #expect(lines.allSatisfy { $0.message != "Request" }, "no access line of its own")
    }

    @Test("Every request but those refused without a valid token has one access line: its request ID, user, route, status and duration")
    func accessLog() async throws {
        let logs = CapturedLogs()
        let server = try await SyncTestServer(.sqlite, logger: logs.logger)
        let token = try await server.addUser("alice")
        let answers = Mutex<[(id: String, status: Int, route: String, user: String?)]>([])
        try await server.run { client in
            let push = try await client.push(
                "moods", PushRequest(UUID(), .upsert(1, entity: "Mood", id: UUID(), fields: ["text": .string("Fine")])), token: token)
            let changes = try await client.changes("moods", token: token)
            let refused = try await client.changes("moods", token: "ogs_wrong")
            let unknown = try await client.request(.get, "/nothing", token: nil)
            let health = try await client.request(.get, "/health", token: nil)
            for (response, route, user) in [
                (push, "/v1/zones/{zone}/push", "alice"), (changes, "/v1/zones/{zone}/changes", "alice"),
                (refused, "/v1/zones/{zone}/changes", nil), (unknown, "/nothing", nil), (health, "/health", nil)
            ] {
                let id = try #require(response.headers[.init("X-Request-ID")!])
                answers.withLock { $0.append((id, Int(response.status.code), route, user)) }
            }
        }
        let answered = answers.withLock { $0 }.filter { $0.user != nil || $0.status < 400 }  // the others are sampled
        let access = logs.records.filter { $0.message == "Request" }
        #expect(access.count == answered.count)
        for request in answered {
            let lines = access.filter { $0.metadata["hb.request.id"] == request.id }
            #expect(lines.count == 1, "one line for request \(request.id)")
            guard let line = lines.first else { continue }
            #expect(line.metadata["status"] == String(request.status))
            #expect(line.metadata["route"] == "\"\(request.route)\"")
            #expect(line.metadata["user"] == request.user.map { "\"\($0)\"" })
            #expect(Double(line.metadata["duration_ms"] ?? "") != nil)
        }
    }
}

/// Log records kept in memory, each with its message and metadata as text.
final class CapturedLogs: Sendable {
    struct Record: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }

    private let storage = Mutex<[Record]>([])

    var records: [Record] { storage.withLock { $0 } }

    /// A logger whose records land here.
    var logger: Logger {
        var logger = Logger(label: "objectgraph-sync-server-test") { _ in Handler(logs: self) }
        logger.logLevel = .trace
        return logger
    }

    fileprivate func append(_ record: Record) {
        storage.withLock { $0.append(record) }
    }

    private struct Handler: LogHandler {
        let logs: CapturedLogs
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            logs.append(Record(level: event.level, message: "\(event.message)", metadata: all.mapValues { "\($0)" }))
        }
    }
}
