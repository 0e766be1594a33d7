import Foundation
import MoodyModel
import ObjectGraph
import ObjectGraphSync
import ObjectGraphSyncProtocol
import ObjectGraphSyncTesting
import Testing

@Suite("Sync client: conflicts between two devices, settled by each entity's policy")
struct SyncConflictTests {
    static let types: [any Syncable.Type] = [Note.self, LocalFirstNote.self, MergedNote.self]

    /// Two devices on one server, each with a context, both holding a note made on the first.
    struct Pair<N: Syncable> {
        let phone: SyncDevice
        let laptop: SyncDevice
        let onPhone: ObjectContext
        let onLaptop: ObjectContext
        let phoneNote: N
        let laptopNote: N

        init(server: InMemorySyncServer, making note: N) async throws {
            phone = try SyncDevice(server: server, types: SyncConflictTests.types)
            laptop = try SyncDevice(server: server, types: SyncConflictTests.types)
            onPhone = phone.container.newBackgroundContext()
            onLaptop = laptop.container.newBackgroundContext()
            onPhone.insert(note)
            try onPhone.save()
            phoneNote = note
            try await phone.sync.syncNow()
            try await laptop.sync.syncNow()
            laptopNote = try #require(try onLaptop.object(withGlobalID: note.objectGlobalID, as: N.self))
        }

        /// Syncs both devices, the phone first, and merges what they received into the contexts.
        func syncBoth() async throws {
            try await phone.sync.syncNow()
            try await laptop.sync.syncNow()
            try await phone.sync.syncNow()
            onPhone.processPendingChanges()
            onLaptop.processPendingChanges()
        }
    }

    @Test("The same field changed on two devices: by default the server's value (the first pushed) wins")
    func serverWins() async throws {
        let server = InMemorySyncServer()
        do {
            let pair = try await Pair(server: server, making: Note(title: "Groceries"))
            pair.phoneNote.stars = 4
            try pair.onPhone.save()
            try await pair.phone.sync.syncNow()
            pair.laptopNote.stars = 5  // made before the laptop heard of the phone's edit
            try pair.onLaptop.save()
            try await pair.syncBoth()
            #expect(pair.phoneNote.stars == 4 && pair.laptopNote.stars == 4)
            #expect(pair.laptop.sync.status.current.pendingChanges == 0)
        }
    }

    @Test("Different fields changed on two devices merge without a conflict")
    func differentFields() async throws {
        let server = InMemorySyncServer()
        do {
            let pair = try await Pair(server: server, making: Note(title: "Groceries"))
            pair.phoneNote.title = "Shopping"
            try pair.onPhone.save()
            try await pair.phone.sync.syncNow()
            pair.laptopNote.body = "milk, bread"
            try pair.onLaptop.save()
            try await pair.syncBoth()
            for note in [pair.phoneNote, pair.laptopNote] {
                #expect(note.title == "Shopping" && note.body == "milk, bread")
            }
        }
    }

    @Test("With clientWins, the value pushed last wins the conflict")
    func clientWins() async throws {
        let server = InMemorySyncServer()
        do {
            let pair = try await Pair(server: server, making: LocalFirstNote(title: "Groceries"))
            pair.phoneNote.stars = 4
            try pair.onPhone.save()
            try await pair.phone.sync.syncNow()
            pair.laptopNote.stars = 5
            try pair.onLaptop.save()
            try await pair.syncBoth()
            #expect(pair.phoneNote.stars == 5 && pair.laptopNote.stars == 5)
        }
    }

    @Test("A merge closure settles each conflicting field from the base, the local and the server values")
    func mergeClosure() async throws {
        let server = InMemorySyncServer()
        do {
            let pair = try await Pair(server: server, making: MergedNote(title: "Groceries"))
            pair.phoneNote.body = "milk"
            pair.phoneNote.stars = 2
            try pair.onPhone.save()
            try await pair.phone.sync.syncNow()
            pair.laptopNote.body = "bread"
            pair.laptopNote.stars = 3
            try pair.onLaptop.save()
            try await pair.syncBoth()
            for note in [pair.phoneNote, pair.laptopNote] {
                #expect(note.body == "bread + milk" && note.stars == 5)
            }
        }
    }

    @Test("A deletion against an edit: by default the deletion wins, whichever came first")
    func deletionWins() async throws {
        let server = InMemorySyncServer()
        do {
            // The deletion first, then the edit.
            var pair = try await Pair(server: server, making: Note(title: "Groceries"))
            pair.onPhone.delete(pair.phoneNote)
            try pair.onPhone.save()
            try await pair.phone.sync.syncNow()
            pair.laptopNote.stars = 5
            try pair.onLaptop.save()
            try await pair.syncBoth()
            #expect(pair.laptopNote.isDeleted)
            #expect(try pair.onLaptop.fetchCount(FetchDescriptor<Note>()) == 0)

            // The edit first, then the deletion.
            pair = try await Pair(server: server, making: Note(title: "Chores"))
            pair.laptopNote.stars = 5
            try pair.onLaptop.save()
            try await pair.laptop.sync.syncNow()
            pair.onPhone.delete(pair.phoneNote)
            try pair.onPhone.save()
            try await pair.syncBoth()
            try await pair.laptop.sync.syncNow()
            pair.onLaptop.processPendingChanges()
            #expect(pair.laptopNote.isDeleted)
            #expect(try pair.onPhone.fetchCount(FetchDescriptor<Note>()) == 0)
        }
    }

    @Test("With editWins, an edit brings back what the other device deleted, whichever came first")
    func editWins() async throws {
        let server = InMemorySyncServer()
        do {
            // The deletion first, then the edit: the record comes back on the server and the phone.
            var pair = try await Pair(server: server, making: LocalFirstNote(title: "Groceries"))
            let id = pair.phoneNote.objectGlobalID
            pair.onPhone.delete(pair.phoneNote)
            try pair.onPhone.save()
            try await pair.phone.sync.syncNow()
            pair.laptopNote.stars = 5
            try pair.onLaptop.save()
            try await pair.syncBoth()
            #expect(!pair.laptopNote.isDeleted && pair.laptopNote.stars == 5)
            let back = try #require(try pair.onPhone.object(withGlobalID: id, as: LocalFirstNote.self))
            #expect(back.stars == 5 && back.title == "Groceries")

            // The edit first, then the deletion: the deletion is taken back on the phone.
            pair = try await Pair(server: server, making: LocalFirstNote(title: "Chores"))
            let chores = pair.phoneNote.objectGlobalID
            pair.laptopNote.stars = 3
            try pair.onLaptop.save()
            try await pair.laptop.sync.syncNow()
            pair.onPhone.delete(pair.phoneNote)
            try pair.onPhone.save()
            try await pair.syncBoth()
            let restored = try #require(try pair.onPhone.object(withGlobalID: chores, as: LocalFirstNote.self))
            #expect(restored.stars == 3)
            #expect(!pair.laptopNote.isDeleted)
        }
    }

    /// Saves an edit of the app in the middle of a sync cycle, once armed: after the cycle recorded
    /// the local changes and read a page of the feed, before the page is applied.
    final class EditDuringPull: ChangeProcessor, @unchecked Sendable {
        // Safety: set up before the coordinator runs, then used only on its actor.
        var container: ObjectContainer?
        var moodID: UUID?

        var predicate: Predicate<Mood>? { nil }

        func processRemoteChanges(_ changes: [FeedChange], in sync: isolated SyncCoordinator) async throws {
            guard let container, let moodID, changes.contains(where: { $0.record.id == moodID }) else { return }
            self.moodID = nil
            let app = container.newBackgroundContext()
            let mood = try #require(try app.object(withGlobalID: moodID, as: Mood.self))
            mood.rating = 5
            try app.save()
        }
    }

    @Test(
        "An edit the app saves while the sync applies the feed is neither overwritten by the feed's older value nor lost: it reaches the other device"
    )
    func editDuringPull() async throws {
        let server = InMemorySyncServer()
        do {
            let laptop = try SyncDevice(server: server)
            let context = laptop.container.newBackgroundContext()
            let mood = Mood(text: "Tea", rating: 1)
            context.insert(mood)
            try context.save()
            try await laptop.sync.syncNow()

            let editor = EditDuringPull()
            let phone = try SyncDevice(server: server, processors: [Uploader(), editor, Downloader()])
            try await phone.sync.syncNow()  // the phone has the mood
            editor.container = phone.container
            editor.moodID = mood.objectGlobalID

            // The laptop changes the text: the feed's record carries the old rating with it.
            mood.text = "Green tea"
            try context.save()
            try await laptop.sync.syncNow()
            try await phone.sync.syncNow()  // applies the text while the app makes the rating 5
            try await phone.sync.syncNow()
            try await laptop.sync.syncNow()

            let phoneReader = phone.container.newBackgroundContext()
            let onPhone = try #require(try phoneReader.object(withGlobalID: mood.objectGlobalID, as: Mood.self))
            #expect(onPhone.text == "Green tea")
            #expect(onPhone.rating == 5)
            let laptopReader = laptop.container.newBackgroundContext()
            let onLaptop = try #require(try laptopReader.object(withGlobalID: mood.objectGlobalID, as: Mood.self))
            #expect(onLaptop.text == "Green tea")
            #expect(onLaptop.rating == 5)
        }
    }
}
