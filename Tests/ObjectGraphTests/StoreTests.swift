import Foundation
import GRDB
import MoodyModel
import Testing

@testable import ObjectGraph

@Suite struct StoreTests {
    /// A store file written with the first version of the `Note` model, closed again.
    private func makeNoteStore(_ texts: [String]) throws -> String {
        let path = temporaryStorePath()
        let container = try ObjectContainer(for: NoteV1.self, configuration: .file(path))
        let context = container.newBackgroundContext()
        for text in texts { context.insert(NoteV1(text: text)) }
        try context.save()
        return path
    }

    @Test func additiveChangesMigrateAndKeepEveryRow() throws {
        let path = try makeNoteStore(["one", "two"])
        // A new attribute with a default, a new optional indexed attribute, a new entity and a new
        // relationship: all additive.
        let container = try ObjectContainer(for: NoteV2.self, configuration: .file(path))
        let context = container.newBackgroundContext()
        let notes = try context.fetch(FetchDescriptor<NoteV2>(sortBy: [SortDescriptor(\.text)]))
        #expect(notes.map(\.text) == ["one", "two"])
        #expect(notes.map(\.pinned) == [false, false])
        #expect(notes.map(\.title) == [nil, nil])
        notes[0].tags = [Tag(name: "work")]
        notes[0].title = "First"
        try context.save()

        let reopened = try ObjectContainer(for: NoteV2.self, configuration: .file(path))
        let reader = reopened.newBackgroundContext()
        let first = try #require(try reader.fetch(FetchDescriptor<NoteV2>(predicate: #Predicate { $0.title == "First" })).first)
        #expect(first.tags.map(\.name) == ["work"])

        // The new indexed attribute got its index.
        let database = try DatabaseQueue(path: path)
        let indexes = try database.read { db in try db.indexes(on: "Note") }
        #expect(indexes.contains { $0.columns == ["title"] && !$0.isUnique })
    }

    @Test func otherChangesFailAndNameTheDifference() throws {
        let path = try makeNoteStore(["kept"])
        let changedType = try #require(throws: ObjectGraphError.self) {
            try ObjectContainer(for: NoteChangedType.self, configuration: .file(path))
        }
        guard changedType.code == .schemaMismatch, case let differences = changedType.schemaDifferences else {
            Issue.record("\(changedType)"); return
        }
        #expect(differences.contains { $0.location == "Note.text" && !$0.isAdditive })

        let removed = try #require(throws: ObjectGraphError.self) {
            try ObjectContainer(for: NoteWithoutText.self, configuration: .file(path))
        }
        guard removed.code == .schemaMismatch, case let removals = removed.schemaDifferences else { Issue.record("\(removed)"); return }
        #expect(removals.contains { $0.location == "Note.text" && !$0.isAdditive })

        // The refused openings left the data as it was.
        let original = try ObjectContainer(for: NoteV1.self, configuration: .file(path))
        let context = original.newBackgroundContext()
        #expect(try context.fetch(FetchDescriptor<NoteV1>()).map(\.text) == ["kept"])
    }

    @Test func aFileThatIsNotADatabaseIsRefused() throws {
        let path = temporaryStorePath()
        try Data("this is not SQLite, just text that is long enough to look like a header".utf8)
            .write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: ObjectGraphError.self) {
            try ObjectContainer(for: Mood.self, configuration: .file(path))
        }
        guard error.code == .incompatibleStore, let reportedPath = error.path else { Issue.record("\(error)"); return }
        #expect(reportedPath == path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).starts(with: Data("this is not SQLite".utf8)))
    }

    @Test func aDatabaseOfAnotherApplicationIsRefused() throws {
        let path = temporaryStorePath()
        let other = try DatabaseQueue(path: path)
        try other.write { db in
            try db.execute(sql: "CREATE TABLE invoice (id INTEGER PRIMARY KEY, total REAL)")
            try db.execute(sql: "INSERT INTO invoice (total) VALUES (9.5)")
        }
        try other.close()
        let error = try #require(throws: ObjectGraphError.self) {
            try ObjectContainer(for: Mood.self, configuration: .file(path))
        }
        guard error.code == .incompatibleStore, let reason = error.reason else { Issue.record("\(error)"); return }
        #expect(reason.contains("invoice"))
        let reopened = try DatabaseQueue(path: path)
        #expect(try reopened.read { db in try Double.fetchOne(db, sql: "SELECT total FROM invoice") } == 9.5)
    }

    @Test func aStoreOfAnotherModelIsAMismatch() throws {
        let path = try makeNoteStore(["mine"])
        let error = try #require(throws: ObjectGraphError.self) {
            try ObjectContainer(for: Mood.self, configuration: .file(path))
        }
        guard error.code == .schemaMismatch, case let differences = error.schemaDifferences else { Issue.record("\(error)"); return }
        #expect(differences.contains { $0.location == "Note" })
    }

    @Test func fileStoresUseWriteAheadLogging() throws {
        let path = temporaryStorePath()
        let container = try ObjectContainer(for: Mood.self, configuration: .file(path))
        let context = container.newBackgroundContext()
        context.insert(Country(name: "Chile"))
        try context.save()
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
    }

    /// Commits leave the copy of the write-ahead log into the database file to a checkpoint queued
    /// behind them; without it the log would grow with every save.
    @Test func theWriteAheadLogIsCheckpointedAfterLargeCommits() throws {
        let path = temporaryStorePath()
        var configuration = StoreConfiguration.file(path)
        configuration.historyPollingInterval = nil  // no reader between the saves: SQLite restarts the log
        configuration.checkpointThreshold = 100  // pages; SQLite's 1,000 would take megabytes of saves
        let container = try ObjectContainer(for: Mood.self, configuration: configuration)
        let context = container.newBackgroundContext()
        let text = String(repeating: "calm ", count: 200)
        func logSize() throws -> Int {
            try #require(FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int)
        }
        var firstSave = 0
        for save in 0..<12 {
            for index in 0..<100 { context.insert(Mood(text: "\(save) \(index) \(text)")) }
            try context.save()
            if save == 0 { firstSave = try logSize() }
        }
        // Without checkpoints the log holds all twelve saves; with them, the pages of the saves since
        // the last one (the threshold of 100 pages is about four of these saves).
        #expect(try logSize() < 6 * firstSave)
        #expect(try context.fetchCount(FetchDescriptor<Mood>()) == 1_200)
    }
}
