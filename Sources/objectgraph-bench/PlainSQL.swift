import Foundation
import GRDB

/// The baseline: the same data in tables a developer would write by hand, read and written with
/// prepared GRDB statements and `Row`s.
enum PlainSQL {
    static func openDatabase(at path: String) throws -> DatabasePool {
        let pool = try DatabasePool(path: path)
        try pool.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS continent (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
                    CREATE TABLE IF NOT EXISTS country (
                        id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,
                        continentId INTEGER REFERENCES continent(id) ON DELETE CASCADE);
                    CREATE INDEX IF NOT EXISTS country_continentId ON country(continentId);
                    CREATE TABLE IF NOT EXISTS mood (
                        id INTEGER PRIMARY KEY, text TEXT NOT NULL, rating INTEGER NOT NULL, date REAL NOT NULL,
                        remoteIdentifier TEXT UNIQUE, markedForDeletionDate REAL,
                        countryId INTEGER REFERENCES country(id) ON DELETE CASCADE);
                    CREATE INDEX IF NOT EXISTS mood_countryId ON mood(countryId);
                    """)
        }
        return pool
    }

    /// Checks what a deletion left in the tables.
    static func verifyCounts(in pool: DatabasePool, continents: Int, countries: Int, moods: Int) throws {
        try pool.read { db in
            try WorkloadError.check("continents", try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM continent"), continents)
            try WorkloadError.check("countries", try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM country"), countries)
            try WorkloadError.check("moods", try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM mood"), moods)
        }
    }

    /// Inserts moods `range` of the dataset, creating the continent and countries first if the tables
    /// are empty.
    static func insert(_ range: Range<Int>, of dataset: Dataset, into pool: DatabasePool) throws {
        try pool.write { db in
            if try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM country") == 0 {
                try db.execute(sql: "INSERT INTO continent (id, name) VALUES (1, ?)", arguments: [Dataset.continentName])
                let country = try db.makeStatement(sql: "INSERT INTO country (id, name, continentId) VALUES (?, ?, 1)")
                for index in 0..<dataset.countryCount {
                    try country.execute(arguments: [index + 1, dataset.countryName(index)])
                }
            }
            let mood = try db.makeStatement(
                sql: """
                    INSERT INTO mood (text, rating, date, remoteIdentifier, markedForDeletionDate, countryId)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """)
            for index in range {
                try mood.execute(arguments: [
                    dataset.text(index), dataset.rating(index), dataset.date(index).timeIntervalSince1970,
                    dataset.remoteIdentifier(index), dataset.markedForDeletionDate(index)?.timeIntervalSince1970,
                    dataset.countryIndex(index) + 1
                ])
            }
        }
    }

    static let moodColumns = "id, text, rating, date, remoteIdentifier, markedForDeletionDate, countryId"

    /// Reads every mood column of every row a query returns.
    static func read(_ db: Database, sql: String) throws {
        let rows = try Row.fetchCursor(db.cachedStatement(sql: sql))
        while let row = try rows.next() {
            let marked: Double? = row[5]
            Sink.consume(
                row[1], row[2], Date(timeIntervalSince1970: row[3]), row[4],
                marked.map(Date.init(timeIntervalSince1970:)))
        }
    }
}
