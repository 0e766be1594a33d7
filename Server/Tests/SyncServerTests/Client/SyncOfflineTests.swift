import Foundation
import MoodyModel
import ObjectGraph
import ObjectGraphSync
import ObjectGraphSyncProtocol
import Testing

@Suite("Sync client: offline first", .timeLimit(.minutes(5)))
struct SyncOfflineTests {
    @Test("With the server down the app works and its changes wait, attempts spaced out; they are sent when the server is back")
    func serverDownThenBack() async throws {
        let database = try await Backend.sqlite.newDatabaseArgument()
        let token = try await ProcessTests.addUser("alice", database)
        var server = try await ServerProcess(database: database)
        let port = server.port
        let phone = try SyncDevice(port: port, token: token)
        await phone.sync.start()
        let context = phone.container.newBackgroundContext()
        context.insert(Mood(text: "before"))
        try context.save()
        try await status(of: phone.sync.status) { $0.activity == .idle && $0.pendingChanges == 0 && $0.lastSuccessfulSync != nil }

        try await server.kill()
        context.insert(Mood(text: "while offline"))
        try context.save()  // the app works as before
        // The attempt that saw the save counts the change waiting (one begun before may fail first).
        let first = try await status(of: phone.sync.status) { $0.activity == .offline && $0.nextRetry != nil && $0.pendingChanges == 1 }
        guard first.lastError?.code == .unreachable else {
            Issue.record("expected unreachable, got \(String(describing: first.lastError))")
            return
        }
        // Spaced out, not a busy loop: with nothing else to wake it, the next attempt comes no
        // earlier than the last one announced, and announces a later one.
        let firstRetry = try #require(first.nextRetry)
        let second = try await status(of: phone.sync.status) { $0.nextRetry != nil && $0.nextRetry != firstRetry }
        #expect(Date() >= firstRetry)
        #expect(try #require(second.nextRetry) > firstRetry)

        server = try await ServerProcess(database: database, port: port)
        try await status(of: phone.sync.status) { $0.activity == .idle && $0.pendingChanges == 0 && $0.lastError == nil }
        let laptop = try SyncDevice(port: port, token: token)
        try await laptop.sync.syncNow()
        let onLaptop = laptop.container.newBackgroundContext()
        #expect(try onLaptop.fetch(FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.text)])).map(\.text) == ["before", "while offline"])
        await phone.sync.stop()
        withExtendedLifetime(server) {}
    }

    @Test("A coordinator started while the server is down shows the last successful sync its store records, and the changes waiting")
    func offlineAtStartKeepsTheRecordedState() async throws {
        let database = try await Backend.sqlite.newDatabaseArgument()
        let token = try await ProcessTests.addUser("alice", database)
        var server: ServerProcess? = try await ServerProcess(database: database)
        let port = try #require(server?.port)
        let phone = try SyncDevice(port: port, token: token)
        let context = phone.container.newBackgroundContext()
        context.insert(Mood(text: "synced"))
        try context.save()
        try await phone.sync.syncNow()
        let synced = try #require(phone.sync.status.current.lastSuccessfulSync)
        try await server?.kill()
        server = nil

        context.insert(Mood(text: "waiting"))
        try context.save()
        let restarted = try SyncDevice(port: port, token: token, path: phone.path)
        await restarted.sync.start()
        let offline = try await status(of: restarted.sync.status) { $0.activity == .offline }
        let recorded = try #require(offline.lastSuccessfulSync, "the store records a successful sync")
        #expect(abs(recorded.timeIntervalSince(synced)) < 0.001, "as stored (a Date loses sub-microseconds in a store)")
        #expect(offline.pendingChanges == 1)
        await restarted.sync.stop()
    }

    @Test("A refused token stops syncing with a clear state, and nothing is tried again until a new start")
    func refusedToken() async throws {
        let server = try await SyncTestServer(.sqlite)
        _ = try await server.addUser("alice")
        try await server.run { client in
            let device = try SyncDevice(port: client.port, token: "ogs_not-a-token")
            let error = await #expect(throws: SyncError.self) { try await device.sync.syncNow() }
            guard error?.code == .unauthorized else {
                Issue.record("expected unauthorized, got \(String(describing: error))")
                return
            }
            await device.sync.start()
            let halted = try await status(of: device.sync.status) { $0.activity == .unauthorized }
            #expect(halted.nextRetry == nil)
            let context = device.container.newBackgroundContext()
            context.insert(Mood(text: "kept locally"))
            try context.save()  // heard by no one: the coordinator halted
            #expect(device.sync.status.current.activity == .unauthorized)
            #expect(device.remote.pushes == 0)
            #expect(try context.fetchCount(FetchDescriptor<Mood>()) == 1)
        }
    }

    @Test(
        "A cursor past the server's tombstone horizon reads the zone again: deletions made meanwhile reach the device, its own changes stay"
    )
    func refetchAfterHorizon() async throws {
        let server = try await SyncTestServer(.sqlite)
        let token = try await server.addUser("alice")
        try await server.run { client in
            let phone = try SyncDevice(port: client.port, token: token)
            let laptop = try SyncDevice(port: client.port, token: token)
            let onPhone = phone.container.newBackgroundContext()
            let kept = Mood(text: "kept"), gone = Mood(text: "gone")
            onPhone.insert(kept)
            onPhone.insert(gone)
            try onPhone.save()
            try await phone.sync.syncNow()
            try await laptop.sync.syncNow()

            // The laptop edits one and deletes the other; the server forgets the deletion.
            let onLaptop = laptop.container.newBackgroundContext()
            try #require(try onLaptop.object(withGlobalID: kept.objectGlobalID, as: Mood.self)).rating = 5
            onLaptop.delete(try #require(try onLaptop.object(withGlobalID: gone.objectGlobalID, as: Mood.self)))
            try onLaptop.save()
            try await laptop.sync.syncNow()
            let later = Date().addingTimeInterval(server.configuration.tombstoneHorizon.inSeconds + 60)
            #expect(try await client.server.purgeExpiredTombstones(now: later) > 0)

            let local = Mood(text: "made on the phone meanwhile")
            onPhone.insert(local)
            try onPhone.save()
            try await phone.sync.syncNow()
            onPhone.processPendingChanges()
            #expect(kept.rating == 5)
            #expect(gone.isDeleted)
            #expect(
                try onPhone.fetch(FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.text)])).map(\.text)
                    == ["kept", "made on the phone meanwhile"])
            try await laptop.sync.syncNow()
            onLaptop.processPendingChanges()
            #expect(try onLaptop.fetchCount(FetchDescriptor<Mood>()) == 2)
        }
    }
}
