import Foundation
import ObjectGraph

/// What the app's rules do to the sync's own changes.
///
/// When the sync applies the server's changes, the app's model reacts as to any change: a deleted
/// country cascades to its moods, `prepareForDeletion()` deletes a continent left empty, an inverse
/// relationship follows. The server holds the changes it sent, not these reactions: the devices
/// whose rules run on a state the server never had (a mood added to a country another device
/// deleted) would drift apart from it. So the sync context tells apart what mirrors the server
/// (``MirroredChanges``, kept by the coordinator as it applies) from everything else it is about
/// to save, and records the rest as local changes, to be pushed like the app's own.
extension SyncWorkspace {
    /// What the sync context holds, since its last save, because the server has it: inserted,
    /// written or deleted as the feed, a conflict's answer or an acknowledgment said.
    struct MirroredChanges {
        var inserted: Set<UUID> = []
        var deleted: Set<UUID> = []
        var written: [UUID: Set<String>] = [:]
    }

    /// Inserts, under its record's ID, an object the server has.
    func insertMirroring(_ shape: RecordShape, globalID: UUID) -> any Entity {
        unsaved.mirrored.inserted.insert(globalID)
        let object = shape.insertObject(globalID: globalID, in: context)
        unsaved.known.found(object, globalID: globalID)
        return object
    }

    /// Deletes an object the server deleted (or has just been told of).
    func deleteMirroring(_ object: any Entity) {
        unsaved.mirrored.deleted.insert(object.objectGlobalID)
        unsaved.known.gone(object.objectGlobalID, entity: object.objectID.entityName)
        context.delete(object)
    }

    /// Records as local changes what the sync context is about to save that does not mirror the
    /// server: the reactions of the app's rules. Returns whether there were any.
    @discardableResult
    func recordConsequences() throws -> Bool {
        var changes: [LocalChange] = []
        for object in context.deletedObjects where !unsaved.mirrored.deleted.contains(object.objectGlobalID) {
            guard let shape = model.shape(forEntity: object.objectID.entityName) else { continue }
            changes.append(
                LocalChange(
                    kind: .delete, globalID: object.objectGlobalID, entityName: shape.entityName,
                    changedKeys: [], object: object))
        }
        for object in context.insertedObjects where !unsaved.mirrored.inserted.contains(object.objectGlobalID) {
            guard let shape = model.shape(forEntity: object.objectID.entityName) else { continue }
            changes.append(
                LocalChange(
                    kind: .insert, globalID: object.objectGlobalID, entityName: shape.entityName,
                    changedKeys: [], object: object))
        }
        var states: [UUID: SyncRecordState]?
        for object in context.updatedObjects where !object.isDeleted && !unsaved.mirrored.inserted.contains(object.objectGlobalID) {
            guard let shape = model.shape(forEntity: object.objectID.entityName) else { continue }
            let written = unsaved.mirrored.written[object.objectGlobalID] ?? []
            var keys = object.changedPersistentKeys.subtracting(written)
            keys = keys.filter { shape.field(forProperty: $0) != nil || shape.membership(forProperty: $0) != nil }
            guard !keys.isEmpty else { continue }
            // A field back to the value the server has is no change to send (an inverse that
            // followed a change the server made on both ends).
            if states == nil { states = try recordStates(for: context.updatedObjects.map(\.objectGlobalID)) }
            let shadow = try Self.fields(states?[object.objectGlobalID]?.shadow)
            for key in keys {
                guard let field = shape.field(forProperty: key) else { continue }
                if let known = shadow[field.name], try shape.value(of: field, in: object) == known { keys.remove(key) }
            }
            guard !keys.isEmpty else { continue }
            changes.append(
                LocalChange(
                    kind: .update, globalID: object.objectGlobalID, entityName: shape.entityName,
                    changedKeys: keys, object: object))
        }
        // The references a merge of unique values moved: this device's, even where the feed
        // wrote the member in the same page.
        for (member, property) in unsaved.mergeMoves where !member.isDeleted {
            guard let shape = model.shape(forEntity: member.objectID.entityName), shape.field(forProperty: property) != nil else {
                continue
            }
            changes.append(
                LocalChange(
                    kind: .update, globalID: member.objectGlobalID, entityName: shape.entityName, changedKeys: [property],
                    object: member))
        }
        unsaved.mergeMoves = []
        try record(changes)
        return !changes.isEmpty
    }
}
