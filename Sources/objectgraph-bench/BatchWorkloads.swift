import Foundation
import GRDB
import ObjectGraph

/// Issue 12's workloads: a batch deletion merged into live contexts, reading the history, and the
/// delay before another writer's save reaches a context.
enum BatchWorkloads {
    static let liveContextCount = 3

    static func make(dataset: Dataset, files: ScratchFiles) -> [Workload] {
        let templates = TemplateStores(dataset: dataset, files: files)
        return [batchDelete(templates), historyRead(count: dataset.moodCount / 10, files: files), otherWriterDelay(files: files)]
    }

    /// Batch-delete the marked fifth of the moods, with three contexts holding faults for all of them,
    /// until every context has merged the deletion.
    static func batchDelete(_ templates: TemplateStores) -> Workload {
        let dataset = templates.dataset
        let marked = dataset.moodCount / 5
        let cutoff = Dataset.epoch.addingTimeInterval(1)
        let markDate = Dataset.epoch.timeIntervalSince1970
        var graph: ObjectContainer?
        var contexts: [ObjectContext] = []
        var held: [[any Entity]] = []
        var plain: DatabasePool?
        var records: DatabasePool?
        var raw: RawDatabase?
        return Workload(
            name: "batch-delete \(marked) of \(dataset.moodCount) marked moods, merged into \(liveContextCount) contexts",
            setUp: templates.fill,
            objectGraph: Contender(
                prepare: {
                    (graph, contexts, held) = (nil, [], [])
                    let container = try templates.graphCopy("batch-delete")
                    // The same fifth as the plain side's: every fifth row, from the first.
                    let all = try container.newBackgroundContext().fetchIdentifiers(
                        FetchDescriptor<Mood>(includesMarkedForDeletion: true))
                    let ids = stride(from: 0, to: all.count, by: 5).map { all[$0] }
                    try container.newBackgroundContext().batchUpdate(
                        Mood.self, where: #Predicate { ids.contains($0.objectID) },
                        set: [.set(\.markedForDeletionDate, to: Date(timeIntervalSince1970: markDate))])
                    try WorkloadError.check("moods marked", ids.count, marked)
                    contexts = (0..<liveContextCount).map { _ in container.newBackgroundContext() }
                    held = contexts.map { context in ids.compactMap { context.object(with: $0) } }
                    graph = container
                },
                run: {
                    guard let graph else { return }
                    let context = graph.newBackgroundContext()
                    try context.batchDelete(
                        Mood.self,
                        where: #Predicate { mood in
                            mood.markedForDeletionDate.flatMap { $0 < cutoff } ?? false
                        })
                    for context in contexts { context.processPendingChanges() }
                },
                verify: {
                    try WorkloadError.check(
                        "held objects deleted", held.map { $0.count { $0.isDeleted } },
                        Array(repeating: marked, count: liveContextCount))
                    try graph.map {
                        try ObjectGraphSide.verifyCounts(
                            in: $0, continents: 1, countries: dataset.countryCount,
                            moods: dataset.moodCount - marked)
                    }
                }),
            baseline: Contender(
                prepare: {
                    plain = nil; plain = try markedPlainCopy(templates, "batch-delete-plain", date: markDate)
                },
                run: {
                    try plain?.write { db in
                        try db.execute(sql: "DELETE FROM mood WHERE markedForDeletionDate < ?", arguments: [cutoff.timeIntervalSince1970])
                    }
                },
                verify: {
                    try plain.map {
                        try PlainSQL.verifyCounts(
                            in: $0, continents: 1, countries: dataset.countryCount,
                            moods: dataset.moodCount - marked)
                    }
                }),
            peer: Contender(
                prepare: {
                    records = nil; records = try markedPlainCopy(templates, "batch-delete-records", date: markDate)
                },
                run: {
                    try records?.write { db in
                        _ = try MoodRecord.filter(Column("markedForDeletionDate") < cutoff).deleteAll(db)
                    }
                },
                verify: {
                    try records.map {
                        try PlainSQL.verifyCounts(
                            in: $0, continents: 1, countries: dataset.countryCount,
                            moods: dataset.moodCount - marked)
                    }
                }),
            raw: Contender(
                prepare: {
                    raw = nil
                    _ = try markedPlainCopy(templates, "batch-delete-raw", date: markDate)  // closed when released
                    raw = try templates.rawDatabase("batch-delete-raw")
                },
                run: {
                    try raw?.transaction {
                        try raw?.execute("DELETE FROM mood WHERE markedForDeletionDate < \(cutoff.timeIntervalSince1970)")
                    }
                },
                verify: {
                    try raw.map {
                        try RawSQL.verifyCounts(
                            in: $0, continents: 1, countries: dataset.countryCount, moods: dataset.moodCount - marked)
                    }
                }))
    }

    /// A copy of the plain template with the same fifth of the moods marked, and the index on the
    /// mark that ObjectGraph's store has.
    private static func markedPlainCopy(_ templates: TemplateStores, _ name: String, date: Double) throws -> DatabasePool {
        let pool = try templates.plainCopy(name)
        try pool.write { db in
            try db.execute(sql: "UPDATE mood SET markedForDeletionDate = ? WHERE (id - 1) % 5 = 0", arguments: [date])
            try db.execute(sql: "CREATE INDEX IF NOT EXISTS mood_marked ON mood(markedForDeletionDate)")
        }
        return pool
    }

    /// Read `count` transactions of one updated mood each, with their changes.
    static func historyRead(count: Int, files: ScratchFiles) -> Workload {
        var graph: ObjectContainer?
        var plain: DatabasePool?
        var raw: RawDatabase?
        return Workload(
            name: "history: read \(count) transactions",
            setUp: {
                let container = try ObjectGraphSide.openContainer(at: files.fresh("history.sqlite"))
                let context = container.newBackgroundContext()
                context.name = "writer"
                let mood = Mood(text: "edited")
                context.insert(mood)
                try context.save()
                for rating in 1..<count {
                    mood.rating = rating % 5 + 1
                    try context.save()
                }
                graph = container
                plain = try DatabasePool(path: files.path("history.sqlite"))
                raw = try RawDatabase(path: files.path("history.sqlite"))
            },
            objectGraph: Contender(
                run: { Sink.checksum &+= try graph?.fetchHistory().reduce(0) { $0 + $1.changes.count } ?? 0 },
                verify: { try WorkloadError.check("transactions", try graph?.fetchHistory().count, count) }),
            // The other sides read what ObjectGraph's does: the transactions, their records with the
            // keys unpacked, and the global IDs of updated objects from their rows.
            baseline: Contender(run: {
                try plain?.read { db in
                    var total = 0
                    for row in try Row.fetchAll(db, sql: "SELECT Z_SEQUENCE, Z_AUTHOR, Z_TIMESTAMP FROM Z_TRANSACTION ORDER BY Z_SEQUENCE")
                    {
                        total &+= row[0] as Int64 == 0 ? 0 : 1
                    }
                    var updated: Set<Int64> = []
                    for row in try Row.fetchAll(
                        db, sql: "SELECT Z_SEQUENCE, Z_ENTITY, Z_KIND, Z_KEYS, Z_COUNT, Z_PKS, Z_UUIDS FROM Z_CHANGE")
                    {
                        let keys = (row[5] as Data).withUnsafeBytes { PackedKeys.unpack($0) }
                        if row[6] == nil { updated.formUnion(keys) }
                        total &+= (row[3] as String?)?.utf8.count ?? 0
                    }
                    for row in try Row.fetchAll(db, sql: "SELECT Z_PK, Z_UUID FROM Mood WHERE Z_PK IN \(PackedKeys.list(updated))") {
                        total &+= (row[1] as Data).count
                    }
                    Sink.checksum &+= total
                }
            }),
            peer: Contender(run: {
                try plain?.read { db in
                    let records = try ChangeRecord.fetchAll(db)
                    let updated = Set(records.filter { $0.Z_UUIDS == nil }.flatMap { $0.Z_PKS.withUnsafeBytes { PackedKeys.unpack($0) } })
                    Sink.checksum &+=
                        try TransactionRecord.fetchAll(db).count + records.count
                        + GlobalIDRecord.filter(keys: updated).fetchAll(db).count
                }
            }),
            raw: Contender(run: {
                guard let db = raw else { return }
                try db.read {
                    var total = 0
                    let transactions = try db.prepare("SELECT Z_SEQUENCE, Z_AUTHOR, Z_TIMESTAMP FROM Z_TRANSACTION ORDER BY Z_SEQUENCE")
                    while try transactions.step() {
                        // Every column read, as the other sides' rows are.
                        let (sequence, author, timestamp) = (transactions.int64(0), transactions.text(1), transactions.double(2))
                        total &+= (sequence == 0 ? 0 : 1) &+ (author?.utf8.count ?? 0) &+ Int(timestamp)
                    }
                    var updated: Set<Int64> = []
                    let records = try db.prepare("SELECT Z_SEQUENCE, Z_ENTITY, Z_KIND, Z_KEYS, Z_COUNT, Z_PKS, Z_UUIDS FROM Z_CHANGE")
                    while try records.step() {
                        let keys = records.withBlob(5) { PackedKeys.unpack($0) }
                        if records.isNull(6) { updated.formUnion(keys) }
                        total &+= records.text(3)?.utf8.count ?? 0
                    }
                    let globalIDs = try db.prepare("SELECT Z_PK, Z_UUID FROM Mood WHERE Z_PK IN \(PackedKeys.list(updated))")
                    while try globalIDs.step() { total &+= globalIDs.withBlob(1) { $0.count } }
                    Sink.checksum &+= total
                }
            }))
    }

    /// Save one change in another container on the same file, until this container's context has
    /// merged it (the watcher looks every 20 milliseconds by default). The baseline is a hand-made
    /// watcher: a second connection asking SQLite's `data_version` every millisecond.
    static func otherWriterDelay(files: ScratchFiles) -> Workload {
        var here: ObjectContainer?
        var there: ObjectContainer?
        var watched: Mood?
        var context: ObjectContext?
        var observer: ObjectObserver<Mood>?
        var merged = false
        var plainWriter: DatabasePool?
        var plainReader: DatabaseQueue?
        var rawWriter: RawDatabase?
        var rawReader: RawDatabase?
        var rating = 1
        return Workload(
            name: "another writer's save, until merged here",
            setUp: {
                let path = files.fresh("shared.sqlite")
                here = try ObjectGraphSide.openContainer(at: path)
                there = try ObjectGraphSide.openContainer(at: path)
                let local = here?.newBackgroundContext()
                let mood = Mood(text: "watched")
                local?.insert(mood)
                try local?.save()
                (context, watched) = (local, mood)
                observer = ObjectObserver(mood) { _ in merged = true }
                let plainPath = files.fresh("shared-plain.sqlite")
                plainWriter = try PlainSQL.openDatabase(at: plainPath)
                try PlainSQL.insert(0..<1, of: Dataset(moodCount: 1, countryCount: 1), into: plainWriter!)
                plainReader = try DatabaseQueue(path: plainPath)
                let rawPath = files.fresh("shared-raw.sqlite")
                rawWriter = try RawSQL.openFreshDatabase(at: rawPath)
                if let rawWriter { try RawSQL.insert(0..<1, of: Dataset(moodCount: 1, countryCount: 1), into: rawWriter) }
                rawReader = try RawDatabase(path: rawPath)
            },
            objectGraph: Contender(
                prepare: {
                    merged = false; rating = rating % 5 + 1
                },
                run: {
                    guard let there, let watched else { return }
                    let elsewhere = there.newBackgroundContext()
                    try elsewhere.existingObject(with: watched.objectID, as: Mood.self).rating = rating
                    try elsewhere.save()
                    while !merged {
                        Thread.sleep(forTimeInterval: 0.000_2)
                        context?.processPendingChanges()
                    }
                },
                verify: {
                    try WorkloadError.check("observed", observer != nil, true)
                    try WorkloadError.check("rating merged", watched?.rating, rating)
                }),
            baseline: Contender(run: {
                guard let plainWriter, let plainReader else { return }
                let version = try plainReader.read { try Int.fetchOne($0, sql: "PRAGMA data_version") }
                try plainWriter.write { try $0.execute(sql: "UPDATE mood SET rating = rating % 5 + 1") }
                while try plainReader.read({ try Int.fetchOne($0, sql: "PRAGMA data_version") }) == version {
                    Thread.sleep(forTimeInterval: 0.001)
                }
            }),
            peer: Contender(run: {}),
            raw: Contender(run: {
                guard let rawWriter, let rawReader else { return }
                let version = try RawSQL.integer(rawReader, sql: "PRAGMA data_version")
                try rawWriter.transaction { try rawWriter.execute("UPDATE mood SET rating = rating % 5 + 1") }
                while try RawSQL.integer(rawReader, sql: "PRAGMA data_version") == version {
                    Thread.sleep(forTimeInterval: 0.001)
                }
            }))
    }
}

struct TransactionRecord: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "Z_TRANSACTION"
    var Z_SEQUENCE: Int64
    var Z_AUTHOR: String?
    var Z_TIMESTAMP: Double
}

struct ChangeRecord: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "Z_CHANGE"
    var Z_SEQUENCE: Int64
    var Z_ENTITY: String
    var Z_KIND: Int
    var Z_KEYS: String?
    var Z_COUNT: Int
    var Z_PKS: Data
    var Z_UUIDS: Data?
}

struct GlobalIDRecord: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "Mood"
    var Z_PK: Int64
    var Z_UUID: Data
}

/// The keys of a history record, as ObjectGraph packs them (runs of consecutive keys, each its
/// zigzag distance from the previous run and its length less one, as LEB128 varints), read by
/// plain code as a C program would.
enum PackedKeys {
    static func unpack(_ bytes: UnsafeRawBufferPointer) -> [Int64] {
        var keys: [Int64] = []
        var offset = 0
        var previous: Int64 = 0
        func varint() -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while offset < bytes.count {
                let byte = bytes[offset]
                offset += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { break }
                shift += 7
            }
            return value
        }
        while offset < bytes.count {
            let zigzag = varint()
            let start = previous &+ (Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1))
            let extra = Int64(varint())
            for step in 0...extra { keys.append(start &+ step) }
            previous = start &+ extra
        }
        return keys
    }

    /// `(1, 2, …)`, for keys from the store itself.
    static func list(_ keys: Set<Int64>) -> String {
        "(" + keys.map(String.init).joined(separator: ", ") + ")"
    }
}

extension GlobalIDRecord {
    static func filter(keys: Set<Int64>) -> QueryInterfaceRequest<GlobalIDRecord> {
        filter(keys.contains(Column("Z_PK")))
    }
}
