import Foundation
import GRDB
import ObjectGraph

/// An entry of a calendar: the root of a hierarchy.
@Entity class CalendarEntry {
    var title: String
    var day: Int
    init(title: String, day: Int) {
        self.title = title
        self.day = day
    }
}

/// A meeting: a subentity.
@Entity final class Meeting: CalendarEntry {
    var client: String
    var budget: Int
    init(title: String, day: Int, client: String, budget: Int) {
        self.client = client
        self.budget = budget
        super.init(title: title, day: day)
    }
}

/// A journey: a subentity with a subentity of its own.
@Entity class Journey: CalendarEntry {
    var destination: String
    init(title: String, day: Int, destination: String) {
        self.destination = destination
        super.init(title: title, day: day)
    }
}

@Entity final class BusinessJourney: Journey {
    var perDiem: Double
    init(title: String, day: Int, destination: String, perDiem: Double) {
        self.perDiem = perDiem
        super.init(title: title, day: day, destination: destination)
    }
}

/// What a fetch of a hierarchy's root costs: every entry, each as its own class with its values,
/// against one query of one table with a column naming each row's kind on the other sides.
enum HierarchyWorkloads {
    static func make(dataset: Dataset, files: ScratchFiles) -> [Workload] {
        [fetchRoot(EntryStores.make(count: dataset.moodCount, files: files), count: dataset.moodCount)]
    }

    /// Entry `index`: half plain entries, a quarter meetings, an eighth journeys, an eighth
    /// business journeys.
    static func kind(_ index: Int) -> String {
        switch index % 8 {
        case 0, 1, 2, 3: "CalendarEntry"
        case 4, 5: "Meeting"
        case 6: "Journey"
        default: "BusinessJourney"
        }
    }

    static let query = "SELECT id, kind, title, day, client, budget, destination, perDiem FROM entry ORDER BY id"

    /// A plain struct per row, as an app without an object graph would make them.
    struct RawEntry {
        var id: Int64, kind: String, title: String, day: Int64, client: String?, budget: Int64?, destination: String?, perDiem: Double?
    }

    static func fetchRoot(_ stores: FilledStores, count: Int) -> Workload {
        Workload(
            name: "fetch all \(count) calendar entries of a hierarchy (4 classes), each as its own class",
            setUp: stores.fill,
            objectGraph: Contender(
                run: {
                    for entry in try stores.graph().newBackgroundContext().fetch(FetchDescriptor<CalendarEntry>()) {
                        Sink.checksum &+= entry.title.utf8.count &+ entry.day
                        if let meeting = entry as? Meeting { Sink.checksum &+= meeting.budget }
                        if let journey = entry as? Journey { Sink.checksum &+= journey.destination.utf8.count }
                    }
                },
                verify: {
                    try WorkloadError.check(
                        "entries", try stores.graph().newBackgroundContext().fetchCount(FetchDescriptor<CalendarEntry>()), count)
                }),
            baseline: Contender(run: {
                try stores.plain().read { db in
                    let rows = try Row.fetchCursor(db.cachedStatement(sql: query))
                    while let row = try rows.next() {
                        Sink.checksum &+= (row[2] as String).utf8.count &+ (row[3] as Int)
                        if let budget = row[5] as Int? { Sink.checksum &+= budget }
                        if let destination = row[6] as String? { Sink.checksum &+= destination.utf8.count }
                    }
                }
            }),
            peer: Contender(run: {
                try stores.plain().read { db in
                    for row in try Row.fetchAll(db, sql: query) {
                        Sink.checksum &+= (row[2] as String).utf8.count &+ (row[3] as Int)
                        if let budget = row[5] as Int? { Sink.checksum &+= budget }
                        if let destination = row[6] as String? { Sink.checksum &+= destination.utf8.count }
                    }
                }
            }),
            raw: Contender(run: {
                let raw = try stores.raw()
                let entries = try raw.read {
                    let statement = try raw.prepare(query)
                    defer { try? statement.reset() }
                    return try statement.rows(reservingCapacity: count) { row in
                        RawEntry(
                            id: row.int64(0), kind: row.text(1) ?? "", title: row.text(2) ?? "", day: row.int64(3),
                            client: row.text(4), budget: row.isNull(5) ? nil : row.int64(5), destination: row.text(6),
                            perDiem: row.isNull(7) ? nil : row.double(7))
                    }
                }
                for entry in entries {
                    Sink.checksum &+=
                        entry.title.utf8.count &+ Int(entry.day) &+ Int(entry.budget ?? 0) &+ (entry.destination?.utf8.count ?? 0)
                }
            }))
    }
}

/// The entries in ObjectGraph and in a plain table.
enum EntryStores {
    static func make(count: Int, files: ScratchFiles) -> FilledStores {
        FilledStores {
            let graph = try ObjectContainer(
                for: CalendarEntry.self, Meeting.self, Journey.self, BusinessJourney.self,
                configuration: .file(files.fresh("entries-graph.sqlite")))
            let context = graph.newBackgroundContext()
            for index in 0..<count {
                let title = "entry \(index)"
                switch HierarchyWorkloads.kind(index) {
                case "Meeting":
                    context.insert(Meeting(title: title, day: index % 365, client: "client \(index % 50)", budget: index % 1000))
                case "Journey": context.insert(Journey(title: title, day: index % 365, destination: "city \(index % 80)"))
                case "BusinessJourney":
                    context.insert(BusinessJourney(title: title, day: index % 365, destination: "city \(index % 80)", perDiem: 45))
                default: context.insert(CalendarEntry(title: title, day: index % 365))
                }
            }
            try context.save()
            let path = files.fresh("entries-plain.sqlite")
            let plain = try DatabasePool(path: path)
            try plain.write { db in
                try db.execute(
                    sql: """
                        CREATE TABLE entry (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, title TEXT NOT NULL, day INTEGER NOT NULL,
                        client TEXT, budget INTEGER, destination TEXT, perDiem REAL)
                        """)
                let insert = try db.makeStatement(
                    sql: "INSERT INTO entry (kind, title, day, client, budget, destination, perDiem) VALUES (?, ?, ?, ?, ?, ?, ?)")
                for index in 0..<count {
                    let kind = HierarchyWorkloads.kind(index)
                    let isMeeting = kind == "Meeting", isJourney = kind.hasSuffix("Journey")
                    try insert.execute(arguments: [
                        kind, "entry \(index)", index % 365, isMeeting ? "client \(index % 50)" : nil, isMeeting ? index % 1000 : nil,
                        isJourney ? "city \(index % 80)" : nil, kind == "BusinessJourney" ? 45.0 : nil
                    ])
                }
            }
            return (graph, plain, path)
        }
    }
}
