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
    /// The values of one unique group of an entity (a unique attribute's: one value).
    struct UniqueKey: Hashable {
        var entity: String
        var properties: [String]
        var values: [StoredValue]
    }

    /// What a record's unique values meet here.
    enum UniqueClash {
        /// The record survives; these objects holding its values give way once it is applied.
        case recordSurvives([any Entity])
        /// The record gives way to this object, which holds one of its groups' values and survives.
        case recordYields(to: any Entity)
        /// An object of another zone holds one of the record's groups' values: zones do not merge
        /// objects (a merge would delete one user's object for another's), so the record is set
        /// aside. `field` names the group's fields.
        case heldInAnotherZone(field: String, holder: any Entity)
    }

    /// Reads set-wise the objects that hold the unique values of `changes`' records: one query per
    /// unique group of an entity the page brings (none for entities without one), by the group's
    /// first attribute (its index, or its compound index's first column, serves it). A group of
    /// references alone is not looked up: the save refuses a record that breaks it, which is set
    /// aside.
    func loadUniqueHolders(of changes: [FeedChange]) throws {
        unsaved.uniqueHolders = [:]
        var wanted: [String: (shape: RecordShape, field: RecordShape.Field, values: [StoredValue])] = [:]
        for change in changes where !change.record.deleted {
            guard let shape = model.shape(forRecordType: change.record.entity), !shape.uniqueGroups.isEmpty else { continue }
            for group in shape.uniqueGroups {
                guard let values = Self.uniqueValues(of: change.record, group),
                    let index = group.firstIndex(where: { if case .attribute = $0.kind { true } else { false } })
                else { continue }
                wanted["\(shape.entityName).\(group[index].property)", default: (shape, group[index], [])].values.append(values[index])
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
    /// them meets it.
    func noteUniqueValues(of object: any Entity, shape: RecordShape) throws {
        for group in shape.uniqueGroups {
            guard let values = try uniqueValues(of: object, group) else { continue }
            unsaved.uniqueHolders[UniqueKey(entity: shape.entityName, properties: group.map(\.property), values: values), default: []]
                .append(object)
        }
    }

    /// The values a record brings for a unique group; nil when one is missing or nil (a group with
    /// a nil value clashes with nothing), or of the wrong form, which the write refuses. A
    /// reference's value is the referenced record's ID, as text.
    private static func uniqueValues(of record: SyncedRecord, _ group: [RecordShape.Field]) -> [StoredValue]? {
        var values: [StoredValue] = []
        for field in group {
            guard let json = record.fields[field.name] else { return nil }
            switch field.kind {
            case .attribute(let type, let isOptional):
                guard let value = try? FieldCoding.storedValue(json, type: type, isOptional: isOptional), value != .null
                else { return nil }
                values.append(value)
            case .reference:
                guard case .string(let text) = json, let id = UUID(uuidString: text) else { return nil }
                values.append(.text(id.uuidString))
            }
        }
        return values
    }

    /// The values `object` holds now for a unique group, as ``uniqueValues(of:_:)`` gives a
    /// record's; nil when one is nil.
    private func uniqueValues(of object: any Entity, _ group: [RecordShape.Field]) throws -> [StoredValue]? {
        var values: [StoredValue] = []
        for field in group {
            let value: StoredValue? = try storeCall {
                switch field.kind {
                case .attribute: try object.storedValue(forKey: field.property)
                case .reference: try object.relatedObjects(forKey: field.property).first.map { .text($0.objectGlobalID.uuidString) }
                }
            }
            guard let value, value != .null else { return nil }
            values.append(value)
        }
        return values
    }

    /// Whether `record`'s unique values are held here by other objects, and which survives.
    func uniqueClash(of record: SyncedRecord, shape: RecordShape) throws -> UniqueClash? {
        var holders: [UUID: any Entity] = [:]
        var clashing: [UUID: [RecordShape.Field]] = [:]
        for group in shape.uniqueGroups {
            guard let values = Self.uniqueValues(of: record, group) else { continue }
            let key = UniqueKey(entity: shape.entityName, properties: group.map(\.property), values: values)
            for holder in unsaved.uniqueHolders[key] ?? [] where holder.objectGlobalID != record.id && !holder.isDeleted {
                // Its values as they are now: they may have changed since they were noted.
                guard try uniqueValues(of: holder, group) == values else { continue }
                holders[holder.objectGlobalID] = holder
                if clashing[holder.objectGlobalID] == nil { clashing[holder.objectGlobalID] = group }
            }
        }
        guard !holders.isEmpty else { return nil }
        if try syncsOtherZones() {
            let key = zoneKey(zone), states = try recordStates(for: holders.keys)
            for (id, holder) in holders.sorted(by: { $0.key.uuidString < $1.key.uuidString }) {
                let holderZone = try states[id]?.zone ?? zoneKey(of: holder, shape: shape)
                guard holderZone != key else { continue }
                let fields = clashing[id].map { $0.map(\.name).joined(separator: ", ") } ?? ""
                return .heldInAnotherZone(field: fields, holder: holder)
            }
        }
        let smallest = holders.min { $0.key.uuidString < $1.key.uuidString }
        if let smallest, smallest.key.uuidString < record.id.uuidString { return .recordYields(to: smallest.value) }
        return .recordSurvives(Array(holders.values))
    }

    /// Gives the unique values `survivor` holds a new value in `loser`, as the entity's
    /// ``UniqueClashPolicy/keepBoth(renaming:)`` makes it: a change of this device, sent like the
    /// app's own: in each group that clashes, its first text attribute. Returns false when a group
    /// that clashes has no text attribute (the loser merges then).
    func rename(_ loser: any Entity, shape: RecordShape, clashingWith survivor: any Entity) throws -> Bool {
        guard case .keepBoth(let renaming) = shape.configuration.uniqueClashPolicy else { return false }
        var renamed: [(String, StoredValue)] = []
        for group in shape.uniqueGroups {
            guard let values = try uniqueValues(of: loser, group), try uniqueValues(of: survivor, group) == values else { continue }
            // One text attribute renamed frees the group; the first one is.
            guard
                let index = group.indices.first(where: { index in
                    guard case .attribute = group[index].kind, case .text = values[index] else { return false }
                    return true
                }),
                case .text(let text) = values[index]
            else { return false }
            if !renamed.contains(where: { $0.0 == group[index].property }) {
                renamed.append((group[index].property, .text(renaming(text, loser.objectGlobalID))))
            }
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
