import Foundation

/// The identity of an object in a store, valid across contexts: hand it to another context (it is
/// `Sendable`) and get that context's copy of the object with ``ObjectContext/object(with:)``.
///
/// An object inserted in a context has a temporary ID until its first save, when it becomes permanent.
/// A permanent ID has a string form, ``uriRepresentation``, that survives restarts; turn it back into an
/// ID with ``ObjectContainer/objectID(forURIRepresentation:)``.
public struct ObjectID: Hashable, Sendable {
    /// The entity's process-wide declaration. Declarations are never deallocated (see
    /// ``EntityDeclaration``), so the ID refers to it without reference counting: IDs are plain bits,
    /// cheap to copy, hash and store by the million.
    unowned(unsafe) let entity: EntityDeclaration
    /// The row's primary key when positive; a temporary key when negative.
    let key: Int64
    /// The store the row lives in; nil for temporary IDs.
    let store: StoreIdentity?

    /// The name of the object's entity.
    public var entityName: String { entity.name }

    /// Whether the ID is temporary, that is, the object has not been saved yet.
    public var isTemporary: Bool { key < 0 }

    /// A string that identifies the object in its store across restarts, for example
    /// `x-objectgraph://6F1C…/Mood/p42`. Temporary IDs have one too, valid only in this process.
    public var uriRepresentation: String {
        let host = store?.uuid.uuidString ?? "temporary"
        return "x-objectgraph://\(host)/\(entity.name)/\(key < 0 ? "t\(-key)" : "p\(key)")"
    }

    static func temporary(for entity: EntityDeclaration) -> ObjectID {
        ObjectID(entity: entity, key: -TemporaryKeys.next(), store: nil)
    }

    public static func == (lhs: ObjectID, rhs: ObjectID) -> Bool {
        lhs.key == rhs.key && lhs.entity === rhs.entity && lhs.store == rhs.store
    }

    // One combined word: a hasher fed once costs much less than one fed twice. The store is left
    // out: IDs of one entity in different stores are rare in one table, and equality still tells
    // them apart.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(combinedBits)
    }

    /// The hash sets and dictionaries use: one multiplication instead of SipHash, as for primary keys
    /// in the uniquing table (see `RowKey`). Large to-many relationships are ordered sets of IDs, and
    /// loading one hashes every member.
    public func _rawHashValue(seed: Int) -> Int {
        CheapHash.mix(combinedBits, seed: seed)
    }

    private var combinedBits: UInt64 {
        let entityBits = UInt64(UInt(bitPattern: Unmanaged.passUnretained(entity).toOpaque()))
        return UInt64(bitPattern: key) ^ (entityBits << 40 | entityBits >> 24)
    }
}

extension ObjectID: CustomStringConvertible {
    public var description: String { "\(entity.name)/\(key < 0 ? "t\(-key)" : "p\(key)")" }
}

/// Identifies a store by the UUID kept in its metadata, so that IDs of different stores never compare
/// equal, and IDs stay valid for every container opening the same file.
struct StoreIdentity: Hashable, Sendable {
    let uuid: UUID
}

/// Hands out temporary keys, unique in the process.
enum TemporaryKeys {
    private static let counter = Locked<Int64>(0)
    static func next() -> Int64 { counter.withLock { $0 += 1; return $0 } }
}
