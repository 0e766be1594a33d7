import Foundation
import GRDB
import ObjectGraph
import Testing

/// A milestone whose date survives its deletion in the history.
@Entity final class Milestone {
    @Attribute(.unique) var name: String
    @Attribute(.preserveValueOnDeletion) var reached: Date?
    var planned = Date(timeIntervalSince1970: 86_400)
    var distance = 0.0
    init(name: String) { self.name = name }
}

// Two versions of a trip, for a stage that reads dates from a store of the earlier format.

@Entity("Trip") final class TripV1 {
    var start: Date
    init(start: Date) { self.start = start }
}

@Entity("Trip") final class TripV2 {
    var start: Date
    var end: Date
    init(start: Date, end: Date) {
        self.start = start
        self.end = end
    }
}

/// Stores of format 1 (dates as seconds since 1970 in REAL columns, text as given) are upgraded on
/// open, in one transaction; a store format 2 wrote is refused by the checks an earlier version
/// makes (issue 43, point 2).
@Suite struct StoreFormatTests {
    static let offset = Date.timeIntervalBetween1970AndReferenceDate

    /// Rewrites a store as format 1 wrote it: REAL columns for reals and dates, dates (and
    /// preserved dates in the history) as seconds since 1970, the model as an array with its date
    /// defaults in 1970 seconds, no format key, its `history` a row per object; `renames` gives
    /// rows of Milestone other names (to store text as format 1 stored it, as given).
    static func downgrade(_ path: String, history: [HistoryTransaction], renames: [(from: String, to: String)] = []) throws {
        let database = try DatabaseQueue(path: path)
        try database.write { db in
            try EarlierHistoryLayout.rowRanges.write(history, db)
            let json = try #require(try String.fetchOne(db, sql: "SELECT value FROM Z_METADATA WHERE key = 'schema'"))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            var entities = try JSONDecoder().decode(
                [EntityDescription].self, from: JSONSerialization.data(withJSONObject: try #require(object["entities"])))
            for (index, entity) in entities.enumerated() {
                for (slot, attribute) in entity.attributes.enumerated() where attribute.type == .date {
                    if case .real(let seconds)? = attribute.defaultValue {
                        entities[index].attributes[slot].defaultValue = .real(seconds + offset)
                    }
                }
                let reals = Set(entity.attributes.filter { $0.type == .double || $0.type == .date }.map(\.name))
                let dates = Set(entity.attributes.filter { $0.type == .date }.map(\.name))
                guard !reals.isEmpty else { continue }
                let indexes = try String.fetchAll(
                    db, sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
                    arguments: [entity.name])
                var definitions: [String] = [], names: [String] = [], values: [String] = []
                for column in try Row.fetchAll(db, sql: "PRAGMA table_info(\"\(entity.name)\")") {
                    let name: String = column["name"]
                    var definition = "\"\(name)\" " + (reals.contains(name) ? "REAL" : column["type"] as String)
                    if (column["pk"] as Int) > 0 { definition += " PRIMARY KEY" }
                    if column["notnull"] as Bool { definition += " NOT NULL" }
                    if var value = column["dflt_value"] as String? {
                        if dates.contains(name), let seconds = Double(value) { value = "\(seconds + offset)" }
                        definition += " DEFAULT \(value)"
                    }
                    definitions.append(definition)
                    names.append("\"\(name)\"")
                    values.append(dates.contains(name) ? "\"\(name)\" + \(offset)" : "\"\(name)\"")
                }
                try db.execute(sql: "CREATE TABLE old (\(definitions.joined(separator: ", ")))")
                try db.execute(sql: "INSERT INTO old SELECT \(values.joined(separator: ", ")) FROM \"\(entity.name)\"")
                try db.execute(sql: "DROP TABLE \"\(entity.name)\"; ALTER TABLE old RENAME TO \"\(entity.name)\"")
                for index in indexes { try db.execute(sql: index) }
                for date in dates {
                    try db.execute(
                        sql: """
                            UPDATE Z_CHANGE SET Z_TOMBSTONE = json_set(Z_TOMBSTONE, '$.\(date)', json_extract(Z_TOMBSTONE, '$.\(date)') + ?)
                            WHERE Z_ENTITY = ? AND json_type(Z_TOMBSTONE, '$.\(date)') = 'real'
                            """, arguments: [offset, entity.name])
                }
            }
            for (from, to) in renames {
                try db.execute(sql: "UPDATE Milestone SET name = ? WHERE name = ?", arguments: [to, from])
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let array = String(decoding: try encoder.encode(entities), as: UTF8.self)
            let hash = try #require(try String.fetchOne(db, sql: "SELECT value FROM Z_METADATA WHERE key = 'versionHash'"))
            try db.execute(sql: "UPDATE Z_METADATA SET value = ? WHERE key = 'schema'", arguments: [array])
            try db.execute(sql: "UPDATE Z_METADATA SET value = ? WHERE key = 'versionHash'", arguments: [String(hash.prefix { $0 != "." })])
            try db.execute(sql: "DELETE FROM Z_METADATA WHERE key = 'storeFormat'")
        }
    }

    private static func declaredTypes(_ path: String, _ table: String) throws -> [String: String] {
        try DatabaseQueue(path: path).read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "PRAGMA table_info(\"\(table)\")").map { ($0["name"], $0["type"]) })
        }
    }

    @Test func aStoreOfTheEarlierFormatIsUpgradedOnOpen() throws {
        let path = temporaryStorePath()
        let reached = Date(timeIntervalSinceReferenceDate: 700_000_000.5)
        let history: [HistoryTransaction]
        do {
            let container = try ObjectContainer(for: Milestone.self, configuration: .file(path))
            let context = container.newBackgroundContext()
            for (name, distance) in [("Summit", 8848.0), ("Gone", 1.0), ("Decomposed", 2.5)] {
                let milestone = Milestone(name: name)
                milestone.reached = reached
                milestone.distance = distance
                context.insert(milestone)
            }
            try context.save()
            context.delete(try context.fetch(FetchDescriptor<Milestone>(predicate: #Predicate { $0.name == "Gone" }))[0])
            try context.save()
            history = try container.fetchHistory()
        }
        try Self.downgrade(path, history: history, renames: [("Decomposed", "Re\u{301}sume\u{301}")])
        #expect(try Self.declaredTypes(path, "Milestone")["distance"] == "REAL")

        let container = try ObjectContainer(for: Milestone.self, configuration: .file(path))
        let context = container.newBackgroundContext()
        let milestones = try context.fetch(FetchDescriptor<Milestone>(sortBy: [SortDescriptor(\.name)]))
        #expect(milestones.map(\.name) == ["R\u{E9}sum\u{E9}", "Summit"])
        #expect(Array(milestones[0].name.unicodeScalars) == Array("R\u{E9}sum\u{E9}".unicodeScalars), "precomposed")
        #expect(milestones.allSatisfy { $0.reached == reached }, "dates as the seconds since 2001 they held")
        #expect(milestones.allSatisfy { $0.planned == Date(timeIntervalSince1970: 86_400) })
        let composed = "R\u{E9}sum\u{E9}"
        #expect(try context.fetchCount(FetchDescriptor<Milestone>(predicate: #Predicate { $0.name == composed })) == 1)
        let tombstone = try #require(try container.fetchHistory().flatMap(\.changes).first { $0.tombstone != nil }?.tombstone)
        #expect(try tombstone.value("reached", as: Date.self) == reached, "the history's preserved date too")

        // The columns of reals have no type now: -0.0 keeps its sign.
        #expect(try Self.declaredTypes(path, "Milestone")["distance"] == "")
        milestones[1].distance = -0.0
        try context.save()
        let reread = try container.newBackgroundContext().existingObject(with: milestones[1].objectID, as: Milestone.self)
        #expect(reread.distance.sign == .minus)
        // A new row takes the date column's default, in seconds since 2001.
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "INSERT INTO Milestone (Z_UUID, name) VALUES (randomblob(16), 'raw')")
        }
        let raw = try container.newBackgroundContext().fetch(FetchDescriptor<Milestone>(predicate: #Predicate { $0.name == "raw" }))
        #expect(raw.first?.planned == Date(timeIntervalSince1970: 86_400))
    }

    @Test func aStoreWhoseUniqueTextWouldClashOncePrecomposedIsRefusedUntouched() throws {
        let path = temporaryStorePath()
        let history: [HistoryTransaction]
        do {
            let container = try ObjectContainer(for: Milestone.self, configuration: .file(path))
            let context = container.newBackgroundContext()
            context.insert(Milestone(name: "a"))
            context.insert(Milestone(name: "b"))
            try context.save()
            history = try container.fetchHistory()
        }
        try Self.downgrade(path, history: history, renames: [("a", "\u{E9}"), ("b", "e\u{301}")])
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = #expect(throws: ObjectGraphError.self) { try ObjectContainer(for: Milestone.self, configuration: .file(path)) }
        #expect(error?.code == .schemaMismatch)
        #expect(error?.schemaDifferences.map(\.location) == ["Milestone.name"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "left byte for byte as it was")
    }

    /// The checks a version that reads format 1 only makes when it opens a store: its model's hash
    /// against the stored one (equal: it opens the store as it is), then the stored model, decoded
    /// as an array of entities (a failure refuses the store).
    @Test func aStoreOfTheCurrentFormatIsRefusedByAVersionThatReadsTheEarlierOne() throws {
        let path = temporaryStorePath()
        let schema = try Schema(Milestone.self)
        _ = try ObjectContainer(schema: schema, configuration: .file(path))
        let (hash, json) = try DatabaseQueue(path: path).read { db in
            (
                try String.fetchOne(db, sql: "SELECT value FROM Z_METADATA WHERE key = 'versionHash'"),
                try #require(try String.fetchOne(db, sql: "SELECT value FROM Z_METADATA WHERE key = 'schema'"))
            )
        }
        #expect(hash != schema.versionHash, "an earlier version does not take the store for one of its model")
        #expect(throws: DecodingError.self, "nor read its model, and refuses it") {
            try JSONDecoder().decode([EntityDescription].self, from: Data(json.utf8))
        }
    }

    @Test func aStoreOfANewerFormatIsRefusedWithAClearError() throws {
        let path = temporaryStorePath()
        _ = try ObjectContainer(for: Milestone.self, configuration: .file(path))
        try DatabaseQueue(path: path).write { try $0.execute(sql: "UPDATE Z_METADATA SET value = '4' WHERE key = 'storeFormat'") }
        let error = #expect(throws: ObjectGraphError.self) { try ObjectContainer(for: Milestone.self, configuration: .file(path)) }
        #expect(error?.code == .incompatibleStore)
        #expect(error?.reason?.contains("newer version of ObjectGraph (store format 4)") == true)
    }

    @Test func aMigrationStageReadsTheDatesOfAStoreOfTheEarlierFormat() throws {
        let path = temporaryStorePath()
        let start = Date(timeIntervalSinceReferenceDate: 800_000_000.25)
        let history: [HistoryTransaction]
        do {
            let container = try ObjectContainer(for: TripV1.self, configuration: .file(path))
            let context = container.newBackgroundContext()
            context.insert(TripV1(start: start))
            try context.save()
            history = try container.fetchHistory()
        }
        try Self.downgrade(path, history: history)
        let plan = MigrationPlan(stages: [
            MigrationStage(
                from: try Schema(TripV1.self), to: try Schema(TripV2.self),
                didMigrate: { migration in
                    for var row in try migration.rows(of: "Trip") {
                        let start = try #require(try row.value("start", as: Date.self))
                        try row.setValue(start.addingTimeInterval(3600), for: "end")
                        try migration.update(row)
                    }
                })
        ])
        let context = try ObjectContainer(schema: Schema(TripV2.self), migrationPlan: plan, configuration: .file(path))
            .newBackgroundContext()
        let trip = try #require(try context.fetch(FetchDescriptor<TripV2>()).first)
        #expect(trip.start == start && trip.end == start.addingTimeInterval(3600))
    }
}
