import ObjectGraphSyncTesting
import Testing

@Suite("The in-memory sync server keeps the contract every sync server keeps")
struct InMemoryServerContractTests {
    @Test("The in-memory server holds to the contract", arguments: SyncRemoteContract.checks)
    func holds(_ check: SyncRemoteContract.Check) async throws {
        try await check.run(on: InMemorySyncServer())
    }
}
