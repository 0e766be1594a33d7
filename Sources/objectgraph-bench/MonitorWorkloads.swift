import Foundation
import GRDB
import ObjectGraph

/// Issue 13's workloads: one change to a monitored list of every mood in ten sections, until the
/// monitor reported it; ten live monitors while another context saves 10,000 changes; and what a
/// monitored list holds in memory. The baseline is what an app without monitors does: re-fetch the
/// list with GRDB and diff it with Swift's `CollectionDifference`; the peer does the same with GRDB
/// records.
enum MonitorWorkloads {
    /// The workloads on `stores`, whose dataset has ten countries: the list's ten sections.
    static func make(stores: MonitorStores) -> [Workload] {
        [open(stores)] + SingleChange.allCases.map { oneChange($0, stores) } + [liveMonitors(stores)]
            + [unheldRowsMatch(stores), unreadRowsSaved(stores)]
    }

    /// Opening the monitored list: fetching it and building its sections.
    static func open(_ stores: MonitorStores) -> Workload {
        var monitor: ListMonitor<Mood>?
        var context: ObjectContext?
        var rows: [ListRow] = []
        var records: [MoodRecord] = []
        var rawRows: [ListRow] = []
        return Workload(
            name: "monitor: open a \(stores.dataset.moodCount)-row list in 10 sections",
            setUp: stores.fill,
            objectGraph: Contender(
                prepare: { (monitor, context) = (nil, nil) },
                run: {
                    let fresh = try stores.graph().newBackgroundContext()
                    monitor = try MonitorStores.monitor(in: fresh)
                    context = fresh
                },
                verify: {
                    try WorkloadError.check("listed", monitor?.count, stores.dataset.moodCount)
                    try WorkloadError.check("sections", monitor?.numberOfSections, 10)
                    withExtendedLifetime(context) {}
                }),
            baseline: Contender(
                prepare: { rows = [] },
                run: { rows = try stores.plain().read(ListRow.fetchList) },
                verify: { try WorkloadError.check("listed", rows.count, stores.dataset.moodCount) }),
            peer: Contender(
                prepare: { records = [] },
                run: { records = try stores.plain().read(MoodRecord.fetchList) },
                verify: { try WorkloadError.check("listed", records.count, stores.dataset.moodCount) }),
            raw: Contender(
                prepare: { rawRows = [] },
                run: { rawRows = try RawSQL.list(stores.raw()) },
                verify: { try WorkloadError.check("listed", rawRows.count, stores.dataset.moodCount) }))
    }

    enum SingleChange: String, CaseIterable {
        case update, insert, delete
    }

    /// One change saved in the monitor's context (a date, which moves the mood within its section; a
    /// new mood; a deletion), until the monitor's observer heard `listMonitorDidChange`.
    static func oneChange(_ change: SingleChange, _ stores: MonitorStores) -> Workload {
        var step = 0
        var plainList: [ListRow] = []
        var recordList: [MoodRecord] = []
        var rawList: [ListRow] = []
        var heard = 0
        return Workload(
            name: "monitor: one \(change.rawValue)",
            setUp: {
                try stores.fill()
                plainList = try stores.plain().read(ListRow.fetchList)
                recordList = try stores.plain().read(MoodRecord.fetchList)
                rawList = try RawSQL.list(stores.raw())
            },
            objectGraph: Contender(
                prepare: {
                    step += 1
                    heard = try stores.live().observer.didChangeCount
                },
                run: {
                    let live = try stores.live()
                    let position = (step &* 7_919) % live.monitor.count
                    switch change {
                    case .update: live.monitor[position].date.addTimeInterval(0.5)
                    case .insert:
                        live.context.insert(
                            Mood(
                                text: "New \(step)", rating: 3, date: Dataset.epoch.addingTimeInterval(Double(step) + 0.25),
                                country: live.countries[step % live.countries.count]))
                    case .delete: live.context.delete(live.monitor[position])
                    }
                    try live.context.save()  // posts the change to the monitor first, then writes it
                },
                verify: {
                    let live = try stores.live()
                    try WorkloadError.check("did-change callbacks", live.observer.didChangeCount, heard + 1)
                    try WorkloadError.check("listed", live.monitor.count, try live.context.fetchCount(MonitorStores.request))
                }),
            baseline: Contender(run: {
                try stores.plain().write { db in try apply(change, step: step, to: plainList.map(\.id), db) }
                let list = try stores.plain().read(ListRow.fetchList)
                Sink.checksum &+= list.difference(from: plainList).count
                plainList = list
            }),
            peer: Contender(run: {
                try stores.plain().write { db in try apply(change, step: step, to: recordList.compactMap(\.id), db) }
                let list = try stores.plain().read(MoodRecord.fetchList)
                Sink.checksum &+= list.difference(from: recordList).count
                recordList = list
            }),
            raw: Contender(run: {
                let db = try stores.raw()
                try db.transaction { try applyRaw(change, step: step, to: rawList.map(\.id), db) }
                let list = try RawSQL.list(db)
                Sink.checksum &+= list.difference(from: rawList).count
                rawList = list
            }))
    }

    /// The raw side's version of a change, through SQLite's C API.
    private static func applyRaw(_ change: SingleChange, step: Int, to ids: [Int64], _ db: RawDatabase) throws {
        let id = ids[(step &* 7_919) % ids.count]
        switch change {
        case .update:
            let statement = try db.prepare("UPDATE mood SET date = date + 0.5 WHERE id = ?")
            try statement.bind(id, at: 1)
            try statement.run()
        case .insert:
            let statement = try db.prepare("INSERT INTO mood (text, rating, date, countryId) VALUES (?, 3, ?, ?)")
            try statement.bind("New \(step)", at: 1)
            try statement.bind(Dataset.epoch.addingTimeInterval(Double(step) + 0.25).timeIntervalSince1970, at: 2)
            try statement.bind(Int64(step % 10 + 1), at: 3)
            try statement.run()
        case .delete:
            let statement = try db.prepare("DELETE FROM mood WHERE id = ?")
            try statement.bind(id, at: 1)
            try statement.run()
        }
    }

    /// The baseline's version of a change, on the row at the same place in its list.
    private static func apply(_ change: SingleChange, step: Int, to ids: [Int64], _ db: Database) throws {
        let id = ids[(step &* 7_919) % ids.count]
        switch change {
        case .update: try db.execute(sql: "UPDATE mood SET date = date + 0.5 WHERE id = ?", arguments: [id])
        case .insert:
            try db.execute(
                sql: "INSERT INTO mood (text, rating, date, countryId) VALUES (?, 3, ?, ?)",
                arguments: [
                    "New \(step)", Dataset.epoch.addingTimeInterval(Double(step) + 0.25).timeIntervalSince1970, step % 10 + 1
                ])
        case .delete: try db.execute(sql: "DELETE FROM mood WHERE id = ?", arguments: [id])
        }
    }

    /// Ten screens, each a monitor of one country's moods by date, while another context saves
    /// 10,000 rating changes in ten saves, each merged into the screens' context.
    static func liveMonitors(_ stores: MonitorStores) -> Workload {
        let saves = 10, changesPerSave = 1_000
        var screens: ObjectContext?
        var monitors: [ListMonitor<Mood>] = []
        var writer: ObjectContext?
        var writerMoods: [Mood] = []
        var changesets = 0
        var tokens: [ObservationToken] = []
        var plainLists: [[ListRow]] = []
        var recordLists: [[MoodRecord]] = []
        var rawLists: [[ListRow]] = []
        func changed(_ save: Int) -> [Int] {
            (0..<changesPerSave).map { ((save * changesPerSave + $0) &* 7_919) % stores.dataset.moodCount }
        }
        return Workload(
            name: "monitor: 10 live monitors while another context saves \(saves * changesPerSave) changes",
            setUp: {
                try stores.fill()
                let container = try stores.graph()
                let context = container.newBackgroundContext()
                monitors = try (0..<10).map { country in
                    let name = stores.dataset.countryName(country)
                    return try context.monitorList(
                        FetchDescriptor<Mood>(
                            predicate: #Predicate { $0.country?.name == name }, sortBy: [SortDescriptor(\.date)],
                            includesMarkedForDeletion: true))
                }
                tokens = monitors.map { $0.observeChanges { _ in changesets += 1 } }
                screens = context
                let other = container.newBackgroundContext()
                writerMoods = try other.fetch(FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.date)], includesMarkedForDeletion: true)).map
                { $0 }
                writer = other
                plainLists = try stores.plain().read { db in try (1...10).map { try ListRow.fetchCountry($0, db) } }
                recordLists = try stores.plain().read { db in try (1...10).map { try MoodRecord.fetchCountry($0, db) } }
                rawLists = try (1...10).map { try RawSQL.country($0, stores.raw()) }
            },
            objectGraph: Contender(
                prepare: { changesets = 0 },
                run: {
                    for save in 0..<saves {
                        for index in changed(save) where index < writerMoods.count {
                            writerMoods[index].rating = writerMoods[index].rating % 5 + 1
                        }
                        try writer?.save()
                        screens?.processPendingChanges()
                    }
                },
                verify: {
                    try WorkloadError.check("changesets reported (at least one a save)", min(changesets, saves), saves)
                    let total = monitors.reduce(0) { $0 + $1.count }
                    try WorkloadError.check(
                        "listed", total, try screens?.fetchCount(FetchDescriptor<Mood>(includesMarkedForDeletion: true)))
                    withExtendedLifetime(tokens) {}
                }),
            baseline: Contender(run: {
                for save in 0..<saves {
                    try saveAndFetchAgain(changed(save), &plainLists, in: stores.plain(), fetch: ListRow.fetchCountry)
                }
            }),
            peer: Contender(run: {
                for save in 0..<saves {
                    try saveAndFetchAgain(changed(save), &recordLists, in: stores.plain(), fetch: MoodRecord.fetchCountry)
                }
            }),
            raw: Contender(run: {
                let db = try stores.raw()
                for save in 0..<saves {
                    try db.transaction {
                        let statement = try db.prepare("UPDATE mood SET rating = rating % 5 + 1 WHERE id = ?")
                        for position in changed(save) {
                            try statement.bind(Int64(position + 1), at: 1)
                            try statement.run()
                        }
                    }
                    for country in rawLists.indices {
                        let list = try RawSQL.country(country + 1, db)
                        Sink.checksum &+= list.difference(from: rawLists[country]).count
                        rawLists[country] = list
                    }
                }
            }))
    }

    /// The list of issue 26's workloads: the moods rated 5, by date (a fifth of the store), monitored
    /// in a context that holds nothing else.
    private static let topRated = FetchDescriptor<Mood>(
        predicate: #Predicate { $0.rating == 5 }, sortBy: [SortDescriptor(\.date)], includesMarkedForDeletion: true)

    /// Another context rates 1,000 moods 5 and saves: rows the monitor's context never held start to
    /// match, and the monitor must find them (loaded set-wise by ID) and insert them. Between runs
    /// (untimed) they go back to 4 and leave the list. The baseline writes the same ratings, fetches
    /// the list again and diffs it.
    static func unheldRowsMatch(_ stores: MonitorStores) -> Workload {
        let count = 1_000
        var monitor: ListMonitor<Mood>?
        var screen: ObjectContext?
        var writer: ObjectContext?
        var rated: [Mood] = []
        var inserted = 0
        var token: ObservationToken?
        var plainList: [ListRow] = []
        var recordList: [MoodRecord] = []
        var rawList: [ListRow] = []
        var plainIDs: [Int64] = []
        func rate(_ rating: Int) throws {
            for mood in rated { mood.rating = rating }
            try writer?.save()
            screen?.processPendingChanges()
        }
        return Workload(
            name: "monitor: another context's save makes \(count) unheld rows match",
            setUp: {
                try stores.fill()
                let container = try stores.graph()
                let context = container.newBackgroundContext()
                monitor = try context.monitorList(topRated)
                token = monitor?.observeChanges { changeset in
                    inserted += changeset.changes.count { if case .insertObject = $0 { true } else { false } }
                }
                screen = context
                let other = container.newBackgroundContext()
                var fourStars = FetchDescriptor<Mood>(predicate: #Predicate { $0.rating == 4 }, sortBy: [SortDescriptor(\.date)])
                fourStars.fetchLimit = count
                rated = try other.fetch(fourStars).map { $0 }
                writer = other
                plainIDs = try stores.plain().read { db in
                    try Int64.fetchAll(db, sql: "SELECT id FROM mood WHERE rating = 4 ORDER BY date, id LIMIT ?", arguments: [count])
                }
            },
            objectGraph: Contender(
                prepare: {
                    try rate(4)
                    inserted = 0
                },
                run: { try rate(5) },
                verify: {
                    try WorkloadError.check("inserted", inserted, count)
                    try WorkloadError.check("listed", monitor?.count, try writer?.fetchCount(topRated))
                    withExtendedLifetime(token) {}
                }),
            baseline: Contender(
                prepare: { plainList = try setRatings(plainIDs, to: 4, in: stores.plain(), fetch: ListRow.fetchTopRated) },
                run: {
                    let list = try setRatings(plainIDs, to: 5, in: stores.plain(), fetch: ListRow.fetchTopRated)
                    Sink.checksum &+= list.difference(from: plainList).count
                }),
            peer: Contender(
                prepare: { recordList = try setRatings(plainIDs, to: 4, in: stores.plain(), fetch: MoodRecord.fetchTopRated) },
                run: {
                    let list = try setRatings(plainIDs, to: 5, in: stores.plain(), fetch: MoodRecord.fetchTopRated)
                    Sink.checksum &+= list.difference(from: recordList).count
                }),
            raw: Contender(
                prepare: {
                    try RawSQL.setRatings(plainIDs, to: 4, in: stores.raw())
                    rawList = try RawSQL.topRated(stores.raw())
                },
                run: {
                    try RawSQL.setRatings(plainIDs, to: 5, in: stores.raw())
                    Sink.checksum &+= try RawSQL.topRated(stores.raw()).difference(from: rawList).count
                }))
    }

    /// Another context changes the text of 10,000 moods the monitored list does not show and saves:
    /// the list reads no text, so its cost is a look at each ID, no query. The baseline, which cannot
    /// know that, writes the same texts and fetches the list again.
    static func unreadRowsSaved(_ stores: MonitorStores) -> Workload {
        let count = 10_000
        var monitor: ListMonitor<Mood>?
        var screen: ObjectContext?
        var writer: ObjectContext?
        var edited: [Mood] = []
        var changesets = 0
        var token: ObservationToken?
        var step = 0
        var plainList: [ListRow] = []
        var recordList: [MoodRecord] = []
        var rawList: [ListRow] = []
        var plainIDs: [Int64] = []
        func writeTexts(_ ids: [Int64], _ pool: DatabasePool) throws {
            try pool.write { db in
                let statement = try db.cachedStatement(sql: "UPDATE mood SET text = ? WHERE id = ?")
                for id in ids { try statement.execute(arguments: ["Edited \(step) \(id)", id]) }
            }
        }
        return Workload(
            name: "monitor: another context saves \(count) unheld rows the list does not read",
            setUp: {
                try stores.fill()
                let container = try stores.graph()
                let context = container.newBackgroundContext()
                monitor = try context.monitorList(topRated)
                token = monitor?.observeChanges { _ in changesets += 1 }
                screen = context
                let other = container.newBackgroundContext()
                var others = FetchDescriptor<Mood>(predicate: #Predicate { $0.rating < 5 }, sortBy: [SortDescriptor(\.date)])
                others.fetchLimit = count
                edited = try other.fetch(others).map { $0 }
                writer = other
                plainIDs = try stores.plain().read { db in
                    try Int64.fetchAll(db, sql: "SELECT id FROM mood WHERE rating < 5 ORDER BY date, id LIMIT ?", arguments: [count])
                }
                plainList = try stores.plain().read(ListRow.fetchTopRated)
                recordList = try stores.plain().read(MoodRecord.fetchTopRated)
                rawList = try RawSQL.topRated(stores.raw())
            },
            objectGraph: Contender(
                prepare: {
                    step += 1
                    changesets = 0
                },
                run: {
                    for mood in edited { mood.text = "Edited \(step) \(mood.objectID)" }
                    try writer?.save()
                    screen?.processPendingChanges()
                },
                verify: {
                    try WorkloadError.check("changesets", changesets, 0)
                    try WorkloadError.check("listed", monitor?.count, try writer?.fetchCount(topRated))
                    withExtendedLifetime(token) {}
                }),
            baseline: Contender(
                prepare: { step += 1 },
                run: {
                    try writeTexts(plainIDs, stores.plain())
                    let list = try stores.plain().read(ListRow.fetchTopRated)
                    Sink.checksum &+= list.difference(from: plainList).count
                    plainList = list
                }),
            peer: Contender(
                prepare: { step += 1 },
                run: {
                    try writeTexts(plainIDs, stores.plain())
                    let list = try stores.plain().read(MoodRecord.fetchTopRated)
                    Sink.checksum &+= list.difference(from: recordList).count
                    recordList = list
                }),
            raw: Contender(
                prepare: { step += 1 },
                run: {
                    let db = try stores.raw()
                    try db.transaction {
                        let statement = try db.prepare("UPDATE mood SET text = ? WHERE id = ?")
                        for id in plainIDs {
                            try statement.bind("Edited \(step) \(id)", at: 1)
                            try statement.bind(id, at: 2)
                            try statement.run()
                        }
                    }
                    let list = try RawSQL.topRated(db)
                    Sink.checksum &+= list.difference(from: rawList).count
                    rawList = list
                }))
    }

    /// The baseline's version of a rating change: the rows' ratings written, then the list fetched.
    private static func setRatings<Row>(
        _ ids: [Int64], to rating: Int, in pool: DatabasePool,
        fetch: (Database) throws -> [Row]
    ) throws -> [Row] {
        try pool.write { db in
            let statement = try db.cachedStatement(sql: "UPDATE mood SET rating = ? WHERE id = ?")
            for id in ids { try statement.execute(arguments: [rating, id]) }
        }
        return try pool.read(fetch)
    }

    /// The baseline's screens after a save: the ratings of the moods at `positions` change, then each
    /// country's list is fetched again and diffed with the one shown.
    private static func saveAndFetchAgain<Row: Equatable>(
        _ positions: [Int], _ lists: inout [[Row]], in pool: DatabasePool, fetch: (Int, Database) throws -> [Row]
    ) throws {
        try pool.write { db in try updateRatings(positions, db) }
        try pool.read { db in
            for country in lists.indices {
                let list = try fetch(country + 1, db)
                Sink.checksum &+= list.difference(from: lists[country]).count
                lists[country] = list
            }
        }
    }

    private static func updateRatings(_ positions: [Int], _ db: Database) throws {
        let statement = try db.cachedStatement(sql: "UPDATE mood SET rating = rating % 5 + 1 WHERE id = ?")
        for position in positions { try statement.execute(arguments: [position + 1]) }
    }

    /// What a monitored list costs in memory next to the objects it lists: a context that fetches the
    /// list's objects, and another that monitors them, each measured alone.
    static func memoryReport(_ stores: MonitorStores) throws -> String {
        try stores.fill()
        let container = try stores.graph()
        func held(_ body: (ObjectContext) throws -> Any) throws -> Double {
            PeakMemory.releaseFreedMemory()
            let before = PeakMemory.currentMegabytes()
            let context = container.newBackgroundContext()
            let kept = try body(context)
            let after = PeakMemory.currentMegabytes()
            withExtendedLifetime((context, kept)) {}
            return after - before
        }
        let objects = try held { context in try context.fetch(MonitorStores.request).map { $0 } }
        let monitored = try held { context in try MonitorStores.monitor(in: context) }
        return String(
            format: "monitor memory: the %d fetched objects hold %.1f MB, the monitored list %.1f MB (%.2fx)",
            stores.dataset.moodCount, objects, monitored, monitored / max(objects, 0.1))
    }
}

/// The stores the monitor workloads share: an ObjectGraph file with a live context and its monitor,
/// and the same rows in plain tables.
final class MonitorStores {
    let dataset: Dataset
    private let files: ScratchFiles
    private var container: ObjectContainer?
    private var pool: DatabasePool?
    private var liveState: Live?

    /// The monitor's context, the monitor and what hears it, kept across runs.
    struct Live {
        let context: ObjectContext
        let monitor: ListMonitor<Mood>
        let observer: CountingListObserver
        let countries: [Country]
    }

    /// Every mood, marked or not, by country name then date.
    static let request = FetchDescriptor<Mood>(
        sortBy: [SortDescriptor(\.country?.name), SortDescriptor(\.date)], includesMarkedForDeletion: true)

    static func monitor(in context: ObjectContext) throws -> ListMonitor<Mood> {
        try context.monitorSectionedList(request, sectionBy: SectionBy(\.country?.name))
    }

    init(dataset: Dataset, files: ScratchFiles) {
        self.dataset = dataset
        self.files = files
    }

    func fill() throws {
        guard container == nil else { return }
        let graph = try ObjectGraphSide.openContainer(at: files.fresh("monitor-graph.sqlite"))
        try ObjectGraphSide.insert(0..<dataset.moodCount, of: dataset, into: graph)
        let plain = try PlainSQL.openDatabase(at: files.fresh("monitor-plain.sqlite"))
        try PlainSQL.insert(0..<dataset.moodCount, of: dataset, into: plain)
        try plain.write { db in try db.execute(sql: "CREATE INDEX IF NOT EXISTS mood_date ON mood(date)") }
        (container, pool) = (graph, plain)
    }

    func graph() throws -> ObjectContainer {
        try fill()
        guard let container else { throw WorkloadError(description: "no monitor store") }
        return container
    }

    func plain() throws -> DatabasePool {
        try fill()
        guard let pool else { throw WorkloadError(description: "no plain monitor store") }
        return pool
    }

    private var rawDatabase: RawDatabase?

    /// The plain store's file, opened through SQLite's C API.
    func raw() throws -> RawDatabase {
        try fill()
        if let rawDatabase { return rawDatabase }
        let opened = try RawDatabase(path: files.path("monitor-plain.sqlite"))
        rawDatabase = opened
        return opened
    }

    /// The live context and monitor, made once (untimed, at the first run that asks).
    func live() throws -> Live {
        if let liveState { return liveState }
        let context = try graph().newBackgroundContext()
        let monitor = try Self.monitor(in: context)
        let observer = CountingListObserver()
        monitor.addObserver(observer)
        let countries = try context.fetch(FetchDescriptor<Country>(sortBy: [SortDescriptor(\.name)])).map { $0 }
        // Moody's deletion rule counts the country's moods: read once, as an app that deleted before has.
        for country in countries { Sink.checksum &+= country.count(of: \.moods) }
        let live = Live(context: context, monitor: monitor, observer: observer, countries: countries)
        liveState = live
        return live
    }
}

/// A list screen's observer, counting the changes it is told of.
final class CountingListObserver: ListObjectObserver {
    private(set) var didChangeCount = 0
    private(set) var objectChanges = 0

    func listMonitorDidChange(_ monitor: ListMonitor<Mood>) { didChangeCount += 1 }
    func listMonitor(_ monitor: ListMonitor<Mood>, didInsertObject object: Mood, toIndexPath indexPath: IndexPath) { objectChanges += 1 }
    func listMonitor(_ monitor: ListMonitor<Mood>, didDeleteObject object: Mood, fromIndexPath indexPath: IndexPath) { objectChanges += 1 }
    func listMonitor(_ monitor: ListMonitor<Mood>, didUpdateObject object: Mood, atIndexPath indexPath: IndexPath) { objectChanges += 1 }
    func listMonitor(_ monitor: ListMonitor<Mood>, didMoveObject object: Mood, fromIndexPath: IndexPath, toIndexPath: IndexPath) {
        objectChanges += 1
    }
}

/// A row of the baseline's list: what a list screen shows of a mood.
struct ListRow: Equatable, FetchableRecord {
    var id: Int64
    var text: String
    var rating: Int
    var date: Double
    var country: String?

    init(id: Int64, text: String, rating: Int, date: Double, country: String?) {
        (self.id, self.text, self.rating, self.date, self.country) = (id, text, rating, date, country)
    }

    init(row: Row) {
        (id, text, rating, date, country) = (row[0], row[1], row[2], row[3], row[4])
    }

    /// Every mood, by country name then date: the monitored list.
    static func fetchList(_ db: Database) throws -> [ListRow] {
        try fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT mood.id, mood.text, mood.rating, mood.date, country.name FROM mood
                    LEFT JOIN country ON country.id = mood.countryId ORDER BY country.name, mood.date, mood.id
                    """))
    }

    /// The moods rated 5, by date.
    static func fetchTopRated(_ db: Database) throws -> [ListRow] {
        try fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT mood.id, mood.text, mood.rating, mood.date, NULL FROM mood WHERE rating = 5 ORDER BY date, id
                    """))
    }

    /// One country's moods by date.
    static func fetchCountry(_ countryID: Int, _ db: Database) throws -> [ListRow] {
        try fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT mood.id, mood.text, mood.rating, mood.date, NULL FROM mood
                    WHERE mood.countryId = ? ORDER BY mood.date, mood.id
                    """), arguments: [countryID])
    }
}

extension MoodRecord {
    static func fetchList(_ db: Database) throws -> [MoodRecord] {
        try fetchAll(
            db,
            sql: """
                SELECT mood.* FROM mood LEFT JOIN country ON country.id = mood.countryId
                ORDER BY country.name, mood.date, mood.id
                """)
    }

    static func fetchCountry(_ countryID: Int, _ db: Database) throws -> [MoodRecord] {
        try fetchAll(db, sql: "SELECT * FROM mood WHERE countryId = ? ORDER BY date, id", arguments: [countryID])
    }

    static func fetchTopRated(_ db: Database) throws -> [MoodRecord] {
        try fetchAll(db, sql: "SELECT * FROM mood WHERE rating = 5 ORDER BY date, id")
    }
}
