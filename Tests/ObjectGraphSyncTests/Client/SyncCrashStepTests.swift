import Foundation
import MoodyModel
import ObjectGraph
import ObjectGraphSync
import ObjectGraphSyncProtocol
import ObjectGraphSyncTesting
import Synchronization
import Testing

/// A remote through which a device dies at one call of a round: the call stops there for good,
/// before it reaches the server or after the server applied it, as when the process is killed at
/// that moment. Nothing of the device runs after it: the call never returns.
final class DyingRemote: ForwardingSyncRemote {
    enum Moment: String, CaseIterable, Sendable {
        case beforeTheServer, afterTheServer
    }

    let base: any SyncRemote
    private let step: Int
    private let moment: Moment
    private let calls = Mutex(0)
    private let (deaths, death) = AsyncStream<Void>.makeStream()

    /// Dies at call `step` (1 for the first push or page asked), at `moment`; never with `step` 0.
    init(_ remote: any SyncRemote, step: Int, moment: Moment) {
        self.base = remote
        self.step = step
        self.moment = moment
    }

    /// How many calls were made.
    var callCount: Int { calls.withLock { $0 } }

    /// Returns once the device died.
    func died() async {
        for await _ in deaths { return }
    }

    func push(_ request: PushRequest, zone: ZoneID) async throws -> PushOutcome {
        try await call { try await base.push(request, zone: zone) }
    }

    func changes(zone: ZoneID, since cursor: FeedCursor, limit: Int) async throws -> ChangesPage {
        try await call { try await base.changes(zone: zone, since: cursor, limit: limit) }
    }

    private func call<Value>(_ body: () async throws -> Value) async throws -> Value {
        let number = calls.withLock { count in
            count += 1
            return count
        }
        guard number == step else { return try await body() }
        if moment == .afterTheServer { _ = try? await body() }
        death.yield()
        // The process is gone: this call never answers (the test abandons the device).
        while true { try? await Task.sleep(for: .seconds(3600)) }
    }
}

@Suite("Sync client: exactly once, whichever step of a round the device dies at")
struct SyncCrashStepTests {
    /// A phone with changes to send (three new moods, an edit and a deletion of the laptop's) and
    /// changes to receive (a mood the laptop made since), on a server that holds the laptop's.
    static func scene(on server: InMemorySyncServer) async throws -> (phone: String, laptop: SyncDevice, edited: UUID) {
        let laptop = try SyncDevice(server: server)
        let context = laptop.container.newBackgroundContext()
        let kept = Mood(text: "kept")
        let gone = Mood(text: "gone")
        context.insert(kept)
        context.insert(gone)
        try context.save()
        try await laptop.sync.syncNow()

        let phone = try SyncDevice(server: server)
        try await phone.sync.syncNow()
        let onPhone = phone.container.newBackgroundContext()
        for index in 0..<3 { onPhone.insert(Mood(text: "phone \(index)")) }
        try #require(try onPhone.object(withGlobalID: kept.objectGlobalID, as: Mood.self)).text = "edited on the phone"
        onPhone.delete(try #require(try onPhone.object(withGlobalID: gone.objectGlobalID, as: Mood.self)))
        try onPhone.save()

        context.insert(Mood(text: "laptop's later"))
        try context.save()
        try await laptop.sync.syncNow()
        return (phone.path, laptop, kept.objectGlobalID)
    }

    /// The texts of the moods of a store, sorted.
    static func texts(of container: ObjectContainer) throws -> [String] {
        try container.newBackgroundContext().fetch(FetchDescriptor<Mood>()).map(\.text).sorted()
    }

    @Test(
        "A device that dies at any call of a round, before the server has it or after the server applied it, sends each change exactly once after a restart, and ends equal to the others"
    )
    func diesAtEachStep() async throws {
        // How many calls a round of the scene makes.
        let counting = InMemorySyncServer()
        let (countedPath, _, _) = try await Self.scene(on: counting)
        let counter = DyingRemote(counting.remote(user: "alice"), step: 0, moment: .beforeTheServer)
        try await SyncDevice(server: counting, path: countedPath, remote: counter).sync.syncNow()
        let steps = counter.callCount
        try #require(steps >= 2, "a round pushes, then reads the feed: \(steps) calls")

        let expected = ["edited on the phone", "laptop's later", "phone 0", "phone 1", "phone 2"]
        for moment in DyingRemote.Moment.allCases {
            for step in 1...steps {
                let server = InMemorySyncServer()
                let (path, laptop, edited) = try await Self.scene(on: server)
                let dying = DyingRemote(server.remote(user: "alice"), step: step, moment: moment)
                let doomed = try SyncDevice(server: server, path: path, remote: dying)
                let round = Task { try await doomed.sync.syncNow() }
                await dying.died()
                _ = round  // abandoned with the device, as a killed process

                let restarted = try SyncDevice(server: server, path: path)
                try await restarted.sync.syncNow()
                try await laptop.sync.syncNow()
                let records = server.records(zone: "moods", user: "alice").filter { $0.entity == "Mood" }
                let live = records.filter { !$0.deleted }
                #expect(
                    live.compactMap { $0.fields["text"]?.text }.sorted() == expected,
                    "died \(moment) at call \(step): the server holds \(live)")
                #expect(
                    records.first { $0.id == edited }?.version == 2,
                    "died \(moment) at call \(step): the edit was applied more than once")
                #expect(try Self.texts(of: restarted.container) == expected, "died \(moment) at call \(step)")
                #expect(try Self.texts(of: laptop.container) == expected, "died \(moment) at call \(step)")
                #expect(await restarted.sync.checkStatus().pendingChanges == 0)
            }
        }
    }
}

extension JSONValue {
    /// The text of a string value.
    fileprivate var text: String? {
        if case .string(let text) = self { text } else { nil }
    }
}
