public import Foundation
public import ObjectGraph
public import ObjectGraphSyncProtocol

/// An entity whose objects sync with a sync server: opting in is adopting this protocol.
///
/// ```swift
/// @Entity final class Mood: Syncable {
///     var text: String
///     var rating = 3
///     @Relationship(inverse: \Country.moods) var country: Country?
///
///     static var syncConfiguration: SyncConfiguration {
///         SyncConfiguration(excluding: ["draftNotes"], fieldNames: ["text": "body"])
///     }
/// }
/// ```
///
/// An object's record on the server is identified by the object's global ID
/// (`objectGlobalID`), made by the device that inserted it: no round trip
/// assigns identifiers, and an object made offline is already what the server will know it as.
/// Every attribute and relationship syncs under its own name unless the configuration says
/// otherwise; an entity that does not adopt the protocol stays local.
public protocol Syncable: Entity {
    /// How the entity syncs: its record type, which properties sync and under which field names,
    /// and what settles a conflict.
    static var syncConfiguration: SyncConfiguration { get }
}

extension Syncable {
    /// Every attribute and relationship, under its own name; the server's value wins a conflict.
    public static var syncConfiguration: SyncConfiguration { SyncConfiguration() }
}

/// How a ``Syncable`` entity syncs.
public struct SyncConfiguration: Sendable {
    /// The record type on the server; nil for the entity's name.
    public var recordType: String?
    /// The properties that stay local (attributes or relationships, by property name).
    public var excludedProperties: Set<String>
    /// Field names on the server, by property name, for the properties named otherwise there.
    public var fieldNames: [String: String]
    /// What settles a conflict: the same field changed here and on the server since this device
    /// last saw the server's record.
    public var conflictPolicy: ConflictPolicy
    /// What settles a deletion on one side against an edit on the other.
    public var deletionRule: DeletionRule
    /// What settles two records that hold the same value of a unique attribute.
    public var uniqueClashPolicy: UniqueClashPolicy

    /// A configuration; by default every property syncs under its name, the server wins, and
    /// records with the same unique value merge.
    public init(
        recordType: String? = nil, excluding excludedProperties: Set<String> = [],
        fieldNames: [String: String] = [:], conflictPolicy: ConflictPolicy = .serverWins,
        deletionRule: DeletionRule = .deletionWins, uniqueClashPolicy: UniqueClashPolicy = .merge
    ) {
        self.recordType = recordType
        self.excludedProperties = excludedProperties
        self.fieldNames = fieldNames
        self.conflictPolicy = conflictPolicy
        self.deletionRule = deletionRule
        self.uniqueClashPolicy = uniqueClashPolicy
    }
}

/// What settles two records that hold the same value of a unique attribute: a country "France"
/// made on two devices while offline. Every device decides alike, with no coordination: of the
/// two, the record with the smaller ID (compared as text) keeps its value.
public enum UniqueClashPolicy: Sendable {
    /// The other record merges into it: the members of its to-many relationships move to the
    /// survivor (every reference to it follows), and it is deleted. The survivor keeps its own
    /// fields.
    case merge
    /// Both stay: the other takes a new value for each text attribute that clashes, which the
    /// closure makes from the value and the record's ID (the same on every device). An attribute
    /// of another type merges.
    case keepBoth(renaming: @Sendable (_ value: String, _ recordID: UUID) -> String)

    /// Both stay; the other's value is followed by the start of its ID: "France (3F2A9C1B)".
    public static var keepBoth: UniqueClashPolicy {
        .keepBoth { value, recordID in "\(value) (\(recordID.uuidString.prefix(8)))" }
    }
}

/// What settles a conflict of one field: this device and another changed it since this device
/// last saw the server's record. Edits of different fields never conflict (the server keeps a
/// version per field), and neither does an edit that leaves a field as the server has it.
public enum ConflictPolicy: Sendable {
    /// The server's value stays, and this device's edit of the field is dropped.
    case serverWins
    /// This device's value replaces the server's.
    case clientWins
    /// A closure decides, given the field's value as this device last saw it on the server (the
    /// base), its value here, and its value on the server now; it returns the value to keep, which
    /// is then sent to the server.
    case merge(@Sendable (_ conflict: FieldConflict) -> JSONValue)
}

/// One field both sides changed, as a ``ConflictPolicy/merge(_:)`` closure sees it.
public struct FieldConflict: Sendable {
    /// The record type (the entity's, unless configured otherwise).
    public var recordType: String
    /// The record.
    public var recordID: UUID
    /// The field, as the server names it.
    public var field: String
    /// The field's value when this device last saw the server's record; nil when the record is new
    /// to this device or the field was not there.
    public var base: JSONValue?
    /// The value here.
    public var local: JSONValue
    /// The value on the server now.
    public var server: JSONValue
}

/// What settles a deletion on one device against an edit of the same record on another.
public enum DeletionRule: Sendable {
    /// The record is deleted on every device; the edit is dropped.
    case deletionWins
    /// The edited record stays: a deletion made here is taken back, and a deletion from the server
    /// does not remove an object edited here (which is sent again, as a new record state).
    case editWins
}
