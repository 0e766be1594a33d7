import Foundation
import GRDB
import ObjectGraph

/// A sensor's reading: one per sensor and time, a `#Unique` group of two attributes.
@Entity final class Reading {
    #Unique<Reading>([\.sensor, \.time])
    var sensor: Int
    var time: Int
    var value: Double
    init(sensor: Int, time: Int, value: Double) {
        self.sensor = sensor
        self.time = time
        self.value = value
    }
}

/// A reading as GRDB's records write it.
struct ReadingRecord: Codable, PersistableRecord {
    static let databaseTableName = "reading"
    var sensor: Int
    var time: Int
    var value: Double
}

/// What a `#Unique` group costs an insert: every side keeps the same unique index over two columns.
enum GroupWorkloads {
    static func make(dataset: Dataset, files: ScratchFiles) -> [Workload] {
        [insert(count: dataset.moodCount, files: files)]
    }

    /// Reading `index` of `count`: 100 sensors, each with consecutive times.
    static func reading(_ index: Int) -> (sensor: Int, time: Int, value: Double) {
        (index % 100, index / 100, Double(index) * 0.5)
    }

    static let createTable = """
        CREATE TABLE reading (id INTEGER PRIMARY KEY, sensor INTEGER NOT NULL, time INTEGER NOT NULL, value REAL NOT NULL);
        CREATE UNIQUE INDEX reading_sensor_time ON reading(sensor, time);
        """

    static func openDatabase(at path: String) throws -> DatabasePool {
        let pool = try DatabasePool(path: path)
        try pool.write { db in try db.execute(sql: createTable) }
        return pool
    }

    /// Insert `count` readings and save, each run on a fresh file.
    static func insert(count: Int, files: ScratchFiles) -> Workload {
        var graph: ObjectContainer?
        var plain: DatabasePool?
        var records: DatabasePool?
        var raw: RawDatabase?
        func verify(_ rows: () throws -> Int) throws { try WorkloadError.check("readings", try rows(), count) }
        return Workload(
            name: "insert \(count) readings with a #Unique (sensor, time) and save",
            objectGraph: Contender(
                prepare: {
                    graph = nil
                    graph = try ObjectContainer(for: Reading.self, configuration: .file(files.fresh("group-graph.sqlite")))
                },
                run: {
                    guard let graph else { return }
                    let context = graph.newBackgroundContext()
                    for index in 0..<count {
                        let (sensor, time, value) = reading(index)
                        context.insert(Reading(sensor: sensor, time: time, value: value))
                    }
                    try context.save()
                },
                verify: { try verify { try graph?.newBackgroundContext().fetchCount(FetchDescriptor<Reading>()) ?? 0 } }),
            baseline: Contender(
                prepare: {
                    plain = nil
                    plain = try openDatabase(at: files.fresh("group-plain.sqlite"))
                },
                run: {
                    try plain?.write { db in
                        let statement = try db.makeStatement(sql: "INSERT INTO reading (sensor, time, value) VALUES (?, ?, ?)")
                        for index in 0..<count {
                            let (sensor, time, value) = reading(index)
                            try statement.execute(arguments: [sensor, time, value])
                        }
                    }
                }),
            peer: Contender(
                prepare: {
                    records = nil
                    records = try openDatabase(at: files.fresh("group-records.sqlite"))
                },
                run: {
                    try records?.write { db in
                        for index in 0..<count {
                            let (sensor, time, value) = reading(index)
                            try ReadingRecord(sensor: sensor, time: time, value: value).insert(db)
                        }
                    }
                }),
            raw: Contender(
                prepare: {
                    raw = nil
                    let path = files.fresh("group-raw.sqlite")
                    do { _ = try openDatabase(at: path) }  // closed when released
                    raw = try RawDatabase(path: path)
                },
                run: {
                    guard let raw else { return }
                    try raw.transaction {
                        let statement = try raw.prepare("INSERT INTO reading (sensor, time, value) VALUES (?, ?, ?)")
                        for index in 0..<count {
                            let (sensor, time, value) = reading(index)
                            try statement.bind(Int64(sensor), at: 1)
                            try statement.bind(Int64(time), at: 2)
                            try statement.bind(value, at: 3)
                            try statement.run()
                        }
                    }
                }))
    }
}
