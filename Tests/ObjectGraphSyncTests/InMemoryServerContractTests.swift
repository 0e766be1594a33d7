import MoodyModel
import ObjectGraphSync
import ObjectGraphSyncProtocol
import ObjectGraphSyncTesting
import Testing

@Suite("The in-memory sync server keeps the contract every sync server keeps")
struct InMemoryServerContractTests {
    @Test("The in-memory server holds to the contract", arguments: SyncRemoteContract.checks)
    func holds(_ check: SyncRemoteContract.Check) async throws {
        try await check.run(on: InMemorySyncServer())
    }
}

@Suite("The in-memory sync server goes offline and comes back as a real one does")
struct InMemoryServerOfflineTests {
    @Test("Offline, a device's changes wait and its status says offline; back online, they are sent once and a live route reopens")
    func offlineAndBack() async throws {
        let server = InMemorySyncServer()
        let phone = try SyncDevice(server: server)
        let live = server.remote(user: "alice").live(zone: "moods", since: .start)
        var messages = LiveMessages(live).makeAsyncIterator()
        #expect(try await messages.next() == .listening)

        server.isOnline = false
        await #expect(throws: SyncError.self) { _ = try await messages.next() }
        let context = phone.container.newBackgroundContext()
        context.insert(Mood(text: "on the train"))
        try context.save()
        let error = await #expect(throws: SyncError.self) { try await phone.sync.syncNow() }
        #expect(error?.code == .unreachable)
        #expect(phone.sync.status.current.activity == .offline && phone.sync.status.current.pendingChanges == 1)

        server.isOnline = true
        try await phone.sync.syncNow()
        try await phone.sync.syncNow()
        let texts = server.records(zone: "moods", user: "alice").compactMap { record -> String? in
            if case .string(let text)? = record.fields["text"] { text } else { nil }
        }
        #expect(texts == ["on the train"])
        #expect(phone.sync.status.current.pendingChanges == 0)
    }
}
