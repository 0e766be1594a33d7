import Foundation
import HTTPTypes
import ObjectGraphSyncProtocol
import SyncServer
import Testing

@Suite("Observability: metrics for Prometheus, liveness and readiness", .timeLimit(.minutes(5)))
struct ObservabilityTests {
    @Test(
        "/metrics reports requests by route and status, push and feed latencies, mutations applied, conflicts, live streams, connections and the database's use, in Prometheus's text format"
    )
    func metrics() async throws {
        let server = try await SyncTestServer(.sqlite)
        let token = try await server.addUser("alice")
        try await server.run { client in
            let mood = UUID()
            let mutations = (1...3).map { number in
                Mutation.upsert(Int64(number), entity: "Mood", id: number == 1 ? mood : UUID(), fields: ["text": .string("x")])
            }
            try await client.pushApplied("moods", PushRequest(clientID: UUID(), mutations: mutations), token: token)
            let stale = try await client.push(
                "moods", PushRequest(UUID(), .upsert(1, entity: "Mood", id: mood, baseVersion: 1, fields: ["text": .string("y")])),
                token: token)
            #expect(stale.status == .ok)
            let conflict = try await client.push(
                "moods", PushRequest(UUID(), .upsert(1, entity: "Mood", id: mood, baseVersion: 1, fields: ["text": .string("z")])),
                token: token)
            #expect(conflict.status == .conflict)
            #expect(try await client.changes("moods", token: token).status == .ok)
            #expect(try await client.request(.get, "/made/up/path", token: nil).status == .notFound)
            let live = try await LiveListener(port: client.port, zone: "moods", token: token)
            defer { live.close() }

            let answer = try await client.request(.get, "/metrics", token: nil)
            #expect(answer.status == .ok)
            #expect(answer.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            let lines = answer.text.split(separator: "\n").map(String.init)
            func value(_ name: String, _ labels: [String] = []) -> Double? {
                lines.first { line in
                    line.hasPrefix(name + (labels.isEmpty ? " " : "{")) && labels.allSatisfy { line.contains($0) }
                }.flatMap { $0.split(separator: " ").last.flatMap { Double($0) } }
            }
            #expect(value("objectgraph_http_requests_total", [#"route="/v1/zones/{zone}/push""#, #"status="200""#]) == 2)
            #expect(value("objectgraph_http_requests_total", [#"route="/v1/zones/{zone}/push""#, #"status="409""#]) == 1)
            #expect(value("objectgraph_http_requests_total", [#"route="none""#, #"status="404""#]) == 1, "a made-up path is no label")
            #expect(!answer.text.contains("/made/up/path"))
            #expect(value("objectgraph_mutations_applied_total") == 4)
            #expect(value("objectgraph_push_conflicts_total") == 1)
            #expect(value("objectgraph_push_duration_seconds_count", [#"outcome="applied""#]) == 2)
            #expect(value("objectgraph_push_duration_seconds_bucket", [#"outcome="applied""#, #"le="+Inf""#]) == 2)
            #expect(value("objectgraph_feed_read_duration_seconds_count") ?? 0 >= 1)
            #expect(value("objectgraph_live_streams") == 1)
            #expect(value("objectgraph_connections") ?? 0 >= 2)
            #expect(value("objectgraph_database_connections_max") == 6)
            #expect(value("objectgraph_database_operations") != nil)
            #expect(value("objectgraph_limit_events_total", [#"limit="connection_limit""#]) == 0)
        }
    }

    @Test("Wrong metrics tokens count as failed authentications: past the address's rate, /metrics answers 429")
    func metricsTokenGuesses() async throws {
        var server = try await SyncTestServer(.sqlite)
        server.configuration.metricsToken = "scrape-me"
        server.configuration.rates = RateLimits(failedAuthenticationsPerAddress: .init(perSecond: 0.001, burst: 3))
        try await server.run { client in
            for _ in 0..<3 {
                let status = try await client.request(.get, "/metrics", token: "guess").status
                #expect(status == .unauthorized)
            }
            let fourth = try await client.request(.get, "/metrics", token: "guess").status
            #expect(fourth == .tooManyRequests)
            #expect(try await client.request(.get, "/metrics", token: "scrape-me").status == .ok, "the right token still passes")
        }
    }

    @Test("With a metrics token, /metrics answers only requests bearing it")
    func metricsToken() async throws {
        var server = try await SyncTestServer(.sqlite)
        server.configuration.metricsToken = "scrape-me"
        let token = try await server.addUser("alice")
        try await server.run { client in
            let anonymous = try await client.request(.get, "/metrics", token: nil)
            #expect(anonymous.status == .unauthorized)
            #expect(try await client.request(.get, "/metrics", token: token).status == .unauthorized, "a user's token is not it")
            #expect(try await client.request(.get, "/metrics", token: "scrape-me").status == .ok)
        }
    }

    @Test(
        "/ready answers 200 while the database answers and 503 while it cannot be reached; pushes then get 503 with Retry-After, /health stays 200, and all recovers with the database",
        .enabled(if: PostgresTestServer.binaries != nil, Comment(rawValue: PostgresTestServer.unavailable)))
    func readiness() async throws {
        let database = try await PostgresTestServer.dedicated()
        var server = try await SyncTestServer(.sqlite)
        server.configuration.database = try SyncDatabase(parsing: database.url)
        let token = try await server.addUser("alice")
        try await server.run { client in
            #expect(try await client.request(.get, "/ready", token: nil).status == .ok)
            try await client.pushApplied("moods", PushRequest(UUID(), .upsert(1, entity: "Mood", id: UUID(), fields: [:])), token: token)

            try await database.stop()
            // The next ping notices (within the watch's interval; the timeout only catches a hang).
            var ready = try await client.request(.get, "/ready", token: nil)
            let noticing = ContinuousClock.now + .seconds(60)
            while ready.status == .ok, ContinuousClock.now < noticing {
                try await Task.sleep(for: .milliseconds(100))
                ready = try await client.request(.get, "/ready", token: nil)
            }
            #expect(ready.status == .serviceUnavailable)
            #expect(ready.headers[.retryAfter] != nil)
            #expect(try await client.request(.get, "/health", token: nil).status == .ok, "the process still serves")
            let push = try await client.push(
                "moods", PushRequest(UUID(), .upsert(1, entity: "Mood", id: UUID(), fields: [:])), token: token)
            #expect(push.status == .serviceUnavailable)
            #expect(push.error?.error == .unavailable)
            #expect(push.headers[.retryAfter] != nil)

            try await database.start()
            // The pool reconnects (the timeout only catches a hang).
            let deadline = ContinuousClock.now + .seconds(60)
            while try await client.request(.get, "/ready", token: nil).status != .ok {
                guard ContinuousClock.now < deadline else { throw TestFailure("never ready again") }
                try await Task.sleep(for: .milliseconds(100))
            }
            try await client.pushApplied("moods", PushRequest(UUID(), .upsert(1, entity: "Mood", id: UUID(), fields: [:])), token: token)
        }
        try await database.stop()
    }

    @Test("A flood of /ready does no database work per request: it is answered from the last ping", arguments: Backend.available)
    func readinessFloodPingsOnce(_ backend: Backend) async throws {
        var server = try await SyncTestServer(backend)
        server.configuration.databaseWatchInterval = .seconds(600)  // no ping of the watch's own during the flood
        try await server.run { client in
            #expect(try await client.request(.get, "/ready", token: nil).status == .ok)
            let before = try await Self.pings(client)
            try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<200 { group.addTask { try await client.request(.get, "/ready", token: nil).status == .ok } }
                for try await ready in group { #expect(ready) }
            }
            let pings = try await Self.pings(client) - before
            #expect(pings == 0, "\(pings) database pings for 200 requests of /ready")
        }
    }

    /// The database pings the server made so far, as /metrics counts them.
    static func pings(_ client: SyncTestClient) async throws -> Int {
        let text = try await client.request(.get, "/metrics", token: nil).text
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("objectgraph_database_pings_total ") }),
            let count = line.split(separator: " ").last.flatMap({ Int($0) })
        else { throw TestFailure("/metrics has no objectgraph_database_pings_total") }
        return count
    }
}
