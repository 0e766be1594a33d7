import Foundation
import GRDB
import ObjectGraph

/// Issue 4's workloads: a save reaching five other contexts, and a merge that concerns a context not
/// at all.
///
/// Merging makes what a context holds stale; it does not read the store (a refreshed object reads its
/// row when next used). The baseline and the peer therefore do the equivalent by hand: they write the
/// rows, then drop the changed rows from caches of what they read, keyed by row ID.
enum MergeWorkloads {
    static let readerCount = 5

    static func make(dataset: Dataset, files: ScratchFiles) -> [Workload] {
        let stores = SharedStores(dataset: dataset, files: files, name: "merge")
        let count = dataset.moodCount / 10
        return [saveIntoLiveContexts(count: count, stores), unrelatedMerge(count: count, stores)]
    }

    /// Update `count` moods in a background context and save, with five other contexts holding
    /// faults for all of them and observing their changes; done when every one of them has merged.
    static func saveIntoLiveContexts(count: Int, _ stores: SharedStores) -> Workload {
        var scene: Scene?
        var plain = PlainSide()
        var records = RecordSide()
        var raw = RawSide()
        return Workload(
            name: "save \(count) updated moods, merged into \(readerCount) contexts",
            setUp: {
                try stores.fill()
                scene = try Scene(
                    container: stores.graph(), changing: 0..<count,
                    heldByReaders: Array(repeating: 0..<count, count: readerCount))
            },
            objectGraph: Contender(
                prepare: { scene?.changeRatings() },
                run: {
                    guard let scene else { return }
                    try scene.writer.save()
                    for reader in scene.readers { reader.processPendingChanges() }
                },
                verify: {
                    guard let scene else { return }
                    try WorkloadError.check(
                        "objects refreshed per context", scene.refreshedCounts,
                        Array(repeating: count, count: readerCount))
                    try WorkloadError.check("unsaved changes", scene.writer.hasChanges, false)
                }),
            baseline: Contender(
                prepare: { try plain.prepare(stores.plain(), changing: count, caches: readerCount) },
                run: { try plain.run(stores.plain()) },
                verify: { try WorkloadError.check("cached rows left", plain.cachedRowCount, 0) }),
            peer: Contender(
                prepare: { try records.prepare(stores.plain(), changing: count, caches: readerCount) },
                run: { try records.run(stores.plain()) },
                verify: { try WorkloadError.check("cached records left", records.cachedRecordCount, 0) }),
            raw: Contender(
                prepare: { try raw.prepare(stores.raw(), changing: count, caches: readerCount) },
                run: { try raw.run(stores.raw()) },
                verify: { try WorkloadError.check("cached rows left", raw.cachedRowCount, 0) }))
    }

    /// The cost, to a context holding `count` moods, of merging a save of `count` other moods: it
    /// must follow what the context holds of the save (nothing), not the size of the save's tables.
    static func unrelatedMerge(count: Int, _ stores: SharedStores) -> Workload {
        var scene: Scene?
        var plain = PlainSide()
        var records = RecordSide()
        var raw = RawSide()
        let held = count..<(2 * count)
        let heldRowIDs = Int64(held.lowerBound + 1)...Int64(held.upperBound)  // row IDs start at 1
        return Workload(
            name: "merge a \(count)-mood save touching none of a context's \(count)",
            setUp: {
                try stores.fill()
                scene = try Scene(container: stores.graph(), changing: 0..<count, heldByReaders: [held])
            },
            objectGraph: Contender(
                prepare: {
                    scene?.changeRatings()
                    try scene?.writer.save()  // untimed: only the merge is measured
                },
                run: { scene?.readers.first?.processPendingChanges() },
                verify: {
                    guard let scene else { return }
                    try WorkloadError.check("changes posted", scene.postedChanges, 0)
                    try WorkloadError.check("objects still faults", scene.heldFaultCount, count)
                }),
            baseline: Contender(
                prepare: { try plain.prepare(stores.plain(), changing: count, caches: 1, cachedRows: heldRowIDs) },
                run: { plain.invalidateCaches() },
                verify: { try WorkloadError.check("cached rows left", plain.cachedRowCount, count) }),
            peer: Contender(
                prepare: { try records.prepare(stores.plain(), changing: count, caches: 1, cachedRows: heldRowIDs) },
                run: { records.invalidateCaches() },
                verify: { try WorkloadError.check("cached records left", records.cachedRecordCount, count) }),
            raw: Contender(
                prepare: { try raw.prepare(stores.raw(), changing: count, caches: 1, cachedRows: heldRowIDs) },
                run: { raw.invalidateCaches() },
                verify: { try WorkloadError.check("cached rows left", raw.cachedRowCount, count) }))
    }

    /// A writer holding the moods it changes, and readers holding faults for moods and counting what
    /// their ``ObjectsDidChange`` tell.
    final class Scene {
        let writer: ObjectContext
        let readers: [ObjectContext]
        private let moods: [Mood]
        private let held: [[any Entity]]
        private var tokens: [ObservationToken] = []
        private(set) var refreshedCounts: [Int]
        private(set) var postedChanges = 0

        /// Moods are named by their position in the store's order (the order they were inserted in).
        init(container: ObjectContainer, changing changed: Range<Int>, heldByReaders: [Range<Int>]) throws {
            writer = container.newBackgroundContext()
            moods = try writer.fetch(
                FetchDescriptor<Mood>(fetchLimit: changed.count, fetchOffset: changed.lowerBound, includesMarkedForDeletion: true)
            ).map { $0 }
            readers = heldByReaders.map { _ in container.newBackgroundContext() }
            held = try zip(readers, heldByReaders).map { reader, range in
                let ids = try reader.fetchIdentifiers(
                    FetchDescriptor<Mood>(fetchLimit: range.count, fetchOffset: range.lowerBound, includesMarkedForDeletion: true))
                return ids.compactMap { reader.object(with: $0) }
            }
            refreshedCounts = Array(repeating: 0, count: readers.count)
            for (index, reader) in readers.enumerated() {
                tokens.append(
                    reader.observeObjectsDidChange { [unowned self] change in
                        refreshedCounts[index] += change.refreshedObjects.count
                        postedChanges += 1
                    })
            }
        }

        /// Gives every writer mood another rating, so that each save writes them all.
        func changeRatings() {
            refreshedCounts = Array(repeating: 0, count: readers.count)
            postedChanges = 0
            for mood in moods { mood.rating = mood.rating % 5 + 1 }
        }

        var heldFaultCount: Int {
            held.reduce(0) { $0 + $1.count { $0.isFault } }
        }
    }

    /// The baseline's side: rows updated with a prepared statement, then dropped from caches of rows.
    struct PlainSide {
        private var changes: [(id: Int64, rating: Int)] = []
        private var caches: [[Int64: Row]] = []

        var cachedRowCount: Int { caches.reduce(0) { $0 + $1.count } }

        /// Reads the rows to change and fills the caches with `cachedRows` (the changed ones by default).
        mutating func prepare(
            _ pool: DatabasePool, changing count: Int, caches cacheCount: Int,
            cachedRows: ClosedRange<Int64>? = nil
        ) throws {
            let (changes, cached) = try pool.read { db in
                let changes = try Row.fetchAll(db, sql: "SELECT id, rating FROM mood ORDER BY id LIMIT ?", arguments: [count])
                    .map { (id: $0[0] as Int64, rating: $0[1] as Int % 5 + 1) }
                let range = cachedRows ?? (changes.first?.id ?? 0)...(changes.last?.id ?? 0)
                let rows = try Row.fetchAll(
                    db, sql: "SELECT \(PlainSQL.moodColumns) FROM mood WHERE id BETWEEN ? AND ?",
                    arguments: [range.lowerBound, range.upperBound])
                return (changes, Dictionary(uniqueKeysWithValues: rows.map { ($0[0] as Int64, $0) }))
            }
            self.changes = changes
            caches = Array(repeating: cached, count: cacheCount)
        }

        mutating func run(_ pool: DatabasePool) throws {
            try pool.write { db in
                let update = try db.makeStatement(sql: "UPDATE mood SET rating = ? WHERE id = ?")
                for change in changes { try update.execute(arguments: [change.rating, change.id]) }
            }
            invalidateCaches()
        }

        mutating func invalidateCaches() {
            for index in caches.indices {
                for change in changes { caches[index].removeValue(forKey: change.id) }
            }
        }
    }

    /// The raw side: rows written through SQLite's C API, then dropped from caches of structs.
    struct RawSide {
        private var changes: [(id: Int64, rating: Int64)] = []
        private var caches: [[Int64: RawMood]] = []

        var cachedRowCount: Int { caches.reduce(0) { $0 + $1.count } }

        mutating func prepare(
            _ db: RawDatabase, changing count: Int, caches cacheCount: Int, cachedRows: ClosedRange<Int64>? = nil
        ) throws {
            let changed = try RawSQL.moods(db, sql: "SELECT \(PlainSQL.moodColumns) FROM mood ORDER BY id LIMIT \(count)")
            changes = changed.map { (id: $0.id, rating: Int64($0.rating % 5 + 1)) }
            let range = cachedRows ?? (changes.first?.id ?? 0)...(changes.last?.id ?? 0)
            let rows = try RawSQL.moods(
                db, sql: "SELECT \(PlainSQL.moodColumns) FROM mood WHERE id BETWEEN \(range.lowerBound) AND \(range.upperBound)")
            caches = Array(repeating: Dictionary(uniqueKeysWithValues: rows.map { ($0.id, $0) }), count: cacheCount)
        }

        mutating func run(_ db: RawDatabase) throws {
            try db.transaction {
                let update = try db.prepare("UPDATE mood SET rating = ? WHERE id = ?")
                for change in changes {
                    try update.bind(change.rating, at: 1)
                    try update.bind(change.id, at: 2)
                    try update.run()
                }
            }
            invalidateCaches()
        }

        mutating func invalidateCaches() {
            for index in caches.indices {
                for change in changes { caches[index].removeValue(forKey: change.id) }
            }
        }
    }

    /// The peer's side: records updated, then dropped from caches of records.
    struct RecordSide {
        private var changed: [MoodRecord] = []
        private var caches: [[Int64: MoodRecord]] = []

        var cachedRecordCount: Int { caches.reduce(0) { $0 + $1.count } }

        mutating func prepare(
            _ pool: DatabasePool, changing count: Int, caches cacheCount: Int,
            cachedRows: ClosedRange<Int64>? = nil
        ) throws {
            let (changed, cached) = try pool.read { db in
                let changed = try MoodRecord.order(Column("id")).limit(count).fetchAll(db).map { record in
                    var record = record
                    record.rating = record.rating % 5 + 1
                    return record
                }
                let range = cachedRows ?? (changed.first?.id ?? 0)...(changed.last?.id ?? 0)
                let cached = try MoodRecord.filter(range.contains(Column("id"))).fetchAll(db)
                return (changed, Dictionary(uniqueKeysWithValues: cached.map { ($0.id ?? 0, $0) }))
            }
            self.changed = changed
            caches = Array(repeating: cached, count: cacheCount)
        }

        mutating func run(_ pool: DatabasePool) throws {
            try pool.write { db in
                for record in changed { try record.update(db) }
            }
            invalidateCaches()
        }

        mutating func invalidateCaches() {
            for index in caches.indices {
                for record in changed { caches[index].removeValue(forKey: record.id ?? 0) }
            }
        }
    }
}
