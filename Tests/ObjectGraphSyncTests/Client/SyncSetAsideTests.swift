import Foundation
import Logging
import MoodyModel
import ObjectGraph
import ObjectGraphSync
import ObjectGraphSyncProtocol
import ObjectGraphSyncTesting
import Testing

/// A note whose stars the device accepts only from 0 to 5 (the rule of an app's first version).
@Entity("RatedNote") final class StrictRatedNote: Syncable {
    var title: String
    @Attribute(.range(0...5)) var stars = 0
    init(title: String) { self.title = title }
    static var syncConfiguration: SyncConfiguration { SyncConfiguration(recordType: "RatedNote") }
}

/// The same note, as a later version of the app accepts it: up to 10 stars.
@Entity("RatedNote") final class LenientRatedNote: Syncable {
    var title: String
    @Attribute(.range(0...10)) var stars = 0
    init(title: String) { self.title = title }
    static var syncConfiguration: SyncConfiguration { SyncConfiguration(recordType: "RatedNote") }
}

/// A shelf that holds two books at most: a rule of one object that records of others can break.
@Entity final class Shelf: Syncable {
    var name: String
    @Relationship(inverse: \Book.shelf, maximumCount: 2) var books: Set<Book> = []
    init(name: String) { self.name = name }
}

@Entity final class Book: Syncable {
    var title: String
    var shelf: Shelf?
    init(title: String) { self.title = title }
}

@Suite("Sync client: one record never stops a zone; what cannot be applied is set aside, visible and settled")
struct SyncSetAsideTests {
    /// A mood as an older client or any HTTP client may push it.
    static func mood(_ number: Int64, _ id: UUID, text: JSONValue, rating: JSONValue) -> Mutation {
        .upsert(number, entity: "Mood", id: id, fields: ["text": text, "rating": rating, "date": .double(0)])
    }

    @Test(
        "A record that breaks a validation rule, or has a field of the wrong form, is set aside and every other record of its page and of later pages is applied"
    )
    func refusedRecordsAreSetAside() async throws {
        let server = InMemorySyncServer()
        do {
            let (before, broken, unfit, between, after) = (UUID(), UUID(), UUID(), UUID(), UUID())
            try await server.pushApplied(
                "moods",
                PushRequest(
                    UUID(), Self.mood(1, before, text: .string("before"), rating: .integer(2)),
                    Self.mood(2, broken, text: .string(""), rating: .integer(9)),
                    Self.mood(3, unfit, text: .string("unfit"), rating: .string("nine")),
                    Self.mood(4, between, text: .string("between"), rating: .integer(3))))
            try await server.pushApplied(
                "moods", PushRequest(UUID(), Self.mood(5, after, text: .string("after"), rating: .integer(4))))

            let log = LogRecord()
            let phone = try SyncDevice(server: server, logger: log.logger)
            try await phone.sync.syncNow()
            let told = log.entries.filter { $0.level == .notice }.compactMap { $0.metadata["record"].map { "\($0)" } }
            #expect(Set(told) == [broken.uuidString, unfit.uuidString], "each record set aside is logged: \(log.entries)")
            let context = phone.container.newBackgroundContext()
            let texts = Set(try context.fetch(FetchDescriptor<Mood>()).map(\.text))
            #expect(texts == ["before", "between", "after"], "every record but the refused ones is applied")

            let setAside = try await phone.sync.setAsideRecords()
            #expect(Set(setAside.map(\.id)) == [broken, unfit])
            let brokenRecord = try #require(setAside.first { $0.id == broken })
            #expect(brokenRecord.record.entity == "Mood" && brokenRecord.record.fields["rating"] == .integer(9))
            #expect(
                brokenRecord.reason.contains(broken.uuidString) && brokenRecord.reason.contains("Mood")
                    && (brokenRecord.reason.contains("rating") || brokenRecord.reason.contains("text")), "\(brokenRecord.reason)")
            let unfitRecord = try #require(setAside.first { $0.id == unfit })
            #expect(unfitRecord.field == "rating" && unfitRecord.reason.contains("nine"), "\(unfitRecord.reason)")

            let status = phone.sync.status.current
            #expect(status.activity == .idle && status.lastError == nil)
            #expect(status.setAsideRecords == 2 && status.lastSetAsideReason != nil)
        }
    }

    @Test(
        "A record with a field this version of the app does not know (a newer app's) is applied, that field ignored, and nothing is set aside"
    )
    func unknownFieldIsIgnored() async throws {
        let server = InMemorySyncServer()
        let (id, other) = (UUID(), UUID())
        try await server.pushApplied(
            "moods",
            PushRequest(
                UUID(),
                .upsert(
                    1, entity: "Mood", id: id,
                    fields: ["text": .string("sunny"), "rating": .integer(4), "date": .double(0), "weather": .string("clear")]),
                .upsert(
                    2, entity: "Mood", id: other,
                    fields: ["text": .string("gusty"), "rating": .integer(4), "date": .double(0), "weather": .string("wind")])))
        let log = LogRecord()
        let phone = try SyncDevice(server: server, logger: log.logger)
        try await phone.sync.syncNow()
        let context = phone.container.newBackgroundContext()
        let moods = try context.fetch(FetchDescriptor<Mood>())
        let setAside = try await phone.sync.setAsideRecords()
        #expect(Set(moods.map(\.objectGlobalID)) == [id, other] && Set(moods.map(\.text)) == ["sunny", "gusty"], "\(setAside)")
        #expect(setAside.isEmpty)
        // Said once, naming the record type and the field.
        let told = log.entries.filter { $0.metadata["field"] == "weather" }
        #expect(told.count == 1 && told.first?.metadata["recordType"] == "Mood" && told.first?.level == .info, "\(log.entries)")
    }

    @Test("A set-aside record is kept across a restart, in the transaction of its page: it is not lost when the app quits")
    func setAsideIsDurable() async throws {
        let server = InMemorySyncServer()
        do {
            let broken = UUID()
            try await server.pushApplied(
                "moods", PushRequest(UUID(), Self.mood(1, broken, text: .string(""), rating: .integer(9))))
            let path: String
            do {
                let phone = try SyncDevice(server: server)
                path = phone.path
                try await phone.sync.syncNow()
            }
            let reopened = try SyncDevice(server: server, path: path)
            #expect(try await reopened.sync.setAsideRecords().map(\.id) == [broken])
            try await reopened.sync.syncNow()
            #expect(try await reopened.sync.setAsideRecords().map(\.id) == [broken], "set aside once, not twice")
            #expect(reopened.sync.status.current.setAsideRecords == 1)
        }
    }

    @Test("A set-aside record is applied when the app's rules come to accept it: an upgrade retries it at start")
    func setAsideIsRetriedAfterAnUpgrade() async throws {
        let server = InMemorySyncServer()
        do {
            let note = UUID()
            try await server.pushApplied(
                "notes",
                PushRequest(
                    UUID(), .upsert(1, entity: "RatedNote", id: note, fields: ["title": .string("great"), "stars": .integer(8)])))
            let path = SyncDevice.newStorePath()
            do {
                let container = try ObjectContainer(
                    schema: Schema([StrictRatedNote.self] + SyncCoordinator.entities), configuration: .file(path))
                let sync = try SyncCoordinator(
                    container: container, remote: server.remote(user: "alice"), zone: "notes",
                    syncing: [StrictRatedNote.self])
                try await sync.syncNow()
                #expect(try container.newBackgroundContext().fetchCount(FetchDescriptor<StrictRatedNote>()) == 0)
                #expect(try await sync.setAsideRecords().map(\.id) == [note])
            }
            let container = try ObjectContainer(
                schema: Schema([LenientRatedNote.self] + SyncCoordinator.entities), configuration: .file(path))
            let sync = try SyncCoordinator(
                container: container, remote: server.remote(user: "alice"), zone: "notes",
                syncing: [LenientRatedNote.self])
            try await sync.syncNow()
            let reader = container.newBackgroundContext()
            let notes = try reader.fetch(FetchDescriptor<LenientRatedNote>())
            #expect(notes.map(\.stars) == [8] && notes.first?.objectGlobalID == note)
            #expect(try await sync.setAsideRecords().isEmpty)
            #expect(sync.status.current.setAsideRecords == 0)
        }
    }

    @Test("A set-aside record can be discarded, or replaced by a corrected value that is saved here and pushed")
    func setAsideIsSettled() async throws {
        let server = InMemorySyncServer()
        do {
            let (discarded, replaced) = (UUID(), UUID())
            try await server.pushApplied(
                "moods",
                PushRequest(
                    UUID(), Self.mood(1, discarded, text: .string(""), rating: .integer(9)),
                    Self.mood(2, replaced, text: .string("too good"), rating: .integer(9))))
            let phone = try SyncDevice(server: server)
            try await phone.sync.syncNow()
            #expect(phone.sync.status.current.setAsideRecords == 2)

            try await phone.sync.discardSetAsideRecord(discarded)
            // Settled once: a second time is an error naming the record.
            let again = await #expect(throws: SyncError.self) { try await phone.sync.discardSetAsideRecord(discarded) }
            #expect(again?.code == .notSetAside && again?.recordID == discarded, "\(String(describing: again))")
            try await phone.sync.replaceSetAsideRecord(replaced) { object in
                let mood = try #require(object as? Mood)
                #expect(mood.text == "too good", "the fields that fit are written before the app corrects the rest")
                mood.rating = 5
            }
            #expect(try await phone.sync.setAsideRecords().isEmpty)
            #expect(phone.sync.status.current.setAsideRecords == 0)
            try await phone.sync.syncNow()

            let context = phone.container.newBackgroundContext()
            let moods = try context.fetch(FetchDescriptor<Mood>())
            #expect(moods.map(\.objectGlobalID) == [replaced] && moods.map(\.rating) == [5])
            let laptop = try SyncDevice(server: server)
            try await laptop.sync.syncNow()
            let reader = laptop.container.newBackgroundContext()
            let received = try reader.fetch(FetchDescriptor<Mood>())
            #expect(received.map(\.objectGlobalID) == [replaced] && received.map(\.rating) == [5], "the correction was pushed")
            #expect(try await laptop.sync.setAsideRecords().map(\.id) == [discarded], "the other device decides for itself")
        }
    }

    @Test("A set-aside record that a newer version of it replaces on the server is applied and no longer set aside")
    func newerVersionSettlesIt() async throws {
        let server = InMemorySyncServer()
        do {
            let mood = UUID()
            try await server.pushApplied(
                "moods", PushRequest(UUID(), Self.mood(1, mood, text: .string(""), rating: .integer(9))))
            let phone = try SyncDevice(server: server)
            try await phone.sync.syncNow()
            #expect(try await phone.sync.setAsideRecords().map(\.id) == [mood])
            try await server.pushApplied(
                "moods",
                PushRequest(
                    UUID(),
                    .upsert(2, entity: "Mood", id: mood, baseVersion: 1, fields: ["text": .string("fixed"), "rating": .integer(4)])))
            try await phone.sync.syncNow()
            let moods = try phone.container.newBackgroundContext().fetch(FetchDescriptor<Mood>())
            #expect(moods.map(\.text) == ["fixed"] && moods.map(\.rating) == [4])
            #expect(try await phone.sync.setAsideRecords().isEmpty)
        }
    }

    @Test(
        "A record that breaks a rule of another object (a third book on a shelf of two) is found by trying the page's records one by one, and only it is set aside"
    )
    func refusalOfAnotherObjectIsNarrowedDown() async throws {
        let server = InMemorySyncServer()
        do {
            let shelf = UUID()
            let books = [UUID(), UUID(), UUID()]
            try await server.pushApplied(
                "books", PushRequest(UUID(), .upsert(1, entity: "Shelf", id: shelf, fields: ["name": .string("top")])))
            let container = try ObjectContainer(
                schema: Schema([Shelf.self, Book.self] + SyncCoordinator.entities), configuration: .file(SyncDevice.newStorePath()))
            let sync = try SyncCoordinator(
                container: container, remote: server.remote(user: "alice"), zone: "books", syncing: [Shelf.self, Book.self])
            try await sync.syncNow()
            try await server.pushApplied(
                "books",
                PushRequest(
                    clientID: UUID(),
                    mutations: books.enumerated().map { index, id in
                        .upsert(
                            Int64(index + 2), entity: "Book", id: id,
                            fields: ["title": .string("book \(index)"), "shelf": .string(shelf.uuidString)])
                    }))
            try await sync.syncNow()
            let reader = container.newBackgroundContext()
            let onShelf = try #require(try reader.object(withGlobalID: shelf, as: Shelf.self))
            #expect(onShelf.books.map(\.title).sorted() == ["book 0", "book 1"])
            let refused = try await sync.setAsideRecords()
            #expect(refused.map(\.id) == [books[2]] && refused.first?.reason.contains("Shelf") == true, "\(refused)")
        }
    }

    @Test(
        "A conflict whose server value breaks a rule does not stop the sync: the server's version is set aside, this device's edit is sent and, once it is the server's, nothing stays aside"
    )
    func conflictWithARefusedValue() async throws {
        let server = InMemorySyncServer()
        do {
            let id = UUID()
            try await server.pushApplied(
                "moods", PushRequest(UUID(), Self.mood(1, id, text: .string("fine"), rating: .integer(3))))
            let phone = try SyncDevice(server: server)
            try await phone.sync.syncNow()
            // Offline, the phone edits the text; an older client empties it, against the rule.
            let context = phone.container.newBackgroundContext()
            let mood = try #require(try context.object(withGlobalID: id, as: Mood.self))
            mood.text = "edited here"
            try context.save()
            try await server.pushApplied(
                "moods",
                PushRequest(UUID(), .upsert(1, entity: "Mood", id: id, baseVersion: 1, fields: ["text": .string("")])))

            let updates = phone.sync.status.updates
            let sawSetAside = Task {
                for await status in updates where status.setAsideRecords == 1 { return status.lastSetAsideReason }
                return nil
            }
            try await phone.sync.syncNow()
            let reason = try await withTimeout(of: sawSetAside)
            #expect(reason?.contains("text") == true, "the server's version was set aside: \(reason ?? "never")")
            #expect(try await phone.sync.setAsideRecords().isEmpty, "the server's newer version, this device's, replaced it")
            let feed = try await server.allChanges("moods")
            #expect(feed.last?.record.fields["text"] == .string("edited here"), "this device's valid edit was sent")
            #expect(mood.text == "edited here" && phone.sync.status.current.pendingChanges == 0)
        }
    }
}

/// The value of `task`, or nil when it has none within `timeout` (which only catches a hang);
/// the task is cancelled then.
func withTimeout<Value: Sendable>(of task: Task<Value?, Never>, _ timeout: Duration = .seconds(60)) async throws -> Value? {
    try await withThrowingTaskGroup(of: Value?.self) { group in
        group.addTask { await task.value }
        group.addTask {
            try await Task.sleep(for: timeout)
            task.cancel()
            return nil
        }
        defer { group.cancelAll() }
        return try await group.next() ?? nil
    }
}
