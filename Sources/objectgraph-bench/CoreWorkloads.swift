import Foundation
import GRDB
import ObjectGraph

/// The object graph core's workloads: insert, fetch, predicate fetch, update, batched iteration.
enum CoreWorkloads {
    /// The workloads, and the stores they read (for ``memoryReport(_:)``).
    static func make(dataset: Dataset, iterationRows: Int, files: ScratchFiles) -> (workloads: [Workload], stores: SharedStores) {
        let stores = SharedStores(dataset: dataset, files: files, name: "read")
        let large = SharedStores(
            dataset: Dataset(moodCount: iterationRows, countryCount: dataset.countryCount, textForm: dataset.textForm),
            files: files, name: "large")
        let workloads = [
            insert(dataset: dataset, files: files),
            fetchAll(stores),
            predicateFetch(stores),
            update(count: dataset.moodCount / 10, stores),
            rename(count: dataset.moodCount / 10, stores),
            iterate(large)
        ]
        return (workloads, stores)
    }

    /// What every mood fetched and held costs in memory: as ObjectGraph's objects, and as the raw
    /// side's structs. Each is measured alone, as the memory the process gains while it holds them.
    static func memoryReport(_ stores: SharedStores) throws -> String {
        try stores.fill()
        func held(_ body: () throws -> Any) throws -> Double {
            PeakMemory.releaseFreedMemory()
            let before = PeakMemory.currentMegabytes()
            let kept = try body()
            let after = PeakMemory.currentMegabytes()
            withExtendedLifetime(kept) {}
            return after - before
        }
        let objects = try held {
            let context = try stores.graph().newBackgroundContext()
            let moods = try context.fetch(FetchDescriptor<Mood>(includesMarkedForDeletion: true)).map { $0 }
            for mood in moods { ObjectGraphSide.consume(mood) }
            return (context, moods)
        }
        let structs = try held { try RawSQL.moods(stores.raw(), sql: "SELECT \(PlainSQL.moodColumns) FROM mood") }
        let residentObjects = try ResidentMemoryProbe.measure(.objects, stores: stores)
        let residentStructs = try ResidentMemoryProbe.measure(.structs, stores: stores)
        let count = Double(stores.dataset.moodCount)
        return String(
            format: "fetch memory: %d moods held, read in full, take %.1f MB as objects, %.1f MB as raw structs (%.2fx)\n"
                + "resident growth, each in a fresh process: %.1f MB as objects (%.0f bytes a mood), %.1f MB as raw structs (%.0f) (%.2fx)",
            stores.dataset.moodCount, objects, structs, objects / max(structs, 0.1),
            residentObjects, residentObjects * 1_048_576 / count, residentStructs, residentStructs * 1_048_576 / count,
            residentObjects / max(residentStructs, 0.1))
    }

    /// Insert N moods over the countries and save, each run on a fresh file.
    static func insert(dataset: Dataset, files: ScratchFiles) -> Workload {
        var graph: ObjectContainer?
        var plain: DatabasePool?
        var records: DatabasePool?
        var raw: RawDatabase?
        let range = 0..<dataset.moodCount
        return Workload(
            name: "insert \(dataset.moodCount) moods and save",
            objectGraph: Contender(
                prepare: {
                    graph = nil
                    graph = try ObjectGraphSide.openContainer(at: files.fresh("insert-graph.sqlite"))
                },
                run: { if let graph { try ObjectGraphSide.insert(range, of: dataset, into: graph) } }),
            baseline: Contender(
                prepare: {
                    plain = nil
                    plain = try PlainSQL.openDatabase(at: files.fresh("insert-plain.sqlite"))
                },
                run: { if let plain { try PlainSQL.insert(range, of: dataset, into: plain) } }),
            peer: Contender(
                prepare: {
                    records = nil
                    records = try PlainSQL.openDatabase(at: files.fresh("insert-records.sqlite"))
                },
                run: { if let records { try dataset.insertRecords(range, into: records) } }),
            raw: Contender(
                prepare: {
                    raw = nil
                    raw = try RawSQL.openFreshDatabase(at: files.fresh("insert-raw.sqlite"))
                },
                run: { if let raw { try RawSQL.insert(range, of: dataset, into: raw) } })
        ).replaying(
            StatementFloor(
                files: files, name: "insert", snapshot: { try StatementFloor.emptyStore(files: files, name: "insert") },
                body: { try ObjectGraphSide.insert(range, of: dataset, into: $0) }
            ))
    }

    /// Fetch every mood and read every attribute.
    static func fetchAll(_ stores: SharedStores) -> Workload {
        Workload(
            name: "fetch all moods, read every attribute",
            setUp: stores.fill,
            objectGraph: Contender(run: {
                let context = try stores.graph().newBackgroundContext()
                for mood in try context.fetch(FetchDescriptor<Mood>(includesMarkedForDeletion: true)) { ObjectGraphSide.consume(mood) }
            }),
            baseline: Contender(run: {
                try stores.plain().read { db in try PlainSQL.read(db, sql: "SELECT \(PlainSQL.moodColumns) FROM mood") }
            }),
            peer: Contender(run: {
                for mood in try stores.plain().read({ db in try MoodRecord.fetchAll(db) }) { mood.consume() }
            }),
            raw: Contender(run: {
                for mood in try RawSQL.moods(stores.raw(), sql: "SELECT \(PlainSQL.moodColumns) FROM mood") { mood.consume() }
            }))
    }

    /// Fetch `rating > 3 && markedForDeletionDate == nil` sorted by date, and read the results.
    static func predicateFetch(_ stores: SharedStores) -> Workload {
        let condition = "rating > 3 AND markedForDeletionDate IS NULL ORDER BY date"
        return Workload(
            name: "fetch rating > 3 && not marked, by date",
            setUp: stores.fill,
            objectGraph: Contender(run: {
                let context = try stores.graph().newBackgroundContext()
                let request = FetchDescriptor<Mood>(
                    predicate: #Predicate { $0.rating > 3 && $0.markedForDeletionDate == nil },
                    sortBy: [SortDescriptor(\.date)])
                for mood in try context.fetch(request) { ObjectGraphSide.consume(mood) }
            }),
            baseline: Contender(run: {
                try stores.plain().read { db in
                    try PlainSQL.read(db, sql: "SELECT \(PlainSQL.moodColumns) FROM mood WHERE \(condition)")
                }
            }),
            peer: Contender(run: {
                let moods = try stores.plain().read { db in
                    try MoodRecord.filter(sql: "rating > 3 AND markedForDeletionDate IS NULL").order(sql: "date").fetchAll(db)
                }
                for mood in moods { mood.consume() }
            }),
            raw: Contender(run: {
                for mood in try RawSQL.moods(stores.raw(), sql: "SELECT \(PlainSQL.moodColumns) FROM mood WHERE \(condition)") {
                    mood.consume()
                }
            }))
    }

    /// Change the rating of `count` moods and save.
    static func update(count: Int, _ stores: SharedStores) -> Workload {
        Workload(
            name: "update \(count) moods and save",
            setUp: stores.fill,
            objectGraph: Contender(run: { try updateMoods(count: count, in: stores.graph()) }),
            baseline: Contender(run: {
                try stores.plain().write { db in
                    let rows = try Row.fetchAll(db, sql: "SELECT id, rating FROM mood LIMIT ?", arguments: [count])
                    let update = try db.makeStatement(sql: "UPDATE mood SET rating = ? WHERE id = ?")
                    for row in rows {
                        let rating: Int = row[1]
                        let id: Int64 = row[0]
                        try update.execute(arguments: [rating % 5 + 1, id])
                    }
                }
            }),
            peer: Contender(run: {
                try stores.plain().write { db in
                    for var mood in try MoodRecord.limit(count).fetchAll(db) {
                        mood.rating = mood.rating % 5 + 1
                        try mood.update(db)
                    }
                }
            }),
            raw: Contender(run: { try RawSQL.update(count: count, in: stores.raw()) })
        ).replaying(
            StatementFloor(
                files: stores.files, name: "update",
                snapshot: { try StatementFloor.backup(of: stores.graphPath, files: stores.files, name: "update") },
                body: { try updateMoods(count: count, in: $0) }
            ))
    }

    /// The update's ObjectGraph side: the first `count` moods get the next rating.
    private static func updateMoods(count: Int, in container: ObjectContainer) throws {
        let context = container.newBackgroundContext()
        for mood in try context.fetch(FetchDescriptor<Mood>(fetchLimit: count, includesMarkedForDeletion: true)) {
            mood.rating = mood.rating % 5 + 1
        }
        try context.save()
    }

    /// Change the text of `count` moods and save, then give them their text back (so that every run
    /// writes the same texts): what storing text precomposed costs at an update, with `--text`.
    static func rename(count: Int, _ stores: SharedStores) -> Workload {
        let dataset = stores.dataset
        return Workload(
            name: "rename \(count) moods and save",
            setUp: stores.fill,
            objectGraph: Contender(run: {
                let context = try stores.graph().newBackgroundContext()
                let moods = try context.fetch(FetchDescriptor<Mood>(fetchLimit: count, includesMarkedForDeletion: true))
                for (index, mood) in moods.enumerated() { mood.text = dataset.renamedText(index) }
                try context.save()
                for (index, mood) in moods.enumerated() { mood.text = dataset.text(index) }
                try context.save()
            }),
            baseline: Contender(run: {
                for text in [dataset.renamedText, dataset.text] {
                    try stores.plain().write { db in
                        let ids = try Int64.fetchAll(db, sql: "SELECT id FROM mood LIMIT ?", arguments: [count])
                        let update = try db.makeStatement(sql: "UPDATE mood SET text = ? WHERE id = ?")
                        for (index, id) in ids.enumerated() { try update.execute(arguments: [text(index), id]) }
                    }
                }
            }),
            peer: Contender(run: {
                for text in [dataset.renamedText, dataset.text] {
                    try stores.plain().write { db in
                        for (index, var mood) in try MoodRecord.limit(count).fetchAll(db).enumerated() {
                            mood.text = text(index)
                            try mood.update(db)
                        }
                    }
                }
            }),
            raw: Contender(run: {
                for text in [dataset.renamedText, dataset.text] { try RawSQL.rename(count: count, to: text, in: stores.raw()) }
            }))
    }

    /// Iterate over every mood of a large store with a fetch batch size of 1,000, reading every attribute.
    static func iterate(_ stores: SharedStores) -> Workload {
        Workload(
            name: "iterate \(stores.dataset.moodCount) moods, batches of 1000",
            setUp: stores.fill,
            objectGraph: Contender(run: {
                let context = try stores.graph().newBackgroundContext()
                for mood in try context.fetch(FetchDescriptor<Mood>(fetchBatchSize: 1_000, includesMarkedForDeletion: true)) {
                    ObjectGraphSide.consume(mood)
                }
            }),
            baseline: Contender(run: {
                try stores.plain().read { db in try PlainSQL.read(db, sql: "SELECT \(PlainSQL.moodColumns) FROM mood") }
            }),
            peer: Contender(run: {
                try stores.plain().read { db in
                    let moods = try MoodRecord.fetchCursor(db)
                    while let mood = try moods.next() { mood.consume() }
                }
            }),
            raw: Contender(run: { try RawSQL.iterate(stores.raw(), sql: "SELECT \(PlainSQL.moodColumns) FROM mood") }))
    }
}

/// A pair of stores (ObjectGraph's and the plain one) holding a dataset, filled on first use and shared
/// by the workloads that only read them (the update workload writes the same values back in turn).
final class SharedStores {
    let dataset: Dataset
    let files: ScratchFiles
    private let name: String
    private var filled: (graph: ObjectContainer, plain: DatabasePool)?
    private var rawDatabase: RawDatabase?

    init(dataset: Dataset, files: ScratchFiles, name: String) {
        self.dataset = dataset
        self.files = files
        self.name = name
    }

    /// Fills both stores the first time; untimed.
    func fill() throws {
        _ = try stores()
    }

    func graph() throws -> ObjectContainer { try stores().graph }

    /// ObjectGraph's file, for a container of another configuration.
    var graphPath: String { files.path("\(name)-graph.sqlite") }

    /// The plain store's file, for another connection (another process's).
    var plainPath: String { files.path("\(name)-plain.sqlite") }

    func plain() throws -> DatabasePool { try stores().plain }

    /// The plain store's file, opened through SQLite's C API (a connection of its own).
    func raw() throws -> RawDatabase {
        if let rawDatabase { return rawDatabase }
        _ = try stores()
        let opened = try RawDatabase(path: files.path("\(name)-plain.sqlite"))
        rawDatabase = opened
        return opened
    }

    private func stores() throws -> (graph: ObjectContainer, plain: DatabasePool) {
        if let filled { return filled }
        let graph = try ObjectGraphSide.openContainer(at: graphPath)
        // In chunks, so that setting up a large store does not hold it all in memory.
        for start in stride(from: 0, to: dataset.moodCount, by: 100_000) {
            try ObjectGraphSide.insert(start..<min(dataset.moodCount, start + 100_000), of: dataset, into: graph)
        }
        let plain = try PlainSQL.openDatabase(at: files.path("\(name)-plain.sqlite"))
        try PlainSQL.insert(0..<dataset.moodCount, of: dataset, into: plain)
        filled = (graph, plain)
        return (graph, plain)
    }
}
