import Foundation
package import ObjectGraphModel
import ObjectGraphStore

/// Objects by the value of one attribute named at run time: for a layer that works on any entity
/// (the sync finds the object that already holds a unique value a record brings).
extension ObjectContext {
    /// The objects of the entity named `entityName` whose attribute `attribute` holds one of
    /// `values` as this context sees them: its unsaved changes count, objects deleted in it do not.
    ///
    /// The store's rows are read through the attribute's index when it has one (a unique attribute
    /// does), a query per 500 values; text is compared in the form the store keeps (NFC), as an
    /// assignment stores it.
    ///
    /// - Throws: ``ObjectGraphError/unknownEntity(_:)`` for an entity outside the container's
    ///   schema, ``ObjectGraphError/invalidPropertyAccess(entity:property:reason:)`` for an
    ///   attribute it does not have, ``ObjectGraphError/store(_:)`` when the store cannot be read.
    package func objects(ofEntity entityName: String, whereAttribute attribute: String, isIn values: [StoredValue]) throws -> [any Entity] {
        let use = beginUse()
        defer { use.end() }
        mergeIncomingChanges()
        guard let mapping = store.mapping(named: entityName) else { throw ObjectGraphError.unknownEntity(entityName) }
        guard mapping.attributeColumns.contains(attribute) else {
            throw ObjectGraphError.invalidPropertyAccess(
                entity: entityName, property: attribute, reason: "the entity has no such attribute")
        }
        let wanted = Set(values.map(\.precomposed))
        guard !wanted.isEmpty else { return [] }
        var candidates: [ObjectIdentifier: any Entity] = [:]
        for object in changes.inserted.values where object.objectID.entityName == entityName {
            candidates[ObjectIdentifier(object)] = object
        }
        for object in changes.updated.values where object.objectID.entityName == entityName {
            candidates[ObjectIdentifier(object)] = object
        }
        var unregistered: [Unmanaged<ObjectState>] = []
        defer { registry.register(unregistered, of: mapping.declaration) }
        do {
            try store.reader.forEachRow(whereColumn: attribute, isIn: Array(wanted), mapping: mapping) { row in
                let object = object(for: row, mapping: mapping, unregistered: &unregistered)
                candidates[ObjectIdentifier(object)] = object
            }
        } catch {
            throw ObjectGraphError.store(StoreError(error))
        }
        // The values as this context holds them: a row's may have changed here since.
        return try candidates.values.filter { object in
            guard !object.isDeleted else { return false }
            return wanted.contains(try object.storedValue(forKey: attribute))
        }
    }
}

extension StoredValue {
    /// The value as the store keeps it: text in Normalization Form C.
    var precomposed: StoredValue {
        if case .text(let text) = self { return .text(text.precomposed) }
        return self
    }
}
