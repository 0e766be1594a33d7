import Foundation
import MoodyModel
import ObjectGraph
import ObjectGraphSync
import ObjectGraphSyncProtocol
import ObjectGraphSyncTesting
import Testing

@Suite("Sync client: a purge of the history never loses what the sync has not sent")
struct SyncPurgeTests {
    /// A phone that synced one mood, then, offline, made five moods and edited the first one.
    static func phoneWithWaitingChanges(server: InMemorySyncServer) async throws -> (SyncDevice, UUID) {
        let phone = try SyncDevice(server: server)
        let context = phone.container.newBackgroundContext()
        let first = Mood(text: "synced")
        context.insert(first)
        try context.save()
        try await phone.sync.syncNow()
        for index in 0..<5 { context.insert(Mood(text: "new \(index)")) }
        try context.save()
        first.text = "edited"
        try context.save()
        return (phone, first.objectGlobalID)
    }

    /// What the server holds: the text of each mood not deleted.
    static func serverTexts(server: InMemorySyncServer) async throws -> [String] {
        let feed = try await server.allChanges("moods")
        let latest = Dictionary(feed.map { ($0.record.id, $0.record) }, uniquingKeysWith: { $1 })
        return latest.values.filter { !$0.deleted && $0.entity == "Mood" }.compactMap {
            if case .string(let text)? = $0.fields["text"] { text } else { nil }
        }.sorted()
    }

    @Test(
        "The sync is a consumer of the history: a purge through the latest token is refused naming it, a purge by date stops at it, and every waiting change is sent"
    )
    func purgeStopsAtTheSync() async throws {
        let server = InMemorySyncServer()
        do {
            let (phone, _) = try await Self.phoneWithWaitingChanges(server: server)
            let consumers = try phone.container.historyConsumers()
            #expect(consumers.map(\.name) == ["ObjectGraphSync.moods"], "\(consumers)")
            let latest = try #require(try phone.container.lastHistoryToken())
            do {
                try phone.container.purgeHistory(through: latest)
                Issue.record("the purge passed the sync")
            } catch let error as ObjectGraphError {
                #expect(error.code == .historyInUse && error.historyConsumer == "ObjectGraphSync.moods")
            }
            try phone.container.purgeHistory(before: .distantFuture)
            try await phone.sync.syncNow()
            #expect(
                try await Self.serverTexts(server: server) == ["edited", "new 0", "new 1", "new 2", "new 3", "new 4"])
            #expect(phone.sync.status.current.pendingChanges == 0)
            let position = try #require(try phone.container.historyConsumers().first?.position)
            #expect(position >= latest, "the sync's position moves as it reads")
        }
    }

    @Test(
        "Changes whose history was purged anyway (by a build that ignores consumers) are found from what the sync last knew, and sent: inserts, an edit and a deletion"
    )
    func purgedChangesAreRecovered() async throws {
        let server = InMemorySyncServer()
        do {
            let (phone, _) = try await Self.phoneWithWaitingChanges(server: server)
            let context = phone.container.newBackgroundContext()
            let doomed = Mood(text: "doomed")
            context.insert(doomed)
            try context.save()
            try await phone.sync.syncNow()
            context.delete(doomed)
            try context.save()
            context.insert(Mood(text: "after the sync"))
            try context.save()
            // As an older build would: no consumer, everything purged.
            for consumer in try phone.container.historyConsumers() { try phone.container.removeHistoryConsumer(named: consumer.name) }
            try phone.container.purgeHistory(through: try #require(try phone.container.lastHistoryToken()))
            try await phone.sync.syncNow()
            #expect(
                try await Self.serverTexts(server: server)
                    == ["after the sync", "edited", "new 0", "new 1", "new 2", "new 3", "new 4"])
            #expect(phone.sync.status.current.pendingChanges == 0)
        }
    }
}
