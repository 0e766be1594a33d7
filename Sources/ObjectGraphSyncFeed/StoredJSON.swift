import Foundation
public import ObjectGraphSyncProtocol

/// The JSON text the server stores and hashes: fields, field versions, answers, batch digests.
///
/// Fields and field versions are written by `JSONTextWriter`, in one canonical form (keys in
/// order, no insignificant space), and read by `JSONTextReader`, because every push writes a
/// record's whole state and hashes its batch, and every update reads a state back: through
/// `JSONEncoder` and `JSONDecoder` that was half of a push's time.
public enum StoredJSON {
    /// A record's fields.
    public static func encode(_ fields: [String: JSONValue]) throws -> String {
        var writer = JSONTextWriter()
        try writer.writeObject(fields) { writer, value in try writer.write(value) }
        return writer.text
    }

    /// A record's field versions.
    public static func encode(_ versions: [String: Int64]) -> String {
        var writer = JSONTextWriter()
        writer.writeObject(versions) { writer, version in writer.write(version) }
        return writer.text
    }

    /// The bytes a batch's digest is taken of: the same for the same mutations, whatever the
    /// order of the keys in the JSON the client sent.
    public static func canonicalBytes(of mutations: [Mutation]) throws -> [UInt8] {
        var writer = JSONTextWriter()
        try writer.writeArray(mutations) { writer, mutation in
            writer.bytes.append(UInt8(ascii: "{"))
            writer.writeKey("baseVersion")
            if let base = mutation.baseVersion { writer.write(base) } else { writer.writeNull() }
            writer.writeKey("entity", first: false)
            writer.write(mutation.entity)
            writer.writeKey("fields", first: false)
            try writer.writeObject(mutation.fields) { writer, value in try writer.write(value) }
            writer.writeKey("id", first: false)
            writer.write(mutation.id)
            writer.writeKey("number", first: false)
            writer.write(mutation.number)
            writer.writeKey("operation", first: false)
            writer.write(mutation.operation.rawValue)
            writer.bytes.append(UInt8(ascii: "}"))
        }
        return writer.bytes
    }

    /// A push's answer, sent and kept in the ledger for replays: `PushResult`'s JSON.
    public static func encode(_ result: PushResult) -> String {
        var writer = JSONTextWriter()
        writer.bytes.append(UInt8(ascii: "{"))
        writer.writeKey("applied")
        writer.writeArray(result.applied) { writer, applied in
            writer.bytes.append(UInt8(ascii: "{"))
            writer.writeKey("id")
            writer.write(applied.id)
            writer.writeKey("number", first: false)
            writer.write(applied.number)
            writer.writeKey("version", first: false)
            writer.write(applied.version)
            writer.bytes.append(UInt8(ascii: "}"))
        }
        writer.writeKey("cursor", first: false)
        writer.write(result.cursor.description)
        writer.bytes.append(UInt8(ascii: "}"))
        return writer.text
    }

    /// A feed page: `ChangesPage`'s JSON, each record's fields spliced in as stored (the
    /// server wrote them, so they are JSON: nothing is parsed or encoded again).
    public static func encode(_ page: FeedPage) -> String {
        var writer = JSONTextWriter()
        writer.bytes.append(UInt8(ascii: "{"))
        writer.writeKey("changes")
        writer.writeArray(page.changes) { writer, change in
            writer.bytes.append(UInt8(ascii: "{"))
            if let author = change.author {
                writer.writeKey("author")
                writer.write(author)
            }
            writer.writeKey("position", first: change.author == nil)
            writer.write(change.position)
            writer.writeKey("record", first: false)
            writer.bytes.append(UInt8(ascii: "{"))
            writer.writeKey("deleted")
            writer.write(change.deleted)
            writer.writeKey("entity", first: false)
            writer.write(change.entity)
            writer.writeKey("fields", first: false)
            writer.bytes.append(contentsOf: change.fieldsJSON.utf8)
            writer.writeKey("id", first: false)
            writer.write(change.id)
            writer.writeKey("version", first: false)
            writer.write(change.version)
            writer.bytes.append(UInt8(ascii: "}"))
            writer.writeKey("transaction", first: false)
            writer.write(change.transaction)
            writer.bytes.append(UInt8(ascii: "}"))
        }
        writer.writeKey("cursor", first: false)
        writer.write(page.cursor.description)
        writer.writeKey("hasMore", first: false)
        writer.write(page.hasMore)
        writer.bytes.append(UInt8(ascii: "}"))
        return writer.text
    }

    /// A record's fields, as `encode(_:)` wrote them.
    public static func fields(from text: String) throws -> [String: JSONValue] {
        try JSONTextReader.object(of: text)
    }

    /// A record's field versions.
    public static func fieldVersions(from text: String) throws -> [String: Int64] {
        try JSONTextReader.integers(of: text)
    }

    /// A kept answer, read back for a replay.
    public static func decode<Value: Decodable>(_ type: Value.Type, from text: String) throws -> Value {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }
}
