import Foundation
import ObjectGraph
import ObjectGraphSyncProtocol

/// Set-aside records in the store (see ``SetAsideRecord``): the entries of the records a page
/// refused, written in the page's transaction; what a refusal names; settling one.
extension SyncWorkspace {
    /// A record of the feed at one version: a page may hold two versions of one record.
    struct RecordVersion: Hashable {
        var id: UUID
        var version: Int64
        init(_ record: SyncedRecord) { (id, version) = (record.id, record.version) }
    }
    /// Why a record cannot be applied.
    struct Refusal {
        var field: String?
        var reason: String
    }
    /// The records of `changes` that `error` refuses; nil when it is not a refusal of records (the
    /// cycle stops on it), empty when it is one but names no record not already refused.
    func refusals(
        in error: any Error, among changes: [FeedChange], refused: [RecordVersion: Refusal]
    ) -> [RecordVersion: Refusal]? {
        guard let refusal = Self.refusal(error) else { return nil }
        let unrefused = changes.filter { refused[RecordVersion($0.record)] == nil }
        var found: [RecordVersion: Refusal] = [:]
        let error = error as? SyncError
        if error?.code == .invalidRecord, let recordID = error?.recordID {
            // The last version of the record in the page: an earlier one was applied before it.
            if let change = unrefused.last(where: { $0.record.id == recordID }) { found[RecordVersion(change.record)] = refusal }
        } else if let error = error?.storeError {
            for failure in error.validationFailures {
                guard let object = context.registeredObject(for: failure.objectID),
                    let change = unrefused.last(where: { $0.record.id == object.objectGlobalID })
                else { continue }
                let field = model.shape(forEntity: failure.entity)?.field(forProperty: failure.property ?? "")?.name
                // Named by its record, not by the object ID of an insertion taken back.
                let reason = failure.description.replacingOccurrences(of: "\(failure.objectID)", with: "record \(change.record.id)")
                found[RecordVersion(change.record)] = Refusal(field: field ?? failure.property, reason: reason)
            }
        }
        if found.isEmpty, unrefused.count == 1, let only = unrefused.first {
            found[RecordVersion(only.record)] = refusal
        }
        return found
    }
    /// What makes a record refused: a failure of the record itself, never of the network, of an
    /// app's concurrent save or of the store.
    static func refusal(_ error: any Error) -> Refusal? {
        guard let error = error as? SyncError else { return nil }
        if error.code == .invalidRecord { return Refusal(field: error.field, reason: "\(error)") }
        guard let storeError = error.storeError, storeError.code == .validationFailed else { return nil }
        return Refusal(field: storeError.property, reason: storeError.validationFailures.map(\.description).joined(separator: "; "))
    }
    /// Writes the page's set-aside entries into the sync context: a refused record kept (a newer
    /// version replacing an older one), a record applied no longer kept. Returns the IDs kept
    /// after the save; nil when the page touches none (nothing to write, nothing read).
    func keepSetAside(_ changes: [FeedChange], refused: [RecordVersion: Refusal]) throws -> Set<UUID>? {
        var kept = try setAsideIDs()
        let touched = changes.map(\.record.id).filter { kept.contains($0) } + refused.keys.map(\.id)
        guard !touched.isEmpty else { return nil }
        var entries = try storeCall { try context.objects(withGlobalIDs: touched, as: SetAsideEntry.self) }
        let now = Date()
        for change in changes {
            let record = change.record
            if let refusal = refused[RecordVersion(record)] {
                if let entry = entries[record.id] {
                    guard entry.version <= record.version else { continue }
                    entry.version = record.version
                    entry.deleted = record.deleted
                    entry.fields = try Self.data(record.fields)
                    entry.field = refusal.field
                    entry.reason = refusal.reason
                    entry.date = now
                    entry.zone = zoneKey(zone)
                } else {
                    let entry = SetAsideEntry(
                        recordType: record.entity, version: record.version, deleted: record.deleted,
                        fields: try Self.data(record.fields), field: refusal.field, reason: refusal.reason, date: now)
                    entry.zone = zoneKey(zone)
                    do {
                        try context.insert(entry, globalID: record.id)
                    } catch let error as ObjectGraphError {
                        throw SyncError.store(error)
                    }
                    entries[record.id] = entry
                }
                kept.insert(record.id)
            } else if let entry = entries[record.id], entry.version <= record.version {
                context.delete(entry)
                entries[record.id] = nil
                kept.remove(record.id)
            }
        }
        return kept
    }
    /// After a save: the set-aside records the store now keeps, in memory and in the status.
    func setAsideSaved(_ kept: Set<UUID>, refused: [RecordVersion: Refusal]) {
        setAside = kept
        for (record, refusal) in refused.sorted(by: { $0.key.id.uuidString < $1.key.id.uuidString }) {
            logger.notice(
                "Set aside a record of the feed",
                metadata: ["record": "\(record.id)", "version": "\(record.version)", "reason": "\(refusal.reason)"])
        }
        let latest = refused.values.first?.reason
        status.update { status in
            status.setAsideRecords = kept.count
            if let latest { status.lastSetAsideReason = latest }
            if kept.isEmpty { status.lastSetAsideReason = nil }
        }
    }

    /// The IDs of the set-aside records, read once from the store.
    func setAsideIDs() throws -> Set<UUID> {
        if let setAside { return setAside }
        let entries = try storeCall { try context.fetch(FetchDescriptor<SetAsideEntry>()) }
        let ids = Set(entries.map(\.objectGlobalID))
        setAside = ids
        let latest = entries.max { $0.date < $1.date }?.reason
        status.update {
            $0.setAsideRecords = ids.count; $0.lastSetAsideReason = latest
        }
        return ids
    }
    func setAsideEntry(_ id: UUID) throws -> SetAsideEntry {
        guard let entry = try storeCall({ try context.object(withGlobalID: id, as: SetAsideEntry.self) }) else {
            throw SyncError.notSetAside(id)
        }
        return entry
    }
    /// Saves the settling of `entry`, which is no longer kept.
    func saveSettling(_ entry: SetAsideEntry) throws {
        let id = entry.objectGlobalID
        context.delete(entry)
        do {
            try save()
        } catch {
            forgetHeldObjects()
            throw error
        }
        var kept = try setAsideIDs()
        kept.remove(id)
        setAsideSaved(kept, refused: [:])
    }

    /// The records this device set aside, oldest first.
    func setAsideRecords() throws -> [SetAsideRecord] {
        try setAsideRecordsByZone().map(\.record)
    }

    /// The set-aside records, oldest first, each with the zone whose feed brought it.
    func setAsideRecordsByZone() throws -> [(zone: ZoneID, record: SetAsideRecord)] {
        let entries = try storeCall { try context.fetch(FetchDescriptor<SetAsideEntry>(sortBy: [SortDescriptor(\.date)])) }
        return try entries.map { entry in
            let record = SetAsideRecord(
                record: SyncedRecord(
                    entity: entry.recordType, id: entry.objectGlobalID, version: entry.version, deleted: entry.deleted,
                    fields: try Self.fields(entry.fields)),
                field: entry.field, reason: entry.reason, date: entry.date)
            return (zone(forKey: entry.zone), record)
        }
    }

    /// Forgets a set-aside record; a newer version of it from the feed is applied as usual, and
    /// reading the zone again from its start does not set it aside anew. Saved.
    func discardSetAsideRecord(_ id: UUID) throws {
        let entry = try setAsideEntry(id)
        if let shape = model.shape(forRecordType: entry.recordType) {
            var states = try recordStates(for: [id])
            let state = try states[id] ?? newState(id, entity: shape.entityName, zone: entry.zone, into: &states)
            state.feedVersion = max(state.feedVersion, entry.version)
        }
        try saveSettling(entry)
    }

    /// Replaces a set-aside record by the value `correct` makes of its object (given first the
    /// record's fields that fit), saved as a change of this device, to be sent. Saved; nothing is
    /// changed when it throws.
    func replaceSetAsideRecord(_ id: UUID, correcting correct: (any Entity) throws -> Void) throws {
        let entry = try setAsideEntry(id)
        guard let shape = model.shape(forRecordType: entry.recordType) else {
            throw SyncError.invalidRecord(
                recordType: entry.recordType, recordID: id, field: nil, reason: "this version of the app does not sync \(entry.recordType)")
        }
        do {
            let fields = try Self.fields(entry.fields)
            // Based on the server's version: what the app corrects is sent as a change of it.
            var states = try recordStates(for: [id])
            let state = try states[id] ?? newState(id, entity: shape.entityName, zone: entry.zone, into: &states)
            state.baseVersion = entry.version
            state.feedVersion = max(state.feedVersion, entry.version)
            state.shadow = try Self.data(fields)
            let object = try self.object(withGlobalID: id, of: shape) ?? shape.insertObject(globalID: id, in: context)
            for (name, value) in fields {
                do {
                    try write([name: value], into: object, shape: shape, recordID: id, skipping: [])
                } catch let error as SyncError where error.code == .invalidRecord {
                    continue  // a field that does not fit: the app's to correct
                }
            }
            // Not the server's: every change is the app's, recorded as such when saved.
            unsaved.mirrored.written[id] = nil
            try correct(object)
            try saveSettling(entry)
        } catch {
            forgetHeldObjects()
            throw error
        }
    }
}
