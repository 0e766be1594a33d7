import Foundation
import GRDB
import MoodyModel
import ObjectGraph
import ObjectGraphSync
import ObjectGraphSyncProtocol
import Synchronization

/// The `sync client` workload group: the sync client of the root package (`ObjectGraphSync`)
/// against the running server, on Moody's model.
enum ClientWorkloads {
    /// A page of the feed, and a push, on both sides.
    static let pageSize = 500

    static func make(_ target: BenchTarget, moods: Int) -> [SyncWorkload] {
        [initialSync(target, moods: moods, ids: .timeOrdered), initialSync(target, moods: moods, ids: .random)]
            + liveEdit(target, edits: 100)
            + [localSaves(target, saves: 1_000)]
    }

    // MARK: Initial sync

    /// A zone of `moods` moods over 100 countries, read into an empty store: by the sync client
    /// until its `syncNow()` returns (everything saved), and by the baseline, which reads the same
    /// pages over HTTP and writes them with plain GRDB statements, the cursor in the same transaction.
    /// The records' IDs are time-ordered, as those of ObjectGraph apps, or random (another source's).
    static func initialSync(_ target: BenchTarget, moods: Int, ids: RecordIDs.Kind) -> SyncWorkload {
        let zone = "client-initial-\(ids)"
        let filled = Mutex(false)
        let fill: @Sendable () async throws -> Void = {
            guard !filled.withLock({ $0 }) else { return }
            try await MoodZone.fill(target, zone: zone, moods: moods, countries: 100, ids: RecordIDs(ids))
            filled.withLock { $0 = true }
        }
        let device = Mutex<ClientDevice?>(nil)
        let plainStore = Mutex<PlainClientStore?>(nil)
        return SyncWorkload(
            name: "sync client: initial sync of \(moods) moods into an empty store\(ids == .random ? ", random IDs" : "")",
            items: moods,
            server: SyncContender(
                prepare: {
                    try await fill()
                    device.withLock { $0 = nil }  // the previous run's store, closed
                    let client = try ClientDevice(target, zone: zone)
                    device.withLock { $0 = client }
                },
                run: {
                    guard let client = device.withLock({ $0 }) else { throw BenchmarkError("no device") }
                    let start = ContinuousClock.now
                    try await client.sync.syncNow()
                    let elapsed = (ContinuousClock.now - start).milliseconds
                    try client.expectMoods(moods)
                    return elapsed
                }),
            plain: SyncContender(
                prepare: {
                    try await fill()
                    plainStore.withLock { $0 = nil }
                    let store = try PlainClientStore()
                    plainStore.withLock { $0 = store }
                },
                run: {
                    guard let store = plainStore.withLock({ $0 }) else { throw BenchmarkError("no plain store") }
                    let start = ContinuousClock.now
                    try await store.pull(target, zone: zone, limit: pageSize)
                    let elapsed = (ContinuousClock.now - start).milliseconds
                    try store.expectMoods(moods)
                    return elapsed
                }))
    }

    // MARK: Live edit

    /// Two devices following the live route; one edits a mood and saves, the other's view
    /// context posts the change: the p50 and the p99 of that delay, over `edits` edits a run.
    static func liveEdit(_ target: BenchTarget, edits: Int) -> [SyncWorkload] {
        [50.0, 99.0].map { rank in
            SyncWorkload(
                name: "sync client: one edit on device A until B's view context posts it, p\(Int(rank)) of \(edits) (live route)",
                server: SyncContender(run: { SyncWorkload.percentile(rank, of: try await LiveEditRun.delays(target, edits: edits)) }))
        }
    }

    // MARK: Local saves

    /// `saves` saves of one new mood each in a view context, with a sync coordinator running
    /// (which sends them once the saves pause) against none: what syncing costs the app.
    static func localSaves(_ target: BenchTarget, saves: Int) -> SyncWorkload {
        let device = Mutex<ClientDevice?>(nil)
        func side(syncing: Bool) -> SyncContender {
            SyncContender(
                prepare: {
                    device.withLock { $0 = nil }
                    let client = try ClientDevice(target, zone: "client-saves-\(UUID().uuidString)")
                    try await client.addCountry()
                    if syncing {
                        // Running and idle when the saves begin: the first cycle is over.
                        await client.sync.start()
                        try await client.sync.syncNow()
                    }
                    device.withLock { $0 = client }
                },
                run: {
                    guard let client = device.withLock({ $0 }) else { throw BenchmarkError("no device") }
                    let elapsed = try await client.saveMoods(saves)
                    await client.sync.stop()
                    return elapsed
                })
        }
        return SyncWorkload(
            name: "sync client: \(saves) local saves with the coordinator running, against none",
            items: saves, server: side(syncing: true), plain: side(syncing: false))
    }
}

/// A store of Moody's model with a sync coordinator talking to the benchmark's server.
final class ClientDevice: Sendable {
    let directory: URL
    let container: ObjectContainer
    let sync: SyncCoordinator

    init(_ target: BenchTarget, zone: String) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("objectgraph-sync-bench-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        container = try ObjectContainer(
            schema: MoodyStore.schema(),
            configuration: .file(directory.appendingPathComponent("store.sqlite").path))
        guard let url = URL(string: "http://127.0.0.1:\(target.port)") else { throw BenchmarkError("no URL") }
        sync = try SyncCoordinator(
            container: container, remote: HTTPSyncRemote(url: url, token: target.token), zone: ZoneID(zone),
            syncing: MoodyStore.syncedTypes, batchSize: ClientWorkloads.pageSize)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)  // scratch files only
    }

    /// Checks that the store holds `count` moods, each with its country.
    func expectMoods(_ count: Int) throws {
        let context = container.newBackgroundContext()
        let moods = try context.fetchCount(FetchDescriptor<Mood>())
        let withCountry = try context.fetchCount(FetchDescriptor<Mood>(predicate: #Predicate { $0.country != nil }))
        guard moods == count, withCountry == count else {
            throw BenchmarkError("the client holds \(moods) moods, \(withCountry) with a country; \(count) expected")
        }
    }

    /// Saves a country for the moods of ``saveMoods(_:)``.
    @MainActor func addCountry() throws {
        container.viewContext.insert(Country(name: "Iceland"))
        try container.viewContext.save()
    }

    /// Saves `count` new moods of the country one by one in the view context; returns the
    /// milliseconds it took.
    @MainActor func saveMoods(_ count: Int) throws -> Double {
        let context = container.viewContext
        guard let country = try context.fetch(FetchDescriptor<Country>()).first else { throw BenchmarkError("no country") }
        let start = ContinuousClock.now
        for index in 0..<count {
            context.insert(Mood(text: "Mood \(index)", rating: index % 5 + 1, country: country))
            try context.save()
        }
        return (ContinuousClock.now - start).milliseconds
    }
}

/// Puts moods and countries in a zone of the server, in-process, as pushes of one client.
enum MoodZone {
    static func fill(_ target: BenchTarget, zone: String, moods: Int, countries: Int, ids: RecordIDs) async throws {
        var ids = ids
        let client = UUID()
        var number: Int64 = 0
        func mutation(_ entity: String, _ id: UUID, _ fields: [String: JSONValue]) -> Mutation {
            number += 1
            return .upsert(number, entity: entity, id: id, fields: fields)
        }
        let countryIDs = (0..<countries).map { _ in ids.next() }
        var mutations = countryIDs.enumerated().map { index, id in
            mutation("Country", id, ["name": .string("Country \(index)")])
        }
        for index in 0..<moods {
            mutations.append(
                mutation(
                    "Mood", ids.next(),
                    [
                        "text": .string("Mood \(index)"), "rating": .integer(Int64(index % 5 + 1)),
                        "date": .double(Double(index)), "country": .string(countryIDs[index % countries].uuidString)
                    ]))
        }
        for start in stride(from: 0, to: mutations.count, by: ClientWorkloads.pageSize) {
            let batch = Array(mutations[start..<min(start + ClientWorkloads.pageSize, mutations.count)])
            _ = try await target.server.push(PushRequest(clientID: client, mutations: batch), zone: zone, user: target.user)
        }
    }
}

/// The IDs of a zone's records.
struct RecordIDs {
    enum Kind: String {
        /// Version 7 UUIDs (RFC 9562), as every ObjectGraph store gives its new objects: the records
        /// of a zone that ObjectGraph apps filled carry IDs that grow with the time of their creation.
        case timeOrdered = "time-ordered"
        /// Version 4 UUIDs, as another source may send: each lands anywhere in an index of IDs.
        case random
    }

    let kind: Kind
    private let milliseconds = UInt64(Date().timeIntervalSince1970 * 1000)
    private var counter: UInt64 = 0

    init(_ kind: Kind) {
        self.kind = kind
    }

    /// The next ID. A time-ordered one is the start time, then a counter in the bits RFC 9562 lets
    /// a generator use for order within a millisecond, with the version and variant bits.
    mutating func next() -> UUID {
        guard kind == .timeOrdered else { return UUID() }
        counter += 1
        let high = milliseconds << 16 | 0x7000
        let low = 0x8000_0000_0000_0000 | (counter & 0x3FFF_FFFF_FFFF_FFFF)
        var bytes: [UInt8] = []
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: high >> UInt64(shift))) }
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: low >> UInt64(shift))) }
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}

/// Two devices following the live route, measured on the main actor where their view contexts are.
@MainActor enum LiveEditRun {
    static func delays(_ target: BenchTarget, edits: Int) async throws -> [Double] {
        let zone = "client-live-\(UUID().uuidString)"
        let a = try ClientDevice(target, zone: zone), b = try ClientDevice(target, zone: zone)
        await a.sync.start()
        await b.sync.start()
        let mood = Mood(text: "Edited", rating: 1)
        a.container.viewContext.insert(mood)
        try a.container.viewContext.save()
        let id = mood.objectGlobalID
        let bContext = b.container.viewContext
        var onB: Mood?
        try await waitForChange(in: bContext, of: b.container) {
            onB = try bContext.objects(withGlobalIDs: [id], as: Mood.self)[id]
            return onB != nil
        }
        guard let onB else { throw BenchmarkError("device B never saw the mood") }
        var delays: [Double] = []
        for edit in 1...edits {
            let rating = edit % 5 + 1
            let sent = ContinuousClock.now
            mood.rating = rating
            try a.container.viewContext.save()
            try await waitForChange(in: bContext, of: b.container) { onB.rating == rating }
            delays.append((ContinuousClock.now - sent).milliseconds)
        }
        await a.sync.stop()
        await b.sync.stop()
        return delays
    }

    /// Returns once `condition` holds, checked now and each time `context` posts a change; the
    /// timeout only catches a hang.
    private static func waitForChange(
        in context: ObjectContext, of container: ObjectContainer,
        until condition: @escaping @MainActor () throws -> Bool
    ) async throws {
        let (changes, change) = AsyncStream<Void>.makeStream()
        let observation = context.observeObjectsDidChange { _ in change.yield() }
        // A merge posts only the objects the context holds: a new mood is heard of by its commit.
        let commits = container.observeCommits { _ in change.yield() }
        let timeout = Task {
            try? await Task.sleep(for: .seconds(30))
            change.finish()
        }
        defer {
            timeout.cancel()
            observation.cancel()
            commits.cancel()
        }
        if try condition() { return }
        for await _ in changes where try condition() { return }
        throw BenchmarkError("device B never saw the change")
    }
}

/// The baseline of the initial sync: the feed's pages over HTTP into plain tables through GRDB.
final class PlainClientStore: Sendable {
    private let directory: URL
    private let pool: DatabasePool

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("objectgraph-sync-bench-plain-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        pool = try DatabasePool(path: directory.appendingPathComponent("plain.sqlite").path)
        try pool.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE country (id INTEGER PRIMARY KEY, uuid BLOB NOT NULL UNIQUE, name TEXT, continent BLOB);
                    CREATE TABLE mood (id INTEGER PRIMARY KEY, uuid BLOB NOT NULL UNIQUE, text TEXT, rating INTEGER,
                                       date REAL, country BLOB);
                    CREATE TABLE cursor (zone TEXT PRIMARY KEY, position INTEGER NOT NULL);
                    """)
        }
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)  // scratch files only
    }

    /// Reads the zone's feed page after page, each written in one transaction with the cursor; the
    /// next page is requested while one is written, as the sync client does.
    func pull(_ target: BenchTarget, zone: String, limit: Int) async throws {
        var readAhead: Task<ChangesPage, any Error>? = Task { try await target.changesOverHTTP(zone: zone, since: .start, limit: limit) }
        defer { readAhead?.cancel() }
        while let next = readAhead {
            let page = try await next.value
            readAhead = nil
            if page.hasMore {
                let cursor = page.cursor
                readAhead = Task { try await target.changesOverHTTP(zone: zone, since: cursor, limit: limit) }
            }
            try await pool.write { db in
                let mood = try db.cachedStatement(
                    sql: """
                        INSERT INTO mood (uuid, text, rating, date, country) VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT (uuid) DO UPDATE SET text = excluded.text, rating = excluded.rating,
                            date = excluded.date, country = excluded.country
                        """)
                let country = try db.cachedStatement(
                    sql: """
                        INSERT INTO country (uuid, name) VALUES (?, ?)
                        ON CONFLICT (uuid) DO UPDATE SET name = excluded.name
                        """)
                for change in page.changes {
                    let record = change.record
                    let fields = record.fields
                    switch record.entity {
                    case "Mood":
                        try mood.execute(arguments: [
                            record.id, fields["text"]?.text, fields["rating"]?.integer,
                            fields["date"]?.double, fields["country"]?.text.flatMap(UUID.init(uuidString:))
                        ])
                    case "Country":
                        try country.execute(arguments: [record.id, fields["name"]?.text])
                    default:
                        break
                    }
                }
                try db.execute(
                    sql: "INSERT OR REPLACE INTO cursor (zone, position) VALUES (?, ?)",
                    arguments: [zone, page.cursor.position])
            }
        }
    }

    func expectMoods(_ count: Int) throws {
        let (moods, withCountry) = try pool.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM mood") ?? 0,
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM mood WHERE country IS NOT NULL") ?? 0
            )
        }
        guard moods == count, withCountry == count else {
            throw BenchmarkError("the plain store holds \(moods) moods, \(withCountry) with a country; \(count) expected")
        }
    }
}

private extension JSONValue {
    var text: String? { if case .string(let text) = self { text } else { nil } }
    var integer: Int64? { if case .integer(let integer) = self { integer } else { nil } }
    var double: Double? {
        switch self {
        case .double(let double): double
        case .integer(let integer): Double(integer)
        default: nil
        }
    }
}
