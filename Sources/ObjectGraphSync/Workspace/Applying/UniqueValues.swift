import Foundation
import ObjectGraph
import ObjectGraphSyncProtocol

/// Unique attributes under sync: two devices that make the same unique value (a country "France"
/// made on each while offline) converge on one object, each on its own, with no coordination.
///
/// When a record of the feed brings a unique value another object holds here, the one with the
/// smaller ID (compared as text) survives, on every device alike. The other is merged into it:
/// the members of its to-many relationships (a country's moods) move to the survivor, it is
/// deleted, and its ID is kept as an alias (``MergedRecord``) so that records that still refer to
/// it, from a device that has not merged yet, refer to the survivor. The device that made the
/// merged object sends its deletion and the moved references, as changes of its own; the survivor
/// keeps its own fields.
extension SyncWorkspace {
    /// A unique value of an entity's attribute.
    struct UniqueKey: Hashable {
        var entity: String
        var property: String
        var value: StoredValue
    }

    /// What a record's unique values meet here.
    enum UniqueClash {
        /// The record survives; these objects holding its values give way once it is applied.
        case recordSurvives([any Entity])
        /// The record gives way to this object, which holds one of its values and survives.
        case recordYields(to: any Entity)
        /// An object of another zone holds one of the record's values: zones do not merge objects
        /// (a merge would delete one user's object for another's), so the record is set aside.
        case heldInAnotherZone(field: String, holder: any Entity)
    }

    /// Reads set-wise the objects that hold the unique values of `changes`' records: one query per
    /// unique attribute of an entity the page brings (none for entities without one).
    func loadUniqueHolders(of changes: [FeedChange]) throws {
        unsaved.uniqueHolders = [:]
        var wanted: [String: (shape: RecordShape, field: RecordShape.Field, values: [StoredValue])] = [:]
        for change in changes where !change.record.deleted {
            guard let shape = model.shape(forRecordType: change.record.entity), !shape.uniqueFields.isEmpty else { continue }
            for field in shape.uniqueFields {
                guard let value = Self.uniqueValue(of: change.record, field) else { continue }
                wanted["\(shape.entityName).\(field.property)", default: (shape, field, [])].values.append(value)
            }
        }
        for (shape, field, values) in wanted.values {
            let holders = try storeCall {
                try context.objects(ofEntity: shape.entityName, whereAttribute: field.property, isIn: values)
            }
            for holder in holders {
                try noteUniqueValues(of: holder, shape: shape)
            }
        }
    }

    /// Notes the unique values `object` holds now: a record applied later in the page that brings
    /// one meets it.
    func noteUniqueValues(of object: any Entity, shape: RecordShape) throws {
        for field in shape.uniqueFields {
            let value = try storeCall { try object.storedValue(forKey: field.property) }
            guard value != .null else { continue }
            unsaved.uniqueHolders[UniqueKey(entity: shape.entityName, property: field.property, value: value), default: []].append(object)
        }
    }

    /// The unique value a record brings for `field`; nil for none (or one of the wrong form,
    /// which the write refuses).
    private static func uniqueValue(of record: SyncedRecord, _ field: RecordShape.Field) -> StoredValue? {
        guard case .attribute(let type, let isOptional) = field.kind, let json = record.fields[field.name],
            let value = try? FieldCoding.storedValue(json, type: type, isOptional: isOptional), value != .null
        else { return nil }
        return value
    }

    /// Whether `record`'s unique values are held here by other objects, and which survives.
    func uniqueClash(of record: SyncedRecord, shape: RecordShape) throws -> UniqueClash? {
        var holders: [UUID: any Entity] = [:]
        for field in shape.uniqueFields {
            guard let value = Self.uniqueValue(of: record, field) else { continue }
            let key = UniqueKey(entity: shape.entityName, property: field.property, value: value)
            for holder in unsaved.uniqueHolders[key] ?? [] where holder.objectGlobalID != record.id && !holder.isDeleted {
                // Its value as it is now: it may have changed since it was noted.
                guard try storeCall({ try holder.storedValue(forKey: field.property) }) == value else { continue }
                holders[holder.objectGlobalID] = holder
            }
        }
        guard !holders.isEmpty else { return nil }
        if try syncsOtherZones() {
            let key = zoneKey(zone), states = try recordStates(for: holders.keys)
            for (id, holder) in holders.sorted(by: { $0.key.uuidString < $1.key.uuidString }) {
                let holderZone = try states[id]?.zone ?? zoneKey(of: holder, shape: shape)
                guard holderZone != key else { continue }
                let field = try shape.uniqueFields.first { field in
                    try storeCall { try holder.storedValue(forKey: field.property) } == Self.uniqueValue(of: record, field)
                }
                return .heldInAnotherZone(field: field?.name ?? "", holder: holder)
            }
        }
        let smallest = holders.min { $0.key.uuidString < $1.key.uuidString }
        if let smallest, smallest.key.uuidString < record.id.uuidString { return .recordYields(to: smallest.value) }
        return .recordSurvives(Array(holders.values))
    }

    /// Gives the unique values `survivor` holds a new value in `loser`, as the entity's
    /// ``UniqueClashPolicy/keepBoth(renaming:)`` makes it: a change of this device, sent like the
    /// app's own. Returns false when an attribute that clashes is not text (the loser merges then).
    func rename(_ loser: any Entity, shape: RecordShape, clashingWith survivor: any Entity) throws -> Bool {
        guard case .keepBoth(let renaming) = shape.configuration.uniqueClashPolicy else { return false }
        var renamed: [(String, StoredValue)] = []
        for field in shape.uniqueFields {
            let value = try storeCall { try loser.storedValue(forKey: field.property) }
            guard value != .null, try storeCall({ try survivor.storedValue(forKey: field.property) }) == value else { continue }
            guard case .text(let text) = value else { return false }
            renamed.append((field.property, .text(renaming(text, loser.objectGlobalID))))
        }
        for (property, value) in renamed {
            try storeCall { try loser.setStoredValue(value, forKey: property) }
            // Not the server's value: recorded as this device's change when saved.
            unsaved.mirrored.written[loser.objectGlobalID]?.remove(property)
        }
        try noteUniqueValues(of: loser, shape: shape)
        return true
    }

    /// Merges `record`, whose unique value `survivor` holds, into it: the object this device has of
    /// the record (if any) is merged, and the record's ID becomes an alias of the survivor's.
    func merge(_ record: SyncedRecord, shape: RecordShape, into survivor: any Entity) throws {
        if let object = try self.object(withGlobalID: record.id, of: shape) {
            try merge(object, shape: shape, into: survivor)
        } else {
            try recordAlias(record.id, of: survivor, shape: shape)
        }
    }

    /// Merges `loser` into `survivor`: its to-many relationships' members move to the survivor,
    /// it is deleted as a change of this device (sent like the app's own), and its ID becomes an
    /// alias of the survivor's.
    func merge(_ loser: any Entity, shape: RecordShape, into survivor: any Entity) throws {
        try storeCall {
            for (name, inverse) in shape.toManyRelationships {
                let members = try loser.relatedObjects(forKey: name)
                guard !members.isEmpty else { continue }
                let kept = try survivor.relatedObjects(forKey: name)
                let keptIDs = Set(kept.map(\.objectID))
                let moved = members.filter { !keptIDs.contains($0.objectID) }
                try survivor.setRelatedObjects(kept + moved, forKey: name)
                // This device's decision, sent whatever the feed wrote into the members: the
                // server's references move too.
                for member in moved { unsaved.mergeMoves.append((member, inverse)) }
            }
        }
        let loserID = loser.objectGlobalID
        unsaved.known.gone(loserID, entity: shape.entityName)
        context.delete(loser)
        try recordAlias(loserID, of: survivor, shape: shape)
    }

    /// Keeps `loserID` as an alias of `survivor`, and links to it what waited for the loser.
    private func recordAlias(_ loserID: UUID, of survivor: any Entity, shape: RecordShape) throws {
        let survivorID = survivor.objectGlobalID
        if unsaved.aliases[loserID] == nil {
            let merged = MergedRecord(survivorID: survivorID, entityName: shape.entityName)
            do {
                try context.insert(merged, globalID: loserID)
            } catch let error as ObjectGraphError {
                throw SyncError.store(error)
            }
            unsaved.aliases[loserID] = survivorID
            hasMergedRecords = true
        }
        try resolvePendingLinks(to: loserID, object: survivor)
    }

    /// Reads the aliases among `ids` (records merged into others), unless no record was ever merged.
    func loadAliases(of ids: [UUID]) throws {
        if hasMergedRecords == nil {
            hasMergedRecords = try storeCall { try context.fetchCount(FetchDescriptor<MergedRecord>(fetchLimit: 1)) > 0 }
        }
        guard hasMergedRecords == true, !ids.isEmpty else { return }
        let merged = try storeCall { try context.objects(withGlobalIDs: ids, as: MergedRecord.self) }
        for (loserID, record) in merged { unsaved.aliases[loserID] = record.survivorID }
    }
}
