import Foundation
import GRDB

/// The peer: the baseline's tables read and written as GRDB Codable records, the way most GRDB apps do.
struct MoodRecord: Codable, Equatable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "mood"
    static let databaseDateDecodingStrategy = DatabaseDateDecodingStrategy.timeIntervalSince1970
    static let databaseDateEncodingStrategy = DatabaseDateEncodingStrategy.timeIntervalSince1970

    var id: Int64?
    var text: String
    var rating: Int
    var date: Date
    var remoteIdentifier: String?
    var markedForDeletionDate: Date?
    var countryId: Int64?

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    func consume() {
        Sink.consume(text, rating, date, remoteIdentifier, markedForDeletionDate)
    }
}

struct CountryRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "country"

    var id: Int64?
    var name: String
    var continentId: Int64?

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

struct ContinentRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "continent"

    var id: Int64?
    var name: String

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

extension Dataset {
    /// Inserts moods `range` as records, creating the countries first if there are none.
    func insertRecords(_ range: Range<Int>, into pool: DatabasePool) throws {
        try pool.write { db in
            var countryIDs = try Int64.fetchAll(db, sql: "SELECT id FROM country ORDER BY id")
            if countryIDs.isEmpty {
                var continent = ContinentRecord(name: Dataset.continentName)
                try continent.insert(db)
                for index in 0..<countryCount {
                    var country = CountryRecord(name: countryName(index), continentId: continent.id)
                    try country.insert(db)
                    countryIDs.append(country.id ?? 0)
                }
            }
            for index in range {
                var mood = MoodRecord(
                    text: text(index), rating: rating(index), date: date(index),
                    remoteIdentifier: remoteIdentifier(index), markedForDeletionDate: markedForDeletionDate(index),
                    countryId: countryIDs[countryIndex(index)])
                try mood.insert(db)
            }
        }
    }
}
