import Foundation
import GRDB
import ObjectGraph
import Synchronization

/// A list of moods showing their countries: ObjectGraph with and without
/// `relationshipKeyPathsForPrefetching`, against a join.
enum PrefetchWorkloads {
    static let listLength = 1_000

    static func make(_ stores: SharedStores) -> [Workload] {
        [list(stores, prefetching: true), list(stores, prefetching: false)]
    }

    /// The newest moods with their country's name.
    static func request(prefetching: Bool) -> FetchDescriptor<Mood> {
        var request = FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.date, order: .reverse)], fetchLimit: listLength)
        if prefetching { request.relationshipKeyPathsForPrefetching = [\.country] }
        return request
    }

    static func consume(_ text: String, _ country: String?) {
        Sink.checksum &+= text.utf8.count &+ (country?.utf8.count ?? 0)
    }

    static let joinSQL = """
        SELECT mood.text, country.name FROM mood LEFT JOIN country ON country.id = mood.countryId
        WHERE mood.markedForDeletionDate IS NULL ORDER BY mood.date DESC LIMIT \(listLength)
        """

    static func list(_ stores: SharedStores, prefetching: Bool) -> Workload {
        Workload(
            name: "list \(listLength) moods with their countries, \(prefetching ? "prefetched" : "not prefetched")",
            setUp: stores.fill,
            objectGraph: Contender(run: {
                let context = try stores.graph().newBackgroundContext()
                for mood in try context.fetch(request(prefetching: prefetching)) { consume(mood.text, mood.country?.name) }
            }),
            baseline: Contender(run: {
                try stores.plain().read { db in
                    let rows = try Row.fetchCursor(db.cachedStatement(sql: joinSQL))
                    while let row = try rows.next() { consume(row[0], row[1]) }
                }
            }),
            peer: Contender(run: {
                try stores.plain().read { db in
                    let moods = try MoodRecord.filter(sql: "markedForDeletionDate IS NULL").order(sql: "date DESC")
                        .limit(listLength).fetchAll(db)
                    let ids = Set(moods.compactMap(\.countryId))
                    let names = Dictionary(
                        uniqueKeysWithValues: try CountryRecord.filter(keys: ids).fetchAll(db).compactMap { country in
                            country.id.map { ($0, country.name) }
                        })
                    for mood in moods { consume(mood.text, mood.countryId.flatMap { names[$0] }) }
                }
            }),
            raw: Contender(run: {
                let db = try stores.raw()
                try db.read {
                    let statement = try db.prepare(joinSQL)
                    while try statement.step() { consume(statement.text(0) ?? "", statement.text(1)) }
                    try statement.reset()
                }
            }))
    }

    /// The statements each form of the list runs, counted on a container of its own that traces them.
    static func queryReport(_ stores: SharedStores) throws -> String {
        try stores.fill()
        let counts = try [true, false].map { prefetching -> Int in
            let count = Mutex(0)
            var configuration = StoreConfiguration.file(stores.graphPath)
            configuration.traceStatements = { sql in if sql.hasPrefix("SELECT") { count.withLock { $0 += 1 } } }
            configuration.historyPollingInterval = nil
            let context = try ObjectContainer(for: Mood.self, configuration: configuration).newBackgroundContext()
            count.withLock { $0 = 0 }  // opening the store reads its schema and history
            for mood in try context.fetch(request(prefetching: prefetching)) { consume(mood.text, mood.country?.name) }
            return count.withLock { $0 }
        }
        return "prefetch: the list of \(listLength) moods with their countries ran \(counts[0]) queries prefetched, "
            + "\(counts[1]) not (the join: 1)"
    }
}
