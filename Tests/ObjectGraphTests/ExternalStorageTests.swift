import Foundation
import GRDB
import ObjectGraph
import Testing

/// A photo whose image is kept in a file when it is large.
@Entity final class Snapshot {
    @Attribute(.unique) var label: String
    @Attribute(.externalStorage) var image: Data?
    var album: PhotoAlbum?
    init(_ label: String, image: Data? = nil) {
        self.label = label
        self.image = image
    }
}

/// Photos that go with their album.
@Entity final class PhotoAlbum {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Snapshot.album) var snapshots: [Snapshot] = []
    init(_ name: String) { self.name = name }
}

/// The same photo before its image could be kept in a file.
@Entity("Snapshot") final class SnapshotInRows {
    @Attribute(.unique) var label: String
    var image: Data?
    var album: PhotoAlbumInRows?
    init(_ label: String, image: Data? = nil) {
        self.label = label
        self.image = image
    }
}

@Entity("PhotoAlbum") final class PhotoAlbumInRows {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \SnapshotInRows.album) var snapshots: [SnapshotInRows] = []
    init(_ name: String) { self.name = name }
}

/// The photo after a stage moved its image to a new attribute.
@Entity("Snapshot") final class SnapshotWithPicture {
    @Attribute(.unique) var label: String
    @Attribute(.externalStorage) var picture: Data?
    var album: PhotoAlbumForPicture?
    init(_ label: String) { self.label = label }
}

@Entity("PhotoAlbum") final class PhotoAlbumForPicture {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \SnapshotWithPicture.album) var snapshots: [SnapshotWithPicture] = []
    init(_ name: String) { self.name = name }
}

/// External storage on something that is not data, and with options that need the bytes in the row.
@Entity final class ExternalText {
    @Attribute(.externalStorage) var text: String = ""
    init() {}
}

@Entity final class ExternalUnique {
    @Attribute(.externalStorage, .unique) var bytes: Data = Data()
    init() {}
}

@Entity final class ExternalInGroup {
    #Unique<ExternalInGroup>([\.name, \.bytes])
    var name: String = ""
    @Attribute(.externalStorage) var bytes: Data = Data()
    init() {}
}

/// Bytes no two labels share, of a given size: every byte value, NUL included.
func imageBytes(_ label: String, size: Int) -> Data {
    var generator = SeededGenerator(state: UInt64(truncatingIfNeeded: label.utf8.reduce(5381) { ($0 &* 33) &+ Int($1) }))
    var data = Data(count: size)
    data.withUnsafeMutableBytes { buffer in
        for index in buffer.indices { buffer[index] = UInt8(truncatingIfNeeded: generator.next()) }
    }
    return data
}

@Suite("Large values in files: @Attribute(.externalStorage)")
struct ExternalStorageTests {
    static let large = 300_000
    static let small = 1_000

    static func container(_ path: String, threshold: Int? = nil) throws -> ObjectContainer {
        var configuration = StoreConfiguration.file(path)
        if let threshold { configuration.externalStorageThreshold = threshold }
        return try ObjectContainer(for: Snapshot.self, PhotoAlbum.self, configuration: configuration)
    }

    /// The names of the files in place beside the store, and in `incoming/`.
    static func files(_ path: String) -> (settled: Set<String>, incoming: Set<String>) {
        let directory = path + "-external"
        let settled = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let incoming = (try? FileManager.default.contentsOfDirectory(atPath: directory + "/incoming")) ?? []
        return (Set(settled.filter { $0 != "incoming" }), Set(incoming))
    }

    /// What the image column holds, by label: a file name (text) or the bytes' count (a blob).
    static func columns(_ path: String) throws -> [String: String] {
        let queue = try DatabaseQueue(path: path)
        return try queue.read { db in
            var result: [String: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT label, typeof(image) AS type, image FROM Snapshot") {
                let type: String = row["type"]
                let label: String = row["label"]
                switch type {
                case "text": result[label] = "file " + (row["image"] as String)
                case "blob": result[label] = "\((row["image"] as Data).count) bytes"
                default: result[label] = type
                }
            }
            return result
        }
    }

    /// The file names the rows hold.
    static func namedFiles(_ path: String) throws -> Set<String> {
        Set(try columns(path).values.filter { $0.hasPrefix("file ") }.map { String($0.dropFirst(5)) })
    }

    // MARK: Where values go

    @Test func aLargeValueIsKeptInAFileBesideTheStoreAndASmallOneInItsRow() throws {
        let path = temporaryStorePath()
        let context = try Self.container(path).newBackgroundContext()
        context.insert(Snapshot("large", image: imageBytes("large", size: Self.large)))
        context.insert(Snapshot("small", image: imageBytes("small", size: Self.small)))
        context.insert(Snapshot("none"))
        try context.save()

        let columns = try Self.columns(path)
        #expect(columns["small"] == "\(Self.small) bytes")
        #expect(columns["none"] == "null")
        let name = try #require(columns["large"].flatMap { $0.hasPrefix("file ") ? String($0.dropFirst(5)) : nil })
        #expect(Self.files(path).settled == [name])
        #expect(Self.files(path).incoming.isEmpty)
        let file = try Data(contentsOf: URL(fileURLWithPath: path + "-external/" + name))
        #expect(file == imageBytes("large", size: Self.large))
    }

    @Test func theThresholdIsTheLargestValueKeptInTheRow() throws {
        let path = temporaryStorePath()
        let context = try Self.container(path, threshold: 2_000).newBackgroundContext()
        context.insert(Snapshot("at", image: imageBytes("at", size: 2_000)))
        context.insert(Snapshot("above", image: imageBytes("above", size: 2_001)))
        try context.save()
        let columns = try Self.columns(path)
        #expect(columns["at"] == "2000 bytes")
        #expect(columns["above"]?.hasPrefix("file ") == true)
    }

    @Test func valuesReadBackFromTheirFilesAreTheBytesSaved() throws {
        let path = temporaryStorePath()
        let sizes = [0, 1, 102_400, 102_401, Self.large, 2_000_000]
        do {
            let context = try Self.container(path).newBackgroundContext()
            for size in sizes { context.insert(Snapshot("\(size)", image: imageBytes("\(size)", size: size))) }
            try context.save()
        }
        let reader = try Self.container(path).newBackgroundContext()
        let snapshots = try reader.fetch(FetchDescriptor<Snapshot>())
        #expect(snapshots.count == sizes.count)
        for snapshot in snapshots {
            let size = try #require(Int(snapshot.label))
            #expect(try snapshot.checkedValue(\.image) == imageBytes(snapshot.label, size: size))
        }
        #expect(Self.files(path).settled.count == 3)
    }

    @Test func anInMemoryStoreKeepsEveryValueInItsRow() throws {
        let container = try ObjectContainer(for: Snapshot.self, PhotoAlbum.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        context.insert(Snapshot("large", image: imageBytes("large", size: Self.large)))
        try context.save()
        let reader = container.newBackgroundContext()
        let snapshot = try #require(try reader.fetch(FetchDescriptor<Snapshot>()).first)
        #expect(snapshot.image == imageBytes("large", size: Self.large))
    }

    // MARK: Files follow their rows

    @Test func aReplacedOrDeletedValuesFileIsRemovedOnceTheNextTransactionCommits() throws {
        let path = temporaryStorePath()
        let context = try Self.container(path).newBackgroundContext()
        let first = Snapshot("first", image: imageBytes("one", size: Self.large))
        let second = Snapshot("second", image: imageBytes("two", size: Self.large))
        context.insert(first)
        context.insert(second)
        try context.save()
        let before = try Self.namedFiles(path)
        #expect(before.count == 2)

        first.image = imageBytes("three", size: Self.large)
        context.delete(second)
        try context.save()
        // The old files are named for removal in that transaction, and removed by the next one.
        context.insert(Snapshot("third"))
        try context.save()
        let after = try Self.namedFiles(path)
        #expect(after.count == 1 && after.isDisjoint(with: before))
        #expect(Self.files(path).settled == after)

        first.image = imageBytes("small", size: Self.small)
        try context.save()
        context.insert(Snapshot("fourth"))
        try context.save()
        #expect(Self.files(path).settled.isEmpty)
    }

    @Test func aBatchDeleteAndACascadeRemoveTheFilesOfTheRowsTheyDelete() throws {
        let path = temporaryStorePath()
        let context = try Self.container(path).newBackgroundContext()
        let album = PhotoAlbum("holidays")
        context.insert(album)
        for index in 0..<3 {
            let snapshot = Snapshot("in album \(index)", image: imageBytes("a\(index)", size: Self.large))
            context.insert(snapshot)
            snapshot.album = album
        }
        for index in 0..<2 { context.insert(Snapshot("loose \(index)", image: imageBytes("l\(index)", size: Self.large))) }
        try context.save()
        #expect(Self.files(path).settled.count == 5)

        context.delete(album)
        try context.save()
        try context.batchDelete(Snapshot.self, where: #Predicate { $0.label == "loose 0" })
        try context.save()
        context.insert(Snapshot("after"))
        try context.save()
        #expect(Self.files(path).settled == (try Self.namedFiles(path)))
        #expect(Self.files(path).settled.count == 1)
    }

    @Test func aSaveThatFailsLeavesNoFileBehind() throws {
        let path = temporaryStorePath()
        let container = try Self.container(path)
        let context = container.newBackgroundContext()
        context.insert(Snapshot("taken", image: imageBytes("taken", size: Self.large)))
        try context.save()
        let saved = Self.files(path).settled

        // Another context takes the label first: this save's unique row fails after its file is written.
        let other = container.newBackgroundContext()
        other.insert(Snapshot("clash", image: imageBytes("other", size: Self.small)))
        try other.save()
        context.insert(Snapshot("clash", image: imageBytes("clash", size: Self.large)))
        #expect(throws: ObjectGraphError.self) { try context.save() }
        #expect(Self.files(path).settled == saved)
        #expect(Self.files(path).incoming.isEmpty)
        #expect(try Self.namedFiles(path) == saved)
    }

    @Test func anObjectDeletedByAnotherContextStillReadsTheValueItHad() throws {
        let path = temporaryStorePath()
        let container = try Self.container(path)
        let writer = container.newBackgroundContext()
        let snapshot = Snapshot("kept", image: imageBytes("kept", size: Self.large))
        writer.insert(snapshot)
        try writer.save()
        let viewer = container.newBackgroundContext()
        let shown = try viewer.existingObject(with: snapshot.objectID, as: Snapshot.self)
        _ = shown.label

        writer.delete(snapshot)
        try writer.save()
        writer.insert(Snapshot("next"))
        try writer.save()  // removes the file
        #expect(Self.files(path).settled.isEmpty)
        #expect(shown.image == imageBytes("kept", size: Self.large))
    }

    // MARK: One answer in SQL and in Swift

    @Test func predicatesCompareAndMeasureTheBytesInSQLAndInMemoryAlike() throws {
        let path = temporaryStorePath()
        let context = try Self.container(path).newBackgroundContext()
        let sizes = ["a": 200_000, "b": 150_000, "c": 500, "d": 0]
        for (label, size) in sizes { context.insert(Snapshot(label, image: imageBytes("same", size: size))) }
        context.insert(Snapshot("e"))
        try context.save()
        // The same values again, unsaved: Swift evaluates the predicates on them.
        for (label, size) in sizes { context.insert(Snapshot("unsaved " + label, image: imageBytes("same", size: size))) }
        context.insert(Snapshot("unsaved e"))

        let wanted = imageBytes("same", size: 150_000)
        func labels(_ predicate: Predicate<Snapshot>) throws -> [String] {
            try context.fetch(FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.label)])).map(\.label)
        }
        #expect(try labels(#Predicate { $0.image == wanted }) == ["b", "unsaved b"])
        #expect(try labels(#Predicate { $0.image == nil }) == ["e", "unsaved e"])
        #expect(try labels(#Predicate { ($0.image?.count ?? -1) > 100_000 }) == ["a", "b", "unsaved a", "unsaved b"])
        #expect(try labels(#Predicate { $0.image?.isEmpty == true }) == ["d", "unsaved d"])
    }

    @Test func aPartialFetchOfTheValueReadsItWithItsRow() throws {
        let path = temporaryStorePath()
        do {
            let context = try Self.container(path).newBackgroundContext()
            context.insert(Snapshot("partial", image: imageBytes("partial", size: Self.large)))
            try context.save()
        }
        let context = try Self.container(path).newBackgroundContext()
        var descriptor = FetchDescriptor<Snapshot>()
        descriptor.propertiesToFetch = [\.label, \.image]
        let snapshot = try #require(try context.fetch(descriptor).first)
        #expect(snapshot.label == "partial")
        #expect(try snapshot.checkedValue(\.image) == imageBytes("partial", size: Self.large))
    }

    // MARK: With the rest of the object graph

    @Test func anotherContextMergesTheNewValueAndItsMonitorHearsIt() throws {
        let path = temporaryStorePath()
        let container = try Self.container(path)
        let writer = container.newBackgroundContext()
        let snapshot = Snapshot("merged", image: imageBytes("before", size: Self.large))
        writer.insert(snapshot)
        try writer.save()
        let viewer = container.newBackgroundContext()
        let shown = try viewer.existingObject(with: snapshot.objectID, as: Snapshot.self)
        #expect(shown.image == imageBytes("before", size: Self.large))
        let monitor = try #require(viewer.monitorObject(shown))
        let screen = SnapshotScreen()
        monitor.addObserver(screen)

        snapshot.image = imageBytes("after", size: Self.large)
        try writer.save()
        viewer.processPendingChanges()
        #expect(screen.changedKeys == [["image"]])
        #expect(shown.image == imageBytes("after", size: Self.large))
    }

    @Test func aChildContextsValueIsWrittenToAFileWhenItsParentSaves() throws {
        let path = temporaryStorePath()
        let container = try Self.container(path)
        let parent = container.newBackgroundContext()
        let child = parent.newChildContext()
        child.insert(Snapshot("from child", image: imageBytes("child", size: Self.large)))
        try child.save()
        #expect(Self.files(path).settled.isEmpty)
        try parent.save()
        #expect(Self.files(path).settled.count == 1)
        let reader = try Self.container(path).newBackgroundContext()
        #expect(try reader.fetch(FetchDescriptor<Snapshot>()).first?.image == imageBytes("child", size: Self.large))
    }

    @Test func undoingAReplacementAfterTheSaveBringsTheOldBytesBack() throws {
        let path = temporaryStorePath()
        let context = try Self.container(path).newBackgroundContext()
        let undoManager = ObjectUndoManager()
        context.undoManager = undoManager
        let snapshot = Snapshot("undone", image: imageBytes("old", size: Self.large))
        context.insert(snapshot)
        try context.save()
        undoManager.removeAllActions()

        snapshot.image = imageBytes("new", size: Self.large)
        try context.save()
        context.insert(Snapshot("later"))
        try context.save()  // removes the old value's file
        undoManager.undo()  // the insertion
        undoManager.undo()  // the replacement
        #expect(snapshot.image == imageBytes("old", size: Self.large))
        try context.save()
        let reader = try Self.container(path).newBackgroundContext()
        let stored = try reader.fetch(FetchDescriptor<Snapshot>(predicate: #Predicate { $0.label == "undone" })).first
        #expect(stored?.image == imageBytes("old", size: Self.large))
    }

    @Test func batchInsertsWriteFilesAndBatchUpdatesKeepTheValueInTheRows() throws {
        let path = temporaryStorePath()
        let context = try Self.container(path).newBackgroundContext()
        try context.batchInsert([
            Snapshot("batch 1", image: imageBytes("b1", size: Self.large)),
            Snapshot("batch 2", image: imageBytes("b2", size: Self.small))
        ])
        #expect(try Self.columns(path)["batch 1"]?.hasPrefix("file ") == true)
        #expect(Self.files(path).settled.count == 1)

        let shared = imageBytes("shared", size: Self.large)
        try context.batchUpdate(Snapshot.self, set: [.set(\.image, to: shared)])
        context.insert(Snapshot("next"))
        try context.save()
        #expect(try Self.columns(path)["batch 1"] == "\(Self.large) bytes")
        #expect(Self.files(path).settled.isEmpty)
        let reader = try Self.container(path).newBackgroundContext()
        #expect(try reader.fetch(FetchDescriptor<Snapshot>()).filter { $0.image == shared }.count == 2)
    }

    // MARK: Failures

    @Test func aMissingFileIsAnErrorNamingTheObjectAndAttributeNeverNil() throws {
        let path = temporaryStorePath()
        do {
            let context = try Self.container(path).newBackgroundContext()
            context.insert(Snapshot("lost", image: imageBytes("lost", size: Self.large)))
            try context.save()
        }
        for name in Self.files(path).settled { try FileManager.default.removeItem(atPath: path + "-external/" + name) }

        let context = try Self.container(path).newBackgroundContext()
        let snapshot = try #require(try context.fetch(FetchDescriptor<Snapshot>()).first)
        let error = #expect(throws: ObjectGraphError.self) { try snapshot.checkedValue(\.image) }
        #expect(error?.code == .unreadableValue)
        #expect(error?.property == "image")
        #expect(error?.objectID == snapshot.objectID)
        #expect("\(error.map { $0 } as Any)".contains("cannot be read"))
        // SQL reading the bytes fails too, rather than matching nothing.
        let wanted = Data([1])
        #expect(throws: ObjectGraphError.self) {
            try context.fetch(FetchDescriptor<Snapshot>(predicate: #Predicate { $0.image == wanted }))
        }
    }

    @Test func externalStorageIsRefusedWhereTheRowNeedsTheBytes() {
        #expect(
            invalidModelMessage { _ = try ObjectContainer(for: ExternalText.self, configuration: .inMemory) }?.contains("ExternalText.text")
                == true)
        #expect(
            invalidModelMessage { _ = try ObjectContainer(for: ExternalUnique.self, configuration: .inMemory) }?.contains(
                "cannot be unique") == true)
        #expect(
            invalidModelMessage { _ = try ObjectContainer(for: ExternalInGroup.self, configuration: .inMemory) }?.contains("#Unique")
                == true)
    }

    // MARK: Migrations

    @Test func turningExternalStorageOnKeepsRowsAndTurningItOffBringsTheFilesBack() throws {
        let path = temporaryStorePath()
        do {
            let context = try ObjectContainer(for: SnapshotInRows.self, PhotoAlbumInRows.self, configuration: .file(path))
                .newBackgroundContext()
            context.insert(SnapshotInRows("in row", image: imageBytes("row", size: Self.large)))
            try context.save()
        }
        do {
            let context = try Self.container(path).newBackgroundContext()
            #expect(try Self.columns(path)["in row"] == "\(Self.large) bytes")
            context.insert(Snapshot("in file", image: imageBytes("file", size: Self.large)))
            try context.save()
            #expect(try Self.columns(path)["in file"]?.hasPrefix("file ") == true)
        }
        let context = try ObjectContainer(for: SnapshotInRows.self, PhotoAlbumInRows.self, configuration: .file(path))
            .newBackgroundContext()
        #expect(try Self.columns(path)["in file"] == "\(Self.large) bytes")
        #expect(Self.files(path).settled.isEmpty)
        let byLabel = Dictionary(uniqueKeysWithValues: try context.fetch(FetchDescriptor<SnapshotInRows>()).map { ($0.label, $0.image) })
        #expect(byLabel["in file"] == imageBytes("file", size: Self.large))
        #expect(byLabel["in row"] == imageBytes("row", size: Self.large))
    }

    @Test func aMigrationStageReadsTheBytesOfAValueInAFileAndTheRemovedAttributesFilesGo() throws {
        let path = temporaryStorePath()
        do {
            let context = try Self.container(path).newBackgroundContext()
            context.insert(Snapshot("moved", image: imageBytes("moved", size: Self.large)))
            try context.save()
        }
        #expect(Self.files(path).settled.count == 1)
        let plan = MigrationPlan(stages: [
            MigrationStage(
                from: try Schema(Snapshot.self, PhotoAlbum.self),
                to: try Schema(SnapshotWithPicture.self, PhotoAlbumForPicture.self),
                name: "image becomes picture",
                didMigrate: { migration in
                    for var row in try migration.rows(of: "Snapshot") {
                        if case .blob(let bytes)? = row["image"] { try row.setValue(bytes, for: "picture") }
                        try migration.update(row)
                    }
                })
        ])
        let container = try ObjectContainer(
            schema: try Schema(SnapshotWithPicture.self, PhotoAlbumForPicture.self), migrationPlan: plan, configuration: .file(path))
        let snapshot = try #require(try container.newBackgroundContext().fetch(FetchDescriptor<SnapshotWithPicture>()).first)
        #expect(try snapshot.checkedValue(\.picture) == imageBytes("moved", size: Self.large))
        // The removed attribute's file went; the copy is in the row, named by no file.
        #expect(Self.files(path).settled.isEmpty)
    }

    // MARK: Crashes

    @Test func aFileLeftInIncomingByATransactionThatNeverCommittedIsRemovedOnOpen() throws {
        let path = temporaryStorePath()
        do {
            let context = try Self.container(path).newBackgroundContext()
            context.insert(Snapshot("saved", image: imageBytes("saved", size: Self.large)))
            try context.save()
        }
        let orphan = path + "-external/incoming/" + UUID().uuidString.lowercased()
        try FileManager.default.createDirectory(atPath: path + "-external/incoming", withIntermediateDirectories: true)
        try imageBytes("orphan", size: Self.large).write(to: URL(fileURLWithPath: orphan))

        _ = try Self.container(path)
        #expect(!FileManager.default.fileExists(atPath: orphan))
        #expect(Self.files(path).settled == (try Self.namedFiles(path)))
    }

    @Test func aCommittedFileStillInIncomingIsReadAndMovedIntoPlaceOnOpen() throws {
        let path = temporaryStorePath()
        do {
            let context = try Self.container(path).newBackgroundContext()
            context.insert(Snapshot("committed", image: imageBytes("committed", size: Self.large)))
            try context.save()
        }
        // As if the process stopped between the commit and the move.
        let name = try #require(Self.files(path).settled.first)
        try FileManager.default.moveItem(atPath: path + "-external/" + name, toPath: path + "-external/incoming/" + name)

        let context = try Self.container(path).newBackgroundContext()
        #expect(Self.files(path).settled == [name])
        #expect(Self.files(path).incoming.isEmpty)
        #expect(try context.fetch(FetchDescriptor<Snapshot>()).first?.image == imageBytes("committed", size: Self.large))
    }

    @Test func filesNamedForRemovalBeforeACrashAreRemovedOnOpen() throws {
        let path = temporaryStorePath()
        do {
            let context = try Self.container(path).newBackgroundContext()
            let snapshot = Snapshot("replaced", image: imageBytes("first", size: Self.large))
            context.insert(snapshot)
            try context.save()
            snapshot.image = imageBytes("second", size: Self.large)
            try context.save()  // the first file is named for removal; no transaction follows
        }
        #expect(Self.files(path).settled.count == 2)
        _ = try Self.container(path)
        #expect(Self.files(path).settled == (try Self.namedFiles(path)))
        #expect(Self.files(path).settled.count == 1)
    }

    @Test(arguments: 1...8)
    func aProcessKilledWhileSavingLeavesEveryRowWithItsFileAndNoOtherFile(seed: Int) throws {
        let path = temporaryStorePath()
        let result = try runTestProcess(["save-snapshots-until-killed", path, "\(seed)"])
        #expect(result.reason == .uncaughtSignal, "\(result.errors)")

        let context = try Self.container(path).newBackgroundContext()
        // The process may have deleted every snapshot it made: what is left is checked.
        let snapshots = try context.fetch(FetchDescriptor<Snapshot>())
        for snapshot in snapshots {
            // Each label says which bytes its image holds: "<label> <size>".
            let image = try snapshot.checkedValue(\.image)
            if let image {
                #expect(image == imageBytes(snapshot.label, size: image.count), "\(snapshot.label)")
            }
        }
        #expect(Self.files(path).incoming.isEmpty)
        #expect(Self.files(path).settled == (try Self.namedFiles(path)))
    }
}

/// Records what an ``ObjectMonitor`` of a snapshot reports.
private final class SnapshotScreen: ObjectMonitorObserver {
    var changedKeys: [Set<String>] = []

    func objectMonitor(_ monitor: ObjectMonitor<Snapshot>, didUpdateObject object: Snapshot, changedPersistentKeys: Set<String>) {
        changedKeys.append(changedPersistentKeys)
    }
}
