import Foundation
import ObjectGraphSync
import ObjectGraphSyncFeed
import ObjectGraphSyncTesting
import SyncServer
import Testing

@Suite("The server keeps the contract every sync server keeps, over HTTP", .timeLimit(.minutes(5)))
struct ContractTests {
    // One check at a time: each runs a server with a pool of database connections of its own,
    // and the suite's other tests share the machine and the test PostgreSQL with them.
    @Test(
        "The server holds to the contract, on each database", .serialized,
        arguments: Backend.available, SyncRemoteContract.checks)
    func holds(_ backend: Backend, _ check: SyncRemoteContract.Check) async throws {
        let server = try await SyncTestServer(backend)
        try await server.serve { port in
            try await check.run(on: ServedServer(configuration: server.configuration, port: port))
        }
    }
}

/// The server under test, reached through the sync client's HTTP remote; users are added and
/// tombstones purged as an operator does, through one administration instance.
private struct ServedServer: SyncServerUnderTest {
    let administration: SyncServer
    let port: Int
    let limits: ServerLimits
    let tombstoneHorizon: Duration

    init(configuration: SyncServerConfiguration, port: Int) throws {
        administration = try SyncServer(configuration: configuration)
        self.port = port
        limits = configuration.limits
        tombstoneHorizon = configuration.tombstoneHorizon
    }

    func newUser() async throws -> any SyncRemote {
        let token = try await administration.addUser(named: "user-\(UUID().uuidString.prefix(8))").text
        let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
        return HTTPSyncRemote(url: url, token: token)
    }

    func purgeAll() async throws {
        let horizon = Double(tombstoneHorizon.components.seconds)
        _ = try await administration.purgeExpiredTombstones(now: Date().addingTimeInterval(horizon + 1))
    }
}
