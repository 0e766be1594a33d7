import Foundation
import ObjectGraphSyncProtocol
import SyncServer
import Testing

@Suite("A server value's life: administration, embedding, serving", .timeLimit(.minutes(5)))
struct LifecycleTests {
    @Test(
        "One server value adds users, runs withDatabase (nested too) and then serves, as an embedding program would",
        arguments: Backend.available)
    func oneValueManyRuns(_ backend: Backend) async throws {
        let server = try SyncServer(configuration: SyncServerConfiguration(database: try await backend.newDatabase(), port: 0))
        let alice = try await server.addUser(named: "alice")
        let bob = try await server.addUser(named: "bob")
        let names = try await server.withDatabase { running in
            let inner = try await running.withDatabase { try await $0.user(authenticatedBy: bob.text)?.name }
            return [try await running.user(authenticatedBy: alice.text)?.name, inner]
        }
        #expect(names == ["alice", "bob"])
        try await server.application().test(.live) { client in
            let test = SyncTestClient(client: client, server: server)
            let pushed = try await test.pushApplied(
                "moods", PushRequest(UUID(), .upsert(1, entity: "Mood", id: UUID(), fields: [:])), token: alice.text)
            #expect(pushed.cursor.position == 1)
        }
    }

    @Test("A user's name is printable text of 1 to 100 characters: anything else is refused, nothing stored")
    func userNames() async throws {
        let server = try SyncServer(configuration: SyncServerConfiguration(database: try await Backend.sqlite.newDatabase(), port: 0))
        let unseen = ["ali\u{AD}ce", "alice\u{202E}", "al\u{2028}ice", "Jose\u{301}"]  // format, separator, not NFC
        for name in ["", String(repeating: "a", count: 101), "al\nice", "\u{1B}[31malice", "alice\u{0}", "al\tice", "alice\u{85}"] + unseen
        {
            await #expect(throws: SyncAdminError.invalidUserName(name)) { try await server.addUser(named: name) }
        }
        _ = try await server.addUser(named: "Alice Smith")
    }

    @Test(
        "Every test's PostgreSQL case runs: a throwaway server starts and gives each test a database of its own",
        .enabled(
            if: PostgresTestServer.binaries != nil,
            Comment(rawValue: PostgresTestServer.unavailable + "; every test's PostgreSQL case is left out")))
    func throwawayPostgres() async throws {
        let first = try await PostgresTestServer.newDatabaseURL()
        let second = try await PostgresTestServer.newDatabaseURL()
        #expect(first != second)
        // The same user name in both: each database is a world of its own.
        for url in [first, second] {
            _ = try await SyncServer(configuration: SyncServerConfiguration(database: try SyncDatabase(parsing: url)))
                .addUser(named: "alice")
        }
    }
}
