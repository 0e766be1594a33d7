import Foundation
import ObjectGraph
import ObjectGraphSyncProtocol

/// Reading an object's synced properties as fields, and writing fields into an object.
extension RecordShape {
    /// The objects of this entity whose global IDs are among `globalIDs`, in `context`.
    func objects(withGlobalIDs globalIDs: [UUID], in context: ObjectContext) throws -> [UUID: any Entity] {
        try type.objects(withGlobalIDs: globalIDs, in: context)
    }

    /// Loads a fault's values from its row.
    func load(_ object: any Entity) throws {
        guard let property = loadingAttribute else { return }  // its row holds nothing to read
        do {
            _ = try object.storedValue(forKey: property)
        } catch let error as ObjectGraphError {
            throw SyncError.store(error)
        }
    }

    /// A new object of this entity, with the record's global ID.
    func insertObject(globalID: UUID, in context: ObjectContext) -> any Entity {
        type.insertNewObject(globalID: globalID, in: context)
    }

    /// The fields of `properties` of `object` (its synced ones among them), in their JSON form.
    func fields(of object: any Entity, properties: some Sequence<String>) throws -> [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        for property in properties {
            guard let field = field(forProperty: property) else { continue }
            fields[field.name] = try value(of: field, in: object)
        }
        return fields
    }

    /// Every synced field of `object`.
    func allFields(of object: any Entity) throws -> [String: JSONValue] {
        try fields(of: object, properties: fields.map(\.property))
    }

    /// One field's value in `object`.
    func value(of field: Field, in object: any Entity) throws -> JSONValue {
        do {
            switch field.kind {
            case .attribute(let type, _):
                return try FieldCoding.json(object.storedValue(forKey: field.property), type: type)
            case .reference:
                return try object.relatedObjects(forKey: field.property).first.map { .string($0.objectGlobalID.uuidString) } ?? .null
            }
        } catch let error as FieldCodingError {
            throw SyncError.invalidRecord(
                recordType: recordType, recordID: object.objectGlobalID, field: field.name,
                reason: error.description)
        } catch let error as ObjectGraphError {
            throw SyncError.store(error)
        }
    }

    /// Writes an attribute field's value into `object` when it differs from what the object holds
    /// (an unchanged value would report the object changed for nothing).
    func write(_ json: JSONValue, to field: Field, of object: any Entity, recordID: UUID) throws {
        guard case .attribute(let type, let isOptional) = field.kind else { return }
        do {
            let stored = try FieldCoding.storedValue(json, type: type, isOptional: isOptional)
            if try object.storedValue(forKey: field.property) != stored {
                try object.setStoredValue(stored, forKey: field.property)
            }
        } catch let error as FieldCodingError {
            throw SyncError.invalidRecord(recordType: recordType, recordID: recordID, field: field.name, reason: error.description)
        } catch let error as ObjectGraphError {
            throw SyncError.store(error)
        }
    }

    /// Points a reference field of `object` at `target` (nil for none), when it points elsewhere.
    func link(_ object: any Entity, _ field: Field, to target: (any Entity)?) throws {
        do {
            let current = try object.relatedObjects(forKey: field.property).first
            guard current?.objectID != target?.objectID else { return }
            try object.setRelatedObjects(target.map { [$0] } ?? [], forKey: field.property)
        } catch let error as ObjectGraphError {
            throw SyncError.store(error)
        }
    }
}

/// The typed calls behind a shape's, through the entity's own type.
extension Syncable {
    static func objects(withGlobalIDs globalIDs: [UUID], in context: ObjectContext) throws -> [UUID: any Entity] {
        try context.objects(withGlobalIDs: globalIDs, as: Self.self).mapValues { $0 }
    }

    static func insertNewObject(globalID: UUID, in context: ObjectContext) -> any Entity {
        context.insertNewObject(of: Self.self, globalID: globalID)
    }

    /// How many objects of the entity there are, marked for deletion or not.
    static func objectCount(in context: ObjectContext) throws -> Int {
        try context.fetchCount(FetchDescriptor<Self>(includesMarkedForDeletion: true))
    }

    /// Every object of the entity, marked for deletion or not, loaded a batch at a time.
    static func allObjects(in context: ObjectContext, batchSize: Int) throws -> [any Entity] {
        var request = FetchDescriptor<Self>(includesMarkedForDeletion: true)
        request.fetchBatchSize = batchSize
        return try context.fetch(request).map { $0 }
    }
}
