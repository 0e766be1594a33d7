import Foundation
import ObjectGraphSyncProtocol
import SyncServer
import Testing

@Suite("Administration: users and the life of their tokens", .timeLimit(.minutes(5)))
struct AdministrationTests {
    @Test(
        "Users are listed with their tokens by ID and dates, never a token's secret; a revoked token is refused at its next request and its live stream ends",
        arguments: Backend.available)
    func revocation(_ backend: Backend) async throws {
        var server = try await SyncTestServer(backend)
        server.configuration.liveTickInterval = .milliseconds(100)
        let admin = try SyncServer(configuration: server.configuration)
        let first = try await admin.addUser(named: "alice")
        let second = try await admin.createToken(forUser: "alice", expiresAt: Date().addingTimeInterval(3600))
        _ = try await admin.addUser(named: "bob")

        let users = try await admin.users()
        #expect(users.map(\.user.name) == ["alice", "bob"])
        let alice = try #require(users.first)
        #expect(alice.tokens.map(\.id) == [first.id, second.id])
        #expect(alice.tokens.allSatisfy { $0.isValid() && $0.revoked == nil })
        #expect(alice.tokens.first?.expires == nil && alice.tokens.last?.expires != nil)
        #expect(!String(describing: users).contains(first.text) && !String(describing: users).contains(second.text))

        try await server.run { client in
            let live = try await LiveListener(port: client.port, zone: "moods", token: first.text)
            #expect(try await client.changes("moods", token: first.text).status == .ok)
            try await admin.revokeToken(id: first.id)
            #expect(try await client.changes("moods", token: first.text).status == .unauthorized)
            #expect(try await client.changes("moods", token: second.text).status == .ok, "Alice's other token still works")
            #expect(try await live.finishes(within: .seconds(60)), "the stream opened with the revoked token ended")
        }
        let revoked = try #require(try await admin.users().first?.tokens.first)
        #expect(revoked.revoked != nil && !revoked.isValid())
        try await admin.revokeToken(id: first.id)  // again: nothing changes
        #expect(try await admin.users().first?.tokens.first == revoked)
        await #expect(throws: SyncAdminError.noSuchToken(999)) { try await admin.revokeToken(id: 999) }
    }

    @Test("A token with an expiry lets its user in until then, and nobody after", arguments: Backend.available)
    func expiry(_ backend: Backend) async throws {
        let server = try SyncServer(configuration: SyncServerConfiguration(database: try await backend.newDatabase(), port: 0))
        let expires = Date().addingTimeInterval(3600)
        let token = try await server.addUser(named: "alice", tokenExpiresAt: expires)
        #expect(try await server.user(authenticatedBy: token.text)?.name == "alice")
        #expect(try await server.user(authenticatedBy: token.text, at: expires.addingTimeInterval(-1))?.name == "alice")
        #expect(try await server.user(authenticatedBy: token.text, at: expires.addingTimeInterval(1)) == nil)
        #expect(try await server.users().first?.tokens.first?.isValid(at: expires.addingTimeInterval(1)) == false)
        let past = Date().addingTimeInterval(-1)
        await #expect(throws: SyncAdminError.invalidExpiry(past)) { try await server.createToken(forUser: "alice", expiresAt: past) }
    }

    @Test(
        "A token revoked from the command line is refused by every instance sharing the database at its next request",
        arguments: Backend.available)
    func revocationReachesEveryInstance(_ backend: Backend) async throws {
        let database = try await backend.newDatabaseArgument()
        let token = try await ProcessTests.addUser("alice", database)
        let instances = [try await ServerProcess(database: database), try await ServerProcess(database: database)]
        for instance in instances {
            #expect(try await HTTPSyncClient(port: instance.port).allChanges("moods", token: token).isEmpty)
        }
        let listed = try await ServerProcess.run(["user", "list", "--database", database])
        #expect(listed.contains("token 1: created") && !listed.contains(token), "\(listed)")
        #expect(listed.contains("uses 0 zones, "), "what the user uses: reading an unknown zone creates none")
        _ = try await ServerProcess.run(["token", "revoke", "1", "--database", database])
        for instance in instances {
            await #expect(throws: TestFailure.self, "instance \(instance.port) refuses it") {
                try await HTTPSyncClient(port: instance.port).allChanges("moods", token: token)
            }
        }
        for instance in instances { _ = try await instance.terminate() }
    }
}
