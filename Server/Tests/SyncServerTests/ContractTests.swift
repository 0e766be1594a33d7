import Foundation
import ObjectGraphSync
import ObjectGraphSyncFeed
import ObjectGraphSyncTesting
import SyncServer
import Testing

@Suite("The server keeps the contract every sync server keeps, over HTTP")
struct ContractTests {
    @Test(
        "The server holds to the contract, on each database",
        arguments: Backend.available, SyncRemoteContract.checks)
    func holds(_ backend: Backend, _ check: SyncRemoteContract.Check) async throws {
        let server = try await SyncTestServer(backend)
        try await server.serve { port in
            try await check.run(on: ServedServer(server: server, port: port))
        }
    }
}

/// The server under test, reached through the sync client's HTTP remote.
private struct ServedServer: SyncServerUnderTest {
    let server: SyncTestServer
    let port: Int

    var limits: ServerLimits { server.configuration.limits }

    func newUser() async throws -> any SyncRemote {
        let token = try await server.addUser("user-\(UUID().uuidString.prefix(8))")
        let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
        return HTTPSyncRemote(url: url, token: token)
    }

    func purgeAll() async throws {
        let horizon = Double(server.configuration.tombstoneHorizon.components.seconds)
        _ = try await SyncServer(configuration: server.configuration).purgeExpiredTombstones(
            now: Date().addingTimeInterval(horizon + 1))
    }
}
