public import Foundation
public import ObjectGraphContext
public import ObjectGraphModel

/// A place in a store's history: every committed transaction has a larger one than those before
/// it, in every process. Keep the token of the last transaction read (it is `Codable`) to read
/// only what came after it next time.
public struct HistoryToken: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The transaction's sequence number in the store.
    public let sequence: Int64

    /// The token of the transaction with this sequence number.
    public init(sequence: Int64) {
        self.sequence = sequence
    }

    public static func < (lhs: HistoryToken, rhs: HistoryToken) -> Bool { lhs.sequence < rhs.sequence }

    public var description: String { "#\(sequence)" }
}

/// One committed transaction of the persistent history: a save, a batch operation, or either of
/// another process writing the same store file.
public struct HistoryTransaction: Sendable, Identifiable {
    /// Its place in the history.
    public let token: HistoryToken
    /// The name of the context that committed it (``ObjectContext/name``), if it had one.
    public let author: String?
    /// When it was committed.
    public let date: Date
    /// What it did to each object, in no particular order.
    public let changes: [HistoryChange]

    public var id: HistoryToken { token }

    package init(token: HistoryToken, author: String?, date: Date, changes: [HistoryChange]) {
        self.token = token
        self.author = author
        self.date = date
        self.changes = changes
    }
}

/// What one transaction did to one object.
public struct HistoryChange: Sendable {
    /// The kinds of change.
    public enum Kind: Sendable, Hashable {
        case insert
        case update
        case delete
    }

    /// Insert, update or delete.
    public let kind: Kind
    /// The object's ID in this store (a deleted object's ID names a row that is gone).
    public let objectID: ObjectID
    /// The object's entity.
    public var entityName: String { objectID.entityName }
    /// The object's global identifier, stable across stores and processes (what a sync layer sends).
    public let globalID: UUID
    /// For an update, the properties it changed; empty otherwise.
    public let changedKeys: Set<String>
    /// For a deletion, the values of the attributes the entity preserves
    /// (`@Attribute(.preserveValueOnDeletion)`); nil otherwise.
    public let tombstone: Tombstone?

    package init(kind: Kind, objectID: ObjectID, globalID: UUID, changedKeys: Set<String>, tombstone: Tombstone?) {
        self.kind = kind
        self.objectID = objectID
        self.globalID = globalID
        self.changedKeys = changedKeys
        self.tombstone = tombstone
    }
}

/// What the history keeps of a deleted object: the attributes declared with
/// `@Attribute(.preserveValueOnDeletion)`, as they were when the row went.
public struct Tombstone: Sendable, Hashable {
    /// The deleted object.
    public let objectID: ObjectID
    /// The preserved values, by attribute name.
    public let values: [String: StoredValue]

    package init(objectID: ObjectID, values: [String: StoredValue]) {
        self.objectID = objectID
        self.values = values
    }

    /// A preserved value, typed; nil if the attribute was not preserved, or was nil.
    ///
    /// ```swift
    /// let remoteID = try change.tombstone?.value("remoteIdentifier", as: String.self)
    /// ```
    ///
    /// - Throws: ``ObjectGraphError/unreadableValue(_:property:reason:)`` when the preserved value
    ///   does not convert to `Value`.
    public func value<Value: AttributeValue>(_ name: String, as type: Value.Type = Value.self) throws -> Value? {
        guard let stored = values[name], !stored.isNull else { return nil }
        if let value = Value(storedValue: stored) { return value }
        do {
            return try Value(checkedStoredValue: stored)
        } catch {
            throw ObjectGraphError.unreadableValue(objectID, property: name, reason: "\(error)")
        }
    }
}

/// Which transactions of the history to read: after a token, by authors, touching entities, within
/// dates. Every condition left nil matches everything.
///
/// ```swift
/// var request = HistoryRequest(after: lastToken)
/// request.authors = ["sync"]
/// request.entityNames = ["Mood"]
/// let transactions = try container.fetchHistory(request)
/// ```
public struct HistoryRequest: Sendable {
    /// Only transactions committed after this one.
    public var token: HistoryToken?
    /// Only transactions by one of these authors.
    public var authors: Set<String>?
    /// No transactions by these authors (those without an author are kept): a sync layer reading
    /// what the app changed leaves out its own saves without reading them.
    public var excludedAuthors: Set<String>?
    /// Only changes to objects of these entities (transactions without one are left out).
    public var entityNames: Set<String>?
    /// Only transactions committed at this date or later.
    public var startDate: Date?
    /// Only transactions committed before this date.
    public var endDate: Date?
    /// At most this many transactions, the oldest first.
    public var fetchLimit: Int?

    /// A request; every condition is optional.
    public init(
        after token: HistoryToken? = nil, authors: Set<String>? = nil, entityNames: Set<String>? = nil,
        from startDate: Date? = nil, to endDate: Date? = nil, fetchLimit: Int? = nil
    ) {
        self.token = token
        self.authors = authors
        self.entityNames = entityNames
        self.startDate = startDate
        self.endDate = endDate
        self.fetchLimit = fetchLimit
    }

    /// Limits the request to entities, by type.
    public mutating func include(_ types: any Entity.Type...) {
        entityNames = (entityNames ?? []).union(types.map { $0._$entity.name })
    }
}

extension DidSave {
    /// The save's place in the persistent history.
    public var historyToken: HistoryToken { HistoryToken(sequence: sequence) }
}
