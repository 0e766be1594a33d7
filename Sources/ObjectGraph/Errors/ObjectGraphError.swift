public import Foundation

/// Errors thrown by ObjectGraph. Each names the entity, object and property involved.
public enum ObjectGraphError: Error, Sendable, Equatable {
    /// A save found objects that break the schema's rules; nothing was written.
    case validationFailed([ValidationFailure])
    /// No object with this ID exists in the store.
    case objectNotFound(ObjectID)
    /// A fault's row was deleted from the store (by another context) before the fault was read.
    case inaccessibleFault(ObjectID)
    /// A string is not an object ID of this store.
    case invalidObjectIDString(String)
    /// An object ID that belongs to another store or model.
    case foreignObjectID(ObjectID)
    /// The store's schema differs from the model in ways that cannot migrate automatically.
    case schemaMismatch([SchemaDifference])
    /// The model itself is inconsistent (for example a relationship without an inverse).
    case invalidModel(String)
    /// The file is a database that ObjectGraph did not create, or not a database at all.
    case incompatibleStore(path: String, reason: String)
    /// A predicate or sort uses something that has no translation to SQL.
    case unsupportedPredicate(entity: String, construct: String)
    /// A row changed in the store since this context read it (optimistic locking).
    case conflict([SaveConflict])
    /// An object was used with a context it does not belong to: inserted into it, deleted from it,
    /// or related to one of its objects (`action` says which). Nothing was changed. Objects belong
    /// to one context; look the same row up in this one with ``ObjectContext/object(with:)``.
    case wrongContext(ObjectID, action: String)
    /// The entity type is not part of the container's schema.
    case unknownEntity(String)
    /// The store reported an error, with SQLite's codes (``StoreError/isRetryable`` tells whether
    /// trying again may succeed).
    case store(StoreError)
    /// The store could not read an object's row, or the members of one of its relationships
    /// (`property`). Nothing is taken for missing: the object stays as it was (a fault stays a
    /// fault) and is read again when next used.
    case readFailed(ObjectID, property: String?, StoreError)
    /// A stored value does not convert to its attribute's type: JSON that the app's `Codable` type
    /// no longer decodes, a column holding text where a number belongs, NULL in a required
    /// attribute, a raw value no case of an enum has. `reason` says what was stored and why it does
    /// not fit. The stored data is left as it is; the accessor, which cannot throw, reads the
    /// attribute's default until the object is given a new value.
    case unreadableValue(ObjectID, property: String, reason: String)
    /// A batch operation was refused before anything was written: `reason` says what is wrong with
    /// its input (the row, for a batch insert) and `property` names the property involved.
    case invalidBatchOperation(entity: String, property: String?, reason: String)
    /// A list monitor was refused: `reason` says what its request lacks (an order, or an order that
    /// keeps each section's objects together).
    case invalidListMonitor(entity: String, reason: String)
    /// A property named at run time (``Entity/storedValue(forKey:)`` and its kin) cannot be read or
    /// written as asked: `reason` says why (no such property, a relationship where an attribute was
    /// expected, a value of another kind, an object of another entity). Nothing was changed.
    case invalidPropertyAccess(entity: String, property: String, reason: String)
}

/// One reason a save was refused.
public struct ValidationFailure: Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public enum Reason: Sendable, Equatable {
        /// A non-optional attribute or to-one relationship has no value.
        case missingValue
        /// The value of a unique attribute is already used by another object.
        case notUnique(StoredValue)
        /// A to-many relationship has fewer members than its minimum.
        case tooFewObjects(count: Int, minimum: Int)
        /// A to-many relationship has more members than its maximum.
        case tooManyObjects(count: Int, maximum: Int)
        /// A `.deny` relationship still holds objects of an object being deleted.
        case deleteDenied(count: Int)
        /// A value that cannot be stored: a `Codable` value whose encoding throws (`reason` is the
        /// encoder's error). The object keeps its previous value until it is given one that can be
        /// stored.
        case unstorableValue(reason: String)
        /// A to-one relationship points to an object deleted in the same context, whose row goes
        /// with the save: relate it to another object, or to none.
        case relatedObjectDeleted(ObjectID)
        /// The entity's own validation (`validateForInsert`, `validateForUpdate`, `validateForDelete`).
        case custom(String)
    }

    /// The entity of the object that failed.
    public var entity: String
    /// The object that failed.
    public var objectID: ObjectID
    /// The property involved, if any.
    public var property: String?
    /// What is wrong.
    public var reason: Reason

    /// A failure of an object, and of one of its properties if `property` is not nil.
    public init(entity: String, objectID: ObjectID, property: String?, reason: Reason) {
        self.entity = entity
        self.objectID = objectID
        self.property = property
        self.reason = reason
    }

    public var description: String {
        let subject = property.map { "\(entity).\($0) of \(objectID)" } ?? "\(objectID)"
        switch reason {
        case .missingValue: return "\(subject) is required but has no value"
        case .notUnique(let value): return "\(subject) must be unique, and \(value) is already used"
        case let .tooFewObjects(count, minimum):
            return "\(subject) holds \(count) objects, fewer than its minimum of \(minimum)"
        case let .tooManyObjects(count, maximum):
            return "\(subject) holds \(count) objects, more than its maximum of \(maximum)"
        case .deleteDenied(let count):
            return "\(objectID) cannot be deleted: its relationship '\(property ?? "?")' (delete rule deny) still holds \(count) object\(count == 1 ? "" : "s")"
        case .unstorableValue(let reason): return "\(subject) has a value that cannot be stored: \(reason)"
        case .relatedObjectDeleted(let id): return "\(subject) points to \(id), which is deleted"
        case .custom(let message): return "\(subject) is invalid: \(message)"
        }
    }
}

/// A row that changed in the store after the saving context read it.
public struct SaveConflict: Sendable, Equatable, CustomStringConvertible {
    /// The object whose row changed.
    public var objectID: ObjectID
    /// The row version the context read.
    public var staleVersion: Int64
    /// The row version now in the store; nil when the row was deleted.
    public var currentVersion: Int64?

    /// A conflict of `objectID`'s row, read at `staleVersion`, now at `currentVersion` (nil: deleted).
    public init(objectID: ObjectID, staleVersion: Int64, currentVersion: Int64?) {
        self.objectID = objectID
        self.staleVersion = staleVersion
        self.currentVersion = currentVersion
    }

    public var description: String {
        let now = currentVersion.map { "version \($0)" } ?? "deleted it"
        return "\(objectID) was read at version \(staleVersion) but the store has \(now)"
    }
}

/// A difference between the schema a store was created with and the current model.
public struct SchemaDifference: Sendable, Equatable, CustomStringConvertible {
    /// Where the difference is, for example `Mood.rating`.
    public var location: String
    /// What differs.
    public var change: String
    /// Whether ObjectGraph migrates it automatically without losing data.
    public var isAdditive: Bool

    public var description: String { "\(location): \(change)" }
}

extension ObjectGraphError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case .validationFailed(let failures):
            return "Validation failed: " + failures.map(\.description).joined(separator: "; ")
        case .objectNotFound(let id): return "No object \(id) in the store"
        case .inaccessibleFault(let id): return "\(id) was deleted from the store before it was read"
        case .invalidObjectIDString(let string): return "'\(string)' is not an object ID of this store"
        case .foreignObjectID(let id): return "\(id) belongs to another store"
        case .schemaMismatch(let differences):
            return "The store's schema differs from the model and cannot migrate automatically: "
                + differences.filter { !$0.isAdditive }.map(\.description).joined(separator: "; ")
        case .invalidModel(let message): return "Invalid model: \(message)"
        case let .incompatibleStore(path, reason): return "Cannot open \(path): \(reason)"
        case let .unsupportedPredicate(entity, construct):
            return "Cannot translate a predicate on \(entity) to SQL: \(construct)"
        case .conflict(let conflicts):
            return "Save conflicts: " + conflicts.map(\.description).joined(separator: "; ")
        case .unknownEntity(let name): return "\(name) is not an entity of this container's schema"
        case let .wrongContext(id, action):
            return "\(id) cannot be \(action): it belongs to another context (or to none, once deleted or "
                + "rolled back); look it up in this context by its ObjectID"
        case .store(let error): return "Store error: \(error)"
        case let .readFailed(id, property, error):
            return "Could not read \(property.map { "\($0) of " } ?? "")\(id): \(error)"
        case let .unreadableValue(id, property, reason):
            return "\(id.entityName).\(property) of \(id) holds a value that cannot be read: \(reason)"
        case let .invalidBatchOperation(entity, property, reason):
            return "Batch operation on \(entity)\(property.map { ".\($0)" } ?? "") refused: \(reason)"
        case let .invalidListMonitor(entity, reason):
            return "List monitor of \(entity) refused: \(reason)"
        case let .invalidPropertyAccess(entity, property, reason):
            return "Cannot access \(entity).\(property): \(reason)"
        }
    }

    /// The same text as `description`.
    public var errorDescription: String? { description }
}
