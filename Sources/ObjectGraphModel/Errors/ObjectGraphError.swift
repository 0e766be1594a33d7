public import Foundation

/// An error thrown by ObjectGraph: a ``code`` a program can match, the entity, object and property
/// it concerns, and the details of its kind.
///
/// ```swift
/// do {
///     try context.save()
/// } catch let error as ObjectGraphError {
///     switch error.code {
///     case .validationFailed: show(error.validationFailures)
///     case .conflict: resolve(error.conflicts)
///     case .store where error.storeError?.isRetryable == true: retryLater()
///     default: throw error
///     }
/// }
/// ```
///
/// New kinds of failure come with new codes: a `switch` over ``code`` with a `default` keeps
/// compiling (as GRDB's `DatabaseError` and Hummingbird's errors do). Every code is listed in
/// <doc:Errors>.
public struct ObjectGraphError: Error, Sendable, Equatable {
    /// What kind of failure an ``ObjectGraphError`` is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name, as the static property that stands for it.
        public let name: String

        private init(_ name: String) { self.name = name }

        public var description: String { name }

        /// A save found objects that break the schema's rules: ``ObjectGraphError/validationFailures``.
        public static let validationFailed = Code("validationFailed")
        /// No object with the ``ObjectGraphError/objectID`` exists in the store.
        public static let objectNotFound = Code("objectNotFound")
        /// A fault's row was deleted from the store before the fault was read.
        public static let inaccessibleFault = Code("inaccessibleFault")
        /// A string is not an object ID of this store (``ObjectGraphError/reason`` holds it).
        public static let invalidObjectIDString = Code("invalidObjectIDString")
        /// An object ID of another store or model.
        public static let foreignObjectID = Code("foreignObjectID")
        /// The store's schema differs from the model beyond automatic migration:
        /// ``ObjectGraphError/schemaDifferences``.
        public static let schemaMismatch = Code("schemaMismatch")
        /// The model itself is inconsistent.
        public static let invalidModel = Code("invalidModel")
        /// The file is not a store ObjectGraph can open (``ObjectGraphError/path``).
        public static let incompatibleStore = Code("incompatibleStore")
        /// A predicate or sort has no translation to SQL.
        public static let unsupportedPredicate = Code("unsupportedPredicate")
        /// Rows changed since the context read them: ``ObjectGraphError/conflicts``.
        public static let conflict = Code("conflict")
        /// An object was used with a context it does not belong to.
        public static let wrongContext = Code("wrongContext")
        /// An entity type is not part of the container's schema.
        public static let unknownEntity = Code("unknownEntity")
        /// The store reported an error: ``ObjectGraphError/storeError``.
        public static let store = Code("store")
        /// The store could not read an object's row or a relationship's members.
        public static let readFailed = Code("readFailed")
        /// A stored value does not convert to its attribute's type.
        public static let unreadableValue = Code("unreadableValue")
        /// A batch operation was refused before anything was written.
        public static let invalidBatchOperation = Code("invalidBatchOperation")
        /// A list monitor was refused.
        public static let invalidListMonitor = Code("invalidListMonitor")
        /// A property named at run time cannot be read or written as asked.
        public static let invalidPropertyAccess = Code("invalidPropertyAccess")
        /// A migration stage failed; the store stays at the version before it.
        public static let migrationFailed = Code("migrationFailed")
        /// A predicate could not be evaluated for an object: an arithmetic overflow, a division by
        /// zero, nil unwrapped by force, a range whose bounds are out of order
        /// (``ObjectGraphError/reason`` says which). The same whether SQL or memory evaluated it.
        public static let predicateEvaluationFailed = Code("predicateEvaluationFailed")
        /// The history after a token was purged: what it held cannot be read any more (Core Data's
        /// expired history token). ``ObjectGraphError/reason`` says how far it was purged.
        public static let historyExpired = Code("historyExpired")
        /// A purge of the history would pass a registered consumer's position
        /// (see ``ObjectContainer/historyConsumers()``); nothing was purged.
        public static let historyInUse = Code("historyInUse")

        /// Every code this version of ObjectGraph throws.
        public static let all: [Code] = [
            .validationFailed, .objectNotFound, .inaccessibleFault, .invalidObjectIDString, .foreignObjectID,
            .schemaMismatch, .invalidModel, .incompatibleStore, .unsupportedPredicate, .conflict, .wrongContext,
            .unknownEntity, .store, .readFailed, .unreadableValue, .invalidBatchOperation, .invalidListMonitor,
            .invalidPropertyAccess, .migrationFailed, .predicateEvaluationFailed, .historyExpired, .historyInUse
        ]
    }

    /// What went wrong, with its details: one case per ``Code``. Internal, so that a new failure
    /// is a new case here and a new code there, never a break of a user's `switch`.
    package enum Kind: Sendable, Equatable {
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
        /// A migration stage's code threw, or left a row without a value a required attribute
        /// needs. `stage` is the stage's name.
        case migrationFailed(stage: String?, entity: String?, property: String?, reason: String)
        /// A predicate over `entity` could not be evaluated for one of its objects, in SQL or in
        /// memory alike: `reason` names the operation and why (an overflow, a division by zero,
        /// nil unwrapped by force, bounds out of order). Swift would trap or throw there; the fetch
        /// throws this instead, and nothing is changed.
        case predicateEvaluationFailed(entity: String, reason: String)
        /// The transactions after `after` (a token's sequence) were purged, up to `purgedThrough`.
        case historyExpired(after: Int64, purgedThrough: Int64)
        /// Purging through `through` would pass `consumer`, registered at `position`.
        case historyInUse(consumer: String, position: Int64, through: Int64)
    }

    /// The failure and its details.
    package let kind: Kind

    package init(_ kind: Kind) {
        self.kind = kind
    }

    /// What kind of failure this is.
    public var code: Code {
        switch kind {
        case .validationFailed: .validationFailed
        case .objectNotFound: .objectNotFound
        case .inaccessibleFault: .inaccessibleFault
        case .invalidObjectIDString: .invalidObjectIDString
        case .foreignObjectID: .foreignObjectID
        case .schemaMismatch: .schemaMismatch
        case .invalidModel: .invalidModel
        case .incompatibleStore: .incompatibleStore
        case .unsupportedPredicate: .unsupportedPredicate
        case .conflict: .conflict
        case .wrongContext: .wrongContext
        case .unknownEntity: .unknownEntity
        case .store: .store
        case .readFailed: .readFailed
        case .unreadableValue: .unreadableValue
        case .invalidBatchOperation: .invalidBatchOperation
        case .invalidListMonitor: .invalidListMonitor
        case .invalidPropertyAccess: .invalidPropertyAccess
        case .migrationFailed: .migrationFailed
        case .predicateEvaluationFailed: .predicateEvaluationFailed
        case .historyExpired: .historyExpired
        case .historyInUse: .historyInUse
        }
    }

    /// The entity the failure concerns, if one does: the object's, the predicate's, the batch's.
    public var entity: String? {
        switch kind {
        case .validationFailed(let failures): failures.first?.entity
        case .objectNotFound(let id), .inaccessibleFault(let id), .foreignObjectID(let id), .wrongContext(let id, _),
            .readFailed(let id, _, _), .unreadableValue(let id, _, _):
            id.entityName
        case .unsupportedPredicate(let entity, _), .unknownEntity(let entity), .invalidBatchOperation(let entity, _, _),
            .invalidListMonitor(let entity, _), .invalidPropertyAccess(let entity, _, _),
            .predicateEvaluationFailed(let entity, _):
            entity
        case .conflict(let conflicts): conflicts.first?.objectID.entityName
        case .migrationFailed(_, let entity, _, _): entity
        case .invalidObjectIDString, .schemaMismatch, .invalidModel, .incompatibleStore, .store, .historyExpired, .historyInUse: nil
        }
    }

    /// The object the failure concerns, if one does.
    public var objectID: ObjectID? {
        switch kind {
        case .validationFailed(let failures): failures.first?.objectID
        case .objectNotFound(let id), .inaccessibleFault(let id), .foreignObjectID(let id), .wrongContext(let id, _),
            .readFailed(let id, _, _), .unreadableValue(let id, _, _):
            id
        case .conflict(let conflicts): conflicts.first?.objectID
        default: nil
        }
    }

    /// The property the failure concerns, if one does.
    public var property: String? {
        switch kind {
        case .validationFailed(let failures): failures.first?.property
        case .readFailed(_, let property, _), .invalidBatchOperation(_, let property, _): property
        case .unreadableValue(_, let property, _), .invalidPropertyAccess(_, let property, _): property
        case .migrationFailed(_, _, let property, _): property
        default: nil
        }
    }

    /// Why, in words, when the kind says more than its code: the model's inconsistency, the
    /// construct that has no SQL, what was stored, what a batch or a monitor lacks, the action a
    /// context refused, the string that is no object ID.
    public var reason: String? {
        switch kind {
        case .invalidObjectIDString(let string): string
        case .invalidModel(let message): message
        case .incompatibleStore(_, let reason), .unreadableValue(_, _, let reason), .invalidBatchOperation(_, _, let reason),
            .invalidListMonitor(_, let reason), .invalidPropertyAccess(_, _, let reason):
            reason
        case .unsupportedPredicate(_, let construct): construct
        case .wrongContext(_, let action): action
        case .migrationFailed(_, _, _, let reason): reason
        case .predicateEvaluationFailed(_, let reason): reason
        case .historyExpired, .historyInUse: description
        default: nil
        }
    }

    /// For ``Code/validationFailed``: every failure found.
    public var validationFailures: [ValidationFailure] {
        if case .validationFailed(let failures) = kind { failures } else { [] }
    }

    /// For ``Code/schemaMismatch``: every difference between the store and the model.
    public var schemaDifferences: [SchemaDifference] {
        if case .schemaMismatch(let differences) = kind { differences } else { [] }
    }

    /// For ``Code/conflict``: every row that changed since the context read it.
    public var conflicts: [SaveConflict] {
        if case .conflict(let conflicts) = kind { conflicts } else { [] }
    }

    /// For ``Code/store`` and ``Code/readFailed``: SQLite's error.
    public var storeError: StoreError? {
        switch kind {
        case .store(let error), .readFailed(_, _, let error): error
        default: nil
        }
    }

    /// For ``Code/incompatibleStore``: the file.
    public var path: String? {
        if case .incompatibleStore(let path, _) = kind { path } else { nil }
    }

    // The errors, as they were cases of an enum: `throw ObjectGraphError.readFailed(...)`.

    /// A save found objects that break the schema's rules; nothing was written.
    public static func validationFailed(_ failures: [ValidationFailure]) -> Self { Self(.validationFailed(failures)) }
    /// No object with this ID exists in the store.
    public static func objectNotFound(_ id: ObjectID) -> Self { Self(.objectNotFound(id)) }
    /// A fault's row was deleted from the store (by another context) before the fault was read.
    public static func inaccessibleFault(_ id: ObjectID) -> Self { Self(.inaccessibleFault(id)) }
    /// A string is not an object ID of this store.
    public static func invalidObjectIDString(_ string: String) -> Self { Self(.invalidObjectIDString(string)) }
    /// An object ID that belongs to another store or model.
    public static func foreignObjectID(_ id: ObjectID) -> Self { Self(.foreignObjectID(id)) }
    /// The store's schema differs from the model in ways that cannot migrate automatically.
    public static func schemaMismatch(_ differences: [SchemaDifference]) -> Self { Self(.schemaMismatch(differences)) }
    /// The model itself is inconsistent (for example a relationship without an inverse).
    public static func invalidModel(_ message: String) -> Self { Self(.invalidModel(message)) }
    /// The file is a database that ObjectGraph did not create, or not a database at all.
    public static func incompatibleStore(path: String, reason: String) -> Self { Self(.incompatibleStore(path: path, reason: reason)) }
    /// A predicate or sort uses something that has no translation to SQL.
    public static func unsupportedPredicate(entity: String, construct: String) -> Self {
        Self(.unsupportedPredicate(entity: entity, construct: construct))
    }
    /// A row changed in the store since this context read it (optimistic locking).
    public static func conflict(_ conflicts: [SaveConflict]) -> Self { Self(.conflict(conflicts)) }
    /// An object was used with a context it does not belong to (`action` says how).
    public static func wrongContext(_ id: ObjectID, action: String) -> Self { Self(.wrongContext(id, action: action)) }
    /// The entity type is not part of the container's schema.
    public static func unknownEntity(_ name: String) -> Self { Self(.unknownEntity(name)) }
    /// The store reported an error, with SQLite's codes.
    public static func store(_ error: StoreError) -> Self { Self(.store(error)) }
    /// The store could not read an object's row, or the members of one of its relationships.
    public static func readFailed(_ id: ObjectID, property: String?, _ error: StoreError) -> Self {
        Self(.readFailed(id, property: property, error))
    }
    /// A stored value does not convert to its attribute's type.
    public static func unreadableValue(_ id: ObjectID, property: String, reason: String) -> Self {
        Self(.unreadableValue(id, property: property, reason: reason))
    }
    /// A batch operation was refused before anything was written.
    public static func invalidBatchOperation(entity: String, property: String?, reason: String) -> Self {
        Self(.invalidBatchOperation(entity: entity, property: property, reason: reason))
    }
    /// A list monitor was refused.
    public static func invalidListMonitor(entity: String, reason: String) -> Self {
        Self(.invalidListMonitor(entity: entity, reason: reason))
    }
    /// A property named at run time cannot be read or written as asked.
    public static func invalidPropertyAccess(entity: String, property: String, reason: String) -> Self {
        Self(.invalidPropertyAccess(entity: entity, property: property, reason: reason))
    }
    /// A migration stage failed; the store stays at the version before it.
    public static func migrationFailed(stage: String?, entity: String?, property: String?, reason: String) -> Self {
        Self(.migrationFailed(stage: stage, entity: entity, property: property, reason: reason))
    }

    /// A predicate could not be evaluated for an object of `entity` (`reason` says why).
    public static func predicateEvaluationFailed(entity: String, reason: String) -> Self {
        Self(.predicateEvaluationFailed(entity: entity, reason: reason))
    }

    /// For ``Code/historyInUse``: the consumer whose position the purge would pass.
    public var historyConsumer: String? {
        if case .historyInUse(let consumer, _, _) = kind { consumer } else { nil }
    }

    /// The history after a token's transaction was purged, through `purgedThrough`.
    package static func historyExpired(after token: Int64, purgedThrough: Int64) -> Self {
        Self(.historyExpired(after: token, purgedThrough: purgedThrough))
    }

    /// Purging through `through` would pass `consumer`'s position.
    package static func historyInUse(consumer: String, position: Int64, through: Int64) -> Self {
        Self(.historyInUse(consumer: consumer, position: position, through: through))
    }

    /// For ``Code/migrationFailed``: the name of the stage that failed.
    public var migrationStage: String? {
        if case .migrationFailed(let stage, _, _, _) = kind { stage } else { nil }
    }
}

/// One reason a save was refused.
public struct ValidationFailure: Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public enum Reason: Sendable, Equatable {
        /// A non-optional attribute or to-one relationship has no value.
        case missingValue
        /// The value of a unique attribute is already used by another object.
        case notUnique(StoredValue)
        /// The values of a `#Unique` group are already used together by another object: `properties`
        /// names the group's properties in order, `values` gives this object's (a to-one
        /// relationship's as the related object's row number, the one its ``ObjectID/uriRepresentation``
        /// ends with).
        case notUniqueTogether(properties: [String], values: [StoredValue])
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
        /// The attribute's value breaks a rule declared with `@Attribute` (a range, a length or a
        /// pattern, see ``AttributeOption``); the value is the one that would have been stored.
        case violatesRule(AttributeRule, value: StoredValue)
        /// A save rule of the container refused the change (see
        /// ``ObjectContainer/addSaveRule(named:_:)``): `rule` is the name it was added under,
        /// `message` says why.
        case refused(rule: String, message: String)
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
        case let .notUniqueTogether(properties, values):
            return
                "\(entity) (\(properties.joined(separator: ", "))) of \(objectID) must be unique together, and "
                + "(\(values.map(\.description).joined(separator: ", "))) is already used"
        case let .tooFewObjects(count, minimum):
            return "\(subject) holds \(count) objects, fewer than its minimum of \(minimum)"
        case let .tooManyObjects(count, maximum):
            return "\(subject) holds \(count) objects, more than its maximum of \(maximum)"
        case .deleteDenied(let count):
            return
                "\(objectID) cannot be deleted: its relationship '\(property ?? "?")' (delete rule deny) still holds \(count) object\(count == 1 ? "" : "s")"
        case .unstorableValue(let reason): return "\(subject) has a value that cannot be stored: \(reason)"
        case .relatedObjectDeleted(let id): return "\(subject) points to \(id), which is deleted"
        case .custom(let message): return "\(subject) is invalid: \(message)"
        case let .violatesRule(rule, value): return "\(subject) is \(value), but must be \(rule)"
        case let .refused(rule, message): return "\(subject) cannot be saved (\(rule)): \(message)"
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
    /// Whether a ``MigrationStage`` can make the change: its code gives the rows what it needs.
    public var isMigratedByAStage = false

    /// A difference, as the store's migrator finds it.
    package init(location: String, change: String, isAdditive: Bool, isMigratedByAStage: Bool = false) {
        self.location = location
        self.change = change
        self.isAdditive = isAdditive
        self.isMigratedByAStage = isMigratedByAStage
    }

    public var description: String { "\(location): \(change)" }
}

extension ObjectGraphError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch kind {
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
        case let .migrationFailed(stage, entity, property, reason):
            let place = entity.map { " at \($0)\(property.map { ".\($0)" } ?? "")" } ?? ""
            return "Migration stage \(stage ?? "(unnamed)") failed\(place): \(reason)"
        case let .predicateEvaluationFailed(entity, reason):
            return "A predicate on \(entity) could not be evaluated: \(reason)"
        case let .historyExpired(after, purgedThrough):
            return "The history after transaction \(after) was purged through transaction \(purgedThrough): "
                + "what it held cannot be read; read the current state instead"
        case let .historyInUse(consumer, position, through):
            return "Purging the history through transaction \(through) would pass the consumer '\(consumer)', "
                + "which has read through transaction \(position); nothing was purged"
        }
    }

    /// The same text as `description`.
    public var errorDescription: String? { description }
}
