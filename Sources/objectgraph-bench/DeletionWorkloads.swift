import Foundation
import GRDB
import ObjectGraph

/// Issue 3's workloads: a cascade through a whole continent, and moods deleted with nullify. Each run
/// deletes from a fresh copy of a store filled once.
enum DeletionWorkloads {
    static func make(dataset: Dataset, files: ScratchFiles) -> [Workload] {
        let templates = TemplateStores(dataset: dataset, files: files)
        return [cascade(templates), nullify(count: dataset.moodCount / 10, templates)]
    }

    /// Delete the continent, which cascades to every country and every mood, and save.
    static func cascade(_ templates: TemplateStores) -> Workload {
        var graph: ObjectContainer?
        var plain: DatabasePool?
        var records: DatabasePool?
        var raw: RawDatabase?
        return Workload(
            name: "delete a continent: \(templates.dataset.countryCount) countries, \(templates.dataset.moodCount) moods",
            setUp: templates.fill,
            objectGraph: Contender(
                prepare: {
                    graph = nil; graph = try templates.graphCopy("cascade")
                },
                run: { if let graph { try deleteContinents(in: graph) } },
                verify: { try graph.map { try ObjectGraphSide.verifyCounts(in: $0, continents: 0, countries: 0, moods: 0) } }),
            baseline: Contender(
                prepare: {
                    plain = nil; plain = try templates.plainCopy("cascade-plain")
                },
                run: { try plain?.write { db in try db.execute(sql: "DELETE FROM continent") } },
                verify: { try plain.map { try PlainSQL.verifyCounts(in: $0, continents: 0, countries: 0, moods: 0) } }),
            peer: Contender(
                prepare: {
                    records = nil; records = try templates.plainCopy("cascade-records")
                },
                run: {
                    try records?.write { db in
                        for continent in try ContinentRecord.fetchAll(db) { try continent.delete(db) }
                    }
                },
                verify: { try records.map { try PlainSQL.verifyCounts(in: $0, continents: 0, countries: 0, moods: 0) } }),
            raw: Contender(
                prepare: {
                    raw = nil; raw = try templates.rawCopy("cascade-raw")
                },
                run: { try raw?.transaction { try raw?.execute("DELETE FROM continent") } },
                verify: { try raw.map { try RawSQL.verifyCounts(in: $0, continents: 0, countries: 0, moods: 0) } })
        ).replaying(
            StatementFloor(
                files: templates.files, name: "cascade", snapshot: { templates.graphTemplatePath }, body: deleteContinents
            ))
    }

    private static func deleteContinents(in container: ObjectContainer) throws {
        let context = container.newBackgroundContext()
        for continent in try context.fetch(FetchDescriptor<Continent>()) { context.delete(continent) }
        try context.save()
    }

    private static func deleteMoods(count: Int, in container: ObjectContainer) throws {
        let context = container.newBackgroundContext()
        context.delete(try context.fetch(FetchDescriptor<Mood>(fetchLimit: count, includesMarkedForDeletion: true)))
        try context.save()
    }

    /// Delete `count` moods, which leaves their countries (nullify), and save.
    static func nullify(count: Int, _ templates: TemplateStores) -> Workload {
        var graph: ObjectContainer?
        var plain: DatabasePool?
        var records: DatabasePool?
        var raw: RawDatabase?
        // Every country keeps moods (the dataset spreads moods evenly), so none goes with them.
        let dataset = templates.dataset
        let expected = (continents: 1, countries: dataset.countryCount, moods: dataset.moodCount - count)
        return Workload(
            name: "delete \(count) moods (nullify) and save",
            setUp: templates.fill,
            objectGraph: Contender(
                prepare: {
                    graph = nil; graph = try templates.graphCopy("nullify")
                },
                run: { if let graph { try deleteMoods(count: count, in: graph) } },
                verify: {
                    try graph.map {
                        try ObjectGraphSide.verifyCounts(
                            in: $0, continents: expected.continents,
                            countries: expected.countries, moods: expected.moods)
                    }
                }),
            baseline: Contender(
                prepare: {
                    plain = nil; plain = try templates.plainCopy("nullify-plain")
                },
                run: {
                    try plain?.write { db in
                        let keys = try Int64.fetchAll(db, sql: "SELECT id FROM mood ORDER BY id LIMIT ?", arguments: [count])
                        let delete = try db.makeStatement(sql: "DELETE FROM mood WHERE id = ?")
                        for key in keys { try delete.execute(arguments: [key]) }
                    }
                },
                verify: {
                    try plain.map {
                        try PlainSQL.verifyCounts(
                            in: $0, continents: expected.continents,
                            countries: expected.countries, moods: expected.moods)
                    }
                }),
            peer: Contender(
                prepare: {
                    records = nil; records = try templates.plainCopy("nullify-records")
                },
                run: {
                    try records?.write { db in
                        for mood in try MoodRecord.order(Column("id")).limit(count).fetchAll(db) { try mood.delete(db) }
                    }
                },
                verify: {
                    try records.map {
                        try PlainSQL.verifyCounts(
                            in: $0, continents: expected.continents,
                            countries: expected.countries, moods: expected.moods)
                    }
                }),
            raw: Contender(
                prepare: {
                    raw = nil; raw = try templates.rawCopy("nullify-raw")
                },
                run: { if let raw { try RawSQL.deleteMoods(count: count, in: raw) } },
                verify: {
                    try raw.map {
                        try RawSQL.verifyCounts(
                            in: $0, continents: expected.continents, countries: expected.countries, moods: expected.moods)
                    }
                })
        ).replaying(
            StatementFloor(
                files: templates.files, name: "nullify", snapshot: { templates.graphTemplatePath },
                body: { try deleteMoods(count: count, in: $0) }
            ))
    }
}

/// A filled ObjectGraph store and a filled plain one, made once and copied for each destructive run.
final class TemplateStores {
    let dataset: Dataset
    let files: ScratchFiles
    private var isFilled = false

    init(dataset: Dataset, files: ScratchFiles) {
        self.dataset = dataset
        self.files = files
    }

    /// Fills both templates the first time; untimed. The stores are closed afterwards, so that each
    /// is one file (SQLite folds the WAL into it when the last connection closes).
    func fill() throws {
        guard !isFilled else { return }
        do {
            let graph = try ObjectGraphSide.openContainer(at: files.fresh("template-graph.sqlite"))
            try ObjectGraphSide.insert(0..<dataset.moodCount, of: dataset, into: graph)
            let plain = try PlainSQL.openDatabase(at: files.fresh("template-plain.sqlite"))
            try PlainSQL.insert(0..<dataset.moodCount, of: dataset, into: plain)
        }
        isFilled = true
    }

    /// The filled ObjectGraph store, closed (see ``fill()``).
    var graphTemplatePath: String { files.path("template-graph.sqlite") }

    func graphCopy(_ name: String) throws -> ObjectContainer {
        try ObjectGraphSide.openContainer(at: copy("template-graph.sqlite", to: "\(name).sqlite"))
    }

    func plainCopy(_ name: String) throws -> DatabasePool {
        try PlainSQL.openDatabase(at: copy("template-plain.sqlite", to: "\(name).sqlite"))
    }

    func rawCopy(_ name: String) throws -> RawDatabase {
        try RawDatabase(path: copy("template-plain.sqlite", to: "\(name).sqlite"))
    }

    /// A copy made by ``plainCopy(_:)`` (and closed since), opened raw.
    func rawDatabase(_ name: String) throws -> RawDatabase {
        try RawDatabase(path: files.path("\(name).sqlite"))
    }

    private func copy(_ template: String, to name: String) throws -> String {
        let destination = files.fresh(name)
        try FileManager.default.copyItem(atPath: files.path(template), toPath: destination)
        return destination
    }
}
