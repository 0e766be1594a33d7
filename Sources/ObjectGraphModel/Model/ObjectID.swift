package import Foundation
import Synchronization

/// The identity of an object in a store, valid across contexts: hand it to another context (it is
/// `Sendable`) and get that context's copy of the object with ``ObjectContext/object(with:)``.
///
/// An object inserted in a context has a temporary ID until its first save, when it becomes permanent.
/// A permanent ID has a string form, ``uriRepresentation``, that survives restarts; turn it back into an
/// ID with ``ObjectContainer/objectID(forURIRepresentation:)``.
///
/// A permanent ID is `Codable` (as its string form), so it can be kept in a file or sent to another
/// process, and it can be used in a `#Predicate`:
///
/// ```swift
/// let ids: [ObjectID] = …
/// let moods = try context.fetch(FetchDescriptor<Mood>(predicate: #Predicate { ids.contains($0.objectID) }))
/// ```
public struct ObjectID: Hashable, Sendable {
    /// The entity's process-wide declaration. Declarations are never deallocated (see
    /// ``EntityDeclaration``), so the ID refers to it without reference counting: IDs are plain bits,
    /// cheap to copy, hash and store by the million.
    @usableFromInline package unowned(unsafe) let entity: EntityDeclaration
    /// The row's primary key when positive; a temporary key when negative.
    @usableFromInline package let key: Int64
    /// The store's number in this process (see ``StoreIdentity``); 0 for temporary IDs. A number
    /// rather than the store's UUID: with it an ID takes 20 bytes rather than 33 (a stride of 24
    /// rather than 40), in every object's header and every set and dictionary of IDs.
    @usableFromInline package let storeNumber: UInt32

    @inlinable package init(entity: EntityDeclaration, key: Int64, store: StoreIdentity?) {
        self.entity = entity
        self.key = key
        self.storeNumber = store?.number ?? 0
    }

    /// The store the row lives in; nil for temporary IDs.
    @inlinable package var store: StoreIdentity? { StoreIdentity(number: storeNumber) }

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

    /// The parts of a permanent ID's ``uriRepresentation``: store, entity name and key; nil when the
    /// string is not one.
    package static func parts(ofURIRepresentation string: String) -> (store: UUID, entity: String, key: Int64)? {
        let scheme = "x-objectgraph://"
        guard string.hasPrefix(scheme) else { return nil }
        let parts = string.dropFirst(scheme.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, let store = UUID(uuidString: String(parts[0])), !parts[1].isEmpty,
            parts[2].first == "p", let key = Int64(parts[2].dropFirst()), key > 0
        else { return nil }
        return (store, String(parts[1]), key)
    }

    /// Whether this ID comes first in the order a sorted fetch gives objects its sort finds equal:
    /// saved objects by primary key (as SQL orders them), then unsaved ones in the order they were
    /// made (their first save gives them keys after every existing one).
    package func precedesInStoreOrder(_ other: ObjectID) -> Bool {
        switch (isTemporary, other.isTemporary) {
        case (false, false): return key < other.key
        case (true, true): return key > other.key  // temporary keys count down from -1
        case (false, true): return true
        case (true, false): return false
        }
    }

    package static func temporary(for entity: EntityDeclaration) -> ObjectID {
        ObjectID(entity: entity, key: -TemporaryKeys.next(), store: nil)
    }

    @inlinable public static func == (lhs: ObjectID, rhs: ObjectID) -> Bool {
        lhs.key == rhs.key && lhs.entity === rhs.entity && lhs.storeNumber == rhs.storeNumber
    }

    // One combined word: a hasher fed once costs much less than one fed twice. The store is left
    // out: IDs of one entity in different stores are rare in one table, and equality still tells
    // them apart.
    @inlinable public func hash(into hasher: inout Hasher) {
        hasher.combine(combinedBits)
    }

    /// The hash sets and dictionaries use: one multiplication instead of SipHash, as for primary keys
    /// in the uniquing table (see `RowKey`). Large to-many relationships are ordered sets of IDs, and
    /// loading one hashes every member.
    @_documentation(visibility: internal)
    @inlinable public func _rawHashValue(seed: Int) -> Int {
        CheapHash.mix(combinedBits, seed: seed)
    }

    @usableFromInline package var combinedBits: UInt64 {
        let entityBits = UInt64(UInt(bitPattern: Unmanaged.passUnretained(entity).toOpaque()))
        return UInt64(bitPattern: key) ^ (entityBits << 40 | entityBits >> 24)
    }
}

extension ObjectID: CustomStringConvertible {
    public var description: String { "\(entity.name)/\(key < 0 ? "t\(-key)" : "p\(key)")" }
}

extension ObjectID: Codable {
    /// Decodes an ID from its ``uriRepresentation``.
    ///
    /// The store it names must have been opened in this process (by any container), so that its
    /// entity is known.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when the string is not a permanent ID, or names a
    ///   store or entity not opened in this process.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        guard let parts = Self.parts(ofURIRepresentation: string) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "\(string) is not the string of a permanent object ID")
        }
        guard let entity = OpenedStores.entity(named: parts.entity, in: parts.store) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "\(string) names an entity of a store not opened in this process: "
                    + "open a container for the store before decoding its IDs")
        }
        self.init(entity: entity, key: parts.key, store: StoreIdentity(uuid: parts.store))
    }

    /// Encodes the ID as its ``uriRepresentation``.
    ///
    /// - Throws: `EncodingError.invalidValue` for a temporary ID: it names no row, and means nothing
    ///   outside its context. Save the object first.
    public func encode(to encoder: any Encoder) throws {
        guard !isTemporary else {
            throw EncodingError.invalidValue(
                self,
                EncodingError.Context(
                    codingPath: encoder.codingPath,
                    debugDescription: "\(self) is temporary: save its object before encoding its ID"))
        }
        var container = encoder.singleValueContainer()
        try container.encode(uriRepresentation)
    }
}

/// The entities of every store opened in this process, by store: what a decoded ID refers to.
package enum OpenedStores {
    private static let entities = Locked<[UUID: [String: EntityDeclaration]]>([:])

    package static func register(_ declarations: [EntityDeclaration], store: UUID) {
        let byName = Dictionary(declarations.map { ($0.name, $0) }, uniquingKeysWith: { $1 })
        entities.withLock { $0[store, default: [:]].merge(byName) { $1 } }
    }

    package static func entity(named name: String, in store: UUID) -> EntityDeclaration? {
        entities.withLock { $0[store]?[name] }
    }
}

/// Identifies a store by the UUID kept in its metadata, so that IDs of different stores never compare
/// equal, and IDs stay valid for every container opening the same file.
///
/// Held as the number the process gave that UUID the first time it saw it (see ``StoreNumbers``):
/// every object ID carries its store, and four bytes are cheaper to copy, compare and keep than
/// sixteen.
@usableFromInline package struct StoreIdentity: Hashable, Sendable {
    /// Never 0, which object IDs use for "no store".
    @usableFromInline package let number: UInt32

    package init(uuid: UUID) {
        number = StoreNumbers.number(for: uuid)
    }

    /// The identity with this number; nil for 0.
    @usableFromInline package init?(number: UInt32) {
        guard number != 0 else { return nil }
        self.number = number
    }

    package var uuid: UUID { StoreNumbers.uuid(numbered: number) }
}

/// The process's numbering of store UUIDs, from 1, in the order they were first seen. Only the
/// stores a container opened are numbered (an ID decoded from a string names an opened store, or is
/// refused), so the table grows with the stores opened, like ``OpenedStores``.
package enum StoreNumbers {
    private static let table = Locked<(numbers: [UUID: UInt32], uuids: [UUID])>(([:], []))

    package static func number(for uuid: UUID) -> UInt32 {
        table.withLock { table in
            if let number = table.numbers[uuid] { return number }
            // Four billion stores opened in one process would run out of numbers; rather than
            // wrapping to a number another store has, stop.
            precondition(table.uuids.count < UInt32.max, "more than 4,294,967,294 stores opened in one process")
            table.uuids.append(uuid)
            let number = UInt32(table.uuids.count)
            table.numbers[uuid] = number
            return number
        }
    }

    package static func uuid(numbered number: UInt32) -> UUID {
        // Numbers come only from `number(for:)`, so the entry exists.
        table.withLock { $0.uuids[Int(number) - 1] }
    }
}

/// Hands out temporary keys, unique in the process: an atomic counter, as every new object takes one.
package enum TemporaryKeys {
    private static let counter = Atomic<Int64>(0)
    package static func next() -> Int64 {
        counter.wrappingAdd(1, ordering: .relaxed).newValue
    }
}
