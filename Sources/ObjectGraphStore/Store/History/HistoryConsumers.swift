package import Foundation
package import GRDB
import ObjectGraphModel

/// A registered reader of the history as stored: its name, the last sequence it read (0 for
/// none) and when it moved.
package struct StoredHistoryConsumer {
    package let name: String
    package let sequence: Int64
    package let date: Date
}

/// The registered readers of the history (`Z_HISTORYCONSUMER`): each one's name and the last
/// transaction it read, so that a purge never passes what one has not read.
package enum HistoryConsumers {
    package static let table = "Z_HISTORYCONSUMER"

    package static func create(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS \(table) (
                    Z_NAME TEXT PRIMARY KEY NOT NULL, Z_SEQUENCE INTEGER NOT NULL, Z_TIMESTAMP REAL NOT NULL)
                """)
    }

    /// Every consumer, the one furthest behind first.
    package static func all(_ db: Database) throws -> [StoredHistoryConsumer] {
        try Row.fetchAll(db, sql: "SELECT Z_NAME, Z_SEQUENCE, Z_TIMESTAMP FROM \(table) ORDER BY Z_SEQUENCE, Z_NAME").map { row in
            StoredHistoryConsumer(name: row[0], sequence: row[1], date: Date(timeIntervalSince1970: row[2]))
        }
    }

    /// The consumer furthest behind, with the last sequence it read.
    package static func oldest(_ db: Database) throws -> (name: String, sequence: Int64)? {
        guard let row = try Row.fetchOne(db, sql: "SELECT Z_NAME, Z_SEQUENCE FROM \(table) ORDER BY Z_SEQUENCE, Z_NAME LIMIT 1")
        else { return nil }
        return (row[0], row[1])
    }

    package static func set(_ name: String, sequence: Int64, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO \(table) (Z_NAME, Z_SEQUENCE, Z_TIMESTAMP) VALUES (?, ?, ?)
                ON CONFLICT (Z_NAME) DO UPDATE SET Z_SEQUENCE = excluded.Z_SEQUENCE, Z_TIMESTAMP = excluded.Z_TIMESTAMP
                """, arguments: [name, sequence, Date().timeIntervalSince1970])
    }

    package static func remove(_ name: String, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM \(table) WHERE Z_NAME = ?", arguments: [name])
    }
}
