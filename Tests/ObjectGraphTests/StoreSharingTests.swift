import Foundation
import GRDB
import MoodyModel
import ObjectGraph
import Testing

/// Opening a store never writes to a file it refuses (issue 10, point 7), and several connections or
/// processes on one store file wait for each other instead of failing (point 9).
@Suite struct StoreSharingTests {
    /// The contents of a store file and its write-ahead log, to compare before and after. The `-shm`
    /// file is left out: it is SQLite's shared-memory index of the log, which every reader updates
    /// (its read marks) while another connection keeps the log open, and holds no data of the store.
    static func snapshot(_ path: String) -> [String: Data] {
        var files: [String: Data] = [:]
        for suffix in ["", "-wal"] {
            if let data = FileManager.default.contents(atPath: path + suffix) { files[suffix] = data }
        }
        return files
    }

    /// Holds SQLite's write lock on `path` from another connection while `body` runs, as another
    /// process saving does (having written before: its WAL file is not empty).
    static func whileAnotherConnectionWrites<R>(_ path: String, _ body: () throws -> R) throws -> R {
        let other = try DatabaseQueue(path: path)
        return try other.inDatabase { db in
            try db.execute(sql: "CREATE TABLE scratch (id INTEGER); DROP TABLE scratch")
            try db.execute(sql: "BEGIN IMMEDIATE")
            defer { try? db.execute(sql: "ROLLBACK") }
            return try body()
        }
    }

    @Test func aDatabaseItDidNotCreateIsRefusedAndLeftByteForByte() throws {
        let path = temporaryStorePath()
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "CREATE TABLE people (name TEXT)")
            try db.execute(sql: "INSERT INTO people VALUES ('Ada')")
        }
        let before = Self.snapshot(path)
        #expect(throws: ObjectGraphError.self) { try ObjectContainer(for: Mood.self, configuration: .file(path)) }
        #expect(Self.snapshot(path) == before)
    }

    @Test func aStoreOfAnIncompatibleModelIsRefusedAndLeftByteForByte() async throws {
        let path = temporaryStorePath()
        try await withContainer(try ObjectContainer(for: NoteV1.self, configuration: .file(path))) { container in
            let context = container.newBackgroundContext()
            context.insert(NoteV1(text: "kept"))
            try context.save()
        }
        let before = Self.snapshot(path)
        #expect(before[""] != nil)
        let error = #expect(throws: ObjectGraphError.self) {
            try ObjectContainer(for: NoteChangedType.self, configuration: .file(path))
        }
        if let thrown = error, thrown.code == .schemaMismatch {
        } else {
            Issue.record("expected a schema mismatch, got \(String(describing: error))")
        }
        #expect(Self.snapshot(path) == before)
    }

    @Test func openingAStoreWhoseSchemaIsCurrentTakesNoWriteLock() throws {
        let path = temporaryStorePath()
        do { _ = try ObjectContainer(for: Mood.self, configuration: .file(path)) }
        let container = try Self.whileAnotherConnectionWrites(path) {
            try ObjectContainer(for: Mood.self, configuration: .file(path, busyTimeout: 0))
        }
        #expect(try container.newBackgroundContext().fetchCount(FetchDescriptor<Mood>()) == 0)
    }

    @Test func aSaveWaitsForAnotherWriterInsteadOfFailing() async throws {
        let path = temporaryStorePath()
        let container = try ObjectContainer(for: Mood.self, configuration: .file(path))
        let other = try DatabaseQueue(path: path)
        let locked = AsyncStream<Void>.makeStream()
        // The other writer keeps the lock until this save has begun, then lets it go.
        let release = DispatchSemaphore(value: 0)
        let holder = Task.detached {
            try other.inDatabase { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                locked.continuation.yield()
                release.wait()
                try db.execute(sql: "COMMIT")
            }
        }
        for await _ in locked.stream { break }
        try await container.performBackgroundTask { context in
            context.insert(Mood(text: "patient"))
            let began = context.observeWillSave { _ in release.signal() }
            try context.save()
            withExtendedLifetime(began) {}
        }
        try await holder.value
        #expect(try container.newBackgroundContext().fetchCount(FetchDescriptor<Mood>()) == 1)
    }

    @Test func aBusyTimeoutThatExpiresIsATypedRetryableError() throws {
        let path = temporaryStorePath()
        let container = try ObjectContainer(for: Mood.self, configuration: .file(path, busyTimeout: 0.1))
        let context = container.newBackgroundContext()
        context.insert(Mood(text: "hurried"))
        let error = try Self.whileAnotherConnectionWrites(path) {
            #expect(throws: ObjectGraphError.self) { try context.save() }
        }
        guard let thrown = error, thrown.code == .store, let cause = thrown.storeError else {
            Issue.record("expected a store error, got \(String(describing: error))")
            return
        }
        #expect(cause.isRetryable)
        #expect(cause.resultCode == .busy)
        try context.save()  // once the other writer is done, the same save succeeds
        #expect(try container.newBackgroundContext().fetchCount(FetchDescriptor<Mood>()) == 1)
    }

    @Test func twoProcessesSavingToOneStoreBothFinishAndEveryBatchIsThereOnce() throws {
        let path = temporaryStorePath()
        do { _ = try ObjectContainer(for: Mood.self, configuration: .file(path)) }
        let batches = 300
        let processes = try ["A", "B"].map { tag in
            let process = Process()
            process.executableURL = try testProcessURL()
            process.arguments = ["save-batches", path, String(batches), tag]
            let errors = Pipe()
            process.standardError = errors
            try process.run()
            return (process, errors)
        }
        for (process, errors) in processes {
            process.waitUntilExit()
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationStatus == 0, "\(message)")
        }
        let context = try ObjectContainer(for: Mood.self, configuration: .file(path)).newBackgroundContext()
        let texts = try context.fetch(FetchDescriptor<Mood>()).map(\.text)
        #expect(texts.count == 2 * batches * 2)
        #expect(Set(texts).count == texts.count)
        for tag in ["A", "B"] {
            for batch in [0, batches / 2, batches - 1] {
                #expect(texts.contains("\(tag) \(batch) 0") && texts.contains("\(tag) \(batch) 1"))
            }
        }
    }
}
