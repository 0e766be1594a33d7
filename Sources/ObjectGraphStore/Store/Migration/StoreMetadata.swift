package import Foundation
package import GRDB
package import ObjectGraphModel

/// What `Z_METADATA` says of a store: the format its values are stored in, its UUID, and the model
/// it was last migrated to.
///
/// Format 1 stored dates as seconds since 1970 in REAL columns (which turn -0.0 into 0) and text as
/// it was given. Format 2 (issue 43) stores the seconds since 2001 a `Date` holds, reals in columns
/// without affinity, and text precomposed (see ``StoreFormatUpgrade``). A format-2 store writes its
/// version hash with a suffix and its model inside an object, so that a version of ObjectGraph that
/// reads format 1 only, which compares the hash and then decodes an array, refuses it
/// (``ObjectGraphError/Code/incompatibleStore``) instead of reading its dates wrong. Format 3
/// (issue 49) keeps the history as records (see ``HistoryTables``), its tables as format 2 does: a
/// version that reads formats 1 and 2 refuses it, where it would open it and fail at its first save.
package struct StoreMetadata {
    package static let table = "Z_METADATA"
    /// The format this version writes.
    package static let currentFormat = 3
    /// What follows the version hash in the metadata of a store of format 2 or later.
    private static let hashSuffix = ".2"
    /// The seconds from 1970 to 2001: a format-1 date plus this is a format-2 date.
    package static let referenceDateOffset = Date.timeIntervalBetween1970AndReferenceDate

    package let format: Int
    package let uuid: UUID
    /// The model, as this version describes it (a format-1 store's date defaults converted).
    package let entities: [EntityDescription]
    /// The hash of ``entities`` (see ``Schema/versionHash``), as a migration plan names versions.
    package let versionHash: String

    /// The metadata of the store `db` opens; nil for a database without the metadata table.
    ///
    /// - Throws: ``ObjectGraphError/incompatibleStore(path:reason:)`` when the metadata is
    ///   incomplete or unreadable, or written by a newer version of ObjectGraph.
    package static func read(_ db: Database, path: String) throws -> StoreMetadata? {
        guard try db.tableExists(table) else { return nil }
        let values = Dictionary(
            try Row.fetchAll(db, sql: "SELECT key, value FROM \(table)").map { (row: Row) -> (String, String) in (row[0], row[1]) },
            uniquingKeysWith: { first, _ in first })
        let format = values["storeFormat"].flatMap(Int.init) ?? 1
        guard format <= currentFormat else {
            throw ObjectGraphError.incompatibleStore(
                path: path,
                reason:
                    "it was written by a newer version of ObjectGraph (store format \(format)); this version reads formats 1 to \(currentFormat)"
            )
        }
        guard let uuid = values["uuid"].flatMap(UUID.init(uuidString:)), let storedHash = values["versionHash"],
            let schemaJSON = values["schema"]
        else {
            throw ObjectGraphError.incompatibleStore(path: path, reason: "its ObjectGraph metadata is incomplete")
        }
        do {
            let data = Data(schemaJSON.utf8)
            if format == 1 {
                let stored = try JSONDecoder().decode([EntityDescription].self, from: data)
                let entities = stored.map(Self.inFormat2)
                return StoreMetadata(format: 1, uuid: uuid, entities: entities, versionHash: try Schema.hash(of: entities))
            }
            let model = try JSONDecoder().decode(Model.self, from: data)
            return StoreMetadata(
                format: format, uuid: uuid, entities: model.entities, versionHash: String(storedHash.dropLast(hashSuffix.count)))
        } catch let error as ObjectGraphError {
            throw error
        } catch {
            throw ObjectGraphError.incompatibleStore(path: path, reason: "its stored schema cannot be read (\(error))")
        }
    }

    /// Writes the metadata of a store in the current format, at the version of `entities`.
    package static func write(_ db: Database, uuid: UUID, entities: [EntityDescription], versionHash: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(Model(storeFormat: currentFormat, entities: entities)), as: UTF8.self)
        for (key, value) in [
            ("uuid", uuid.uuidString), ("versionHash", versionHash + hashSuffix), ("schema", json),
            ("storeFormat", String(currentFormat))
        ] {
            try db.execute(sql: "INSERT OR REPLACE INTO \(table) (key, value) VALUES (?, ?)", arguments: [key, value])
        }
    }

    /// The model as a format-2 store keeps it: an object (a format-1 reader expects an array).
    private struct Model: Codable {
        package var storeFormat: Int
        package var entities: [EntityDescription]
    }

    /// A format-1 description as format 2 describes it: date defaults in seconds since 2001.
    private static func inFormat2(_ entity: EntityDescription) -> EntityDescription {
        var entity = entity
        for index in entity.attributes.indices where entity.attributes[index].type == .date {
            switch entity.attributes[index].defaultValue {
            case .real(let seconds)?: entity.attributes[index].defaultValue = .real(seconds - referenceDateOffset)
            case .integer(let seconds)?: entity.attributes[index].defaultValue = .real(Double(seconds) - referenceDateOffset)
            default: break
            }
        }
        return entity
    }
}
