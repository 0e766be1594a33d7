public import Foundation
public import ObjectGraph
import ObjectGraphSyncProtocol

/// Records that cannot be applied never stop a zone: they are set aside (``SetAsideRecord``).
///
/// A page is applied and saved with its cursor in one transaction. When that fails because of
/// records (one breaks a validation rule, has a field of the wrong form, is of a type this version
/// of the app does not sync), those records are left out, kept as set-aside entries, and the page
/// is applied again without them, in the same transaction as their entries. A failure that names
/// no record of the page (a rule of another object, reacting to the page) is narrowed down by
/// applying the page's records one at a time. Errors that are not a record's (the network, a
/// conflict with an app's save, the store) stop the cycle as before. When nothing is refused, this
/// costs one set lookup per record.
extension SyncCoordinator {
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

    /// Applies `changes` through the processors and saves them, with what `finish` changes (the
    /// feed's new cursor), in one transaction; the records that cannot be applied are set aside in
    /// that transaction instead.
    func applySettingAside(_ changes: [FeedChange], finishing finish: (ClientState) throws -> Void) async throws {
        var refused: [RecordVersion: Refusal] = [:]
        while true {
            refusedWhileApplying = [:]
            do {
                let applied = refused.isEmpty ? changes : changes.filter { refused[RecordVersion($0.record)] == nil }
                for processor in processors {
                    try await processor.processRemoteChanges(applied, in: self)
                }
                refused.merge(refusedWhileApplying) { first, _ in first }
                let kept = try keepSetAside(changes, refused: refused)
                try finish(try clientState())
                try save()
                if let kept { setAsideSaved(kept, refused: refused) }
                return
            } catch {
                guard let found = refusals(in: error, among: changes, refused: refused) else { throw error }
                forgetHeldObjects()
                if found.isEmpty {
                    // No record of the page named: each is tried alone, to find those refused.
                    try await isolateRefusals(changes, refused: &refused, after: error)
                } else {
                    refused.merge(found) { first, _ in first }
                }
            }
        }
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
    private static func refusal(_ error: any Error) -> Refusal? {
        guard let error = error as? SyncError else { return nil }
        if error.code == .invalidRecord { return Refusal(field: error.field, reason: "\(error)") }
        guard let storeError = error.storeError, storeError.code == .validationFailed else { return nil }
        return Refusal(field: storeError.property, reason: storeError.validationFailures.map(\.description).joined(separator: "; "))
    }

    /// Applies the records of `changes` not refused yet one at a time, each saved alone (without
    /// the cursor, which moves with the whole page), to find those refused: the page is then
    /// applied again without them, the records saved here skipped by their version.
    private func isolateRefusals(_ changes: [FeedChange], refused: inout [RecordVersion: Refusal], after error: any Error) async throws {
        var foundAny = false
        for change in changes where refused[RecordVersion(change.record)] == nil {
            refusedWhileApplying = [:]
            do {
                for processor in processors {
                    try await processor.processRemoteChanges([change], in: self)
                }
                refused.merge(refusedWhileApplying) { first, _ in first }
                try save()
            } catch {
                guard let refusal = Self.refusal(error) else { throw error }
                // Named as a refusal of the page names it, before the objects are forgotten.
                let named = refusals(in: error, among: [change], refused: [:])?[RecordVersion(change.record)]
                forgetHeldObjects()
                refused[RecordVersion(change.record)] = named ?? refusal
                foundAny = true
            }
        }
        // Every record applies alone: the failure is not theirs.
        if !foundAny { throw error }
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
                } else {
                    let entry = SetAsideEntry(
                        recordType: record.entity, version: record.version, deleted: record.deleted,
                        fields: try Self.data(record.fields), field: refusal.field, reason: refusal.reason, date: now)
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

    /// Applies the set-aside records again, oldest first: those the app's model and rules accept
    /// now are applied and no longer kept; the others are kept, with the reason of this attempt.
    func applySetAsideAgain() async throws {
        guard !(try setAsideIDs()).isEmpty else { return }
        let entries = try storeCall {
            try context.fetch(FetchDescriptor<SetAsideEntry>(sortBy: [SortDescriptor(\.date)]))
        }
        let changes = try entries.map { entry in
            FeedChange(
                position: 0, transaction: 0,
                record: SyncedRecord(
                    entity: entry.recordType, id: entry.objectGlobalID, version: entry.version, deleted: entry.deleted,
                    fields: try Self.fields(entry.fields)))
        }
        try await applySettingAside(changes) { _ in }
    }

    /// Runs a call of the store, its error as the sync's.
    func storeCall<T>(_ call: () throws -> T) throws -> T {
        do {
            return try call()
        } catch let error as ObjectGraphError {
            throw SyncError.store(error)
        }
    }
}

// MARK: - Settling set-aside records

extension SyncCoordinator {
    /// The records this device set aside, oldest first (see ``SetAsideRecord``).
    ///
    /// - Throws: ``SyncError`` (``SyncError/Code/store``) when the store cannot be read.
    public func setAsideRecords() throws -> [SetAsideRecord] {
        let entries = try storeCall { try context.fetch(FetchDescriptor<SetAsideEntry>(sortBy: [SortDescriptor(\.date)])) }
        return try entries.map { entry in
            SetAsideRecord(
                record: SyncedRecord(
                    entity: entry.recordType, id: entry.objectGlobalID, version: entry.version, deleted: entry.deleted,
                    fields: try Self.fields(entry.fields)),
                field: entry.field, reason: entry.reason, date: entry.date)
        }
    }

    /// Applies the set-aside records again, after the cycle under way: those the app's model and
    /// rules accept now are applied (and no longer set aside). The coordinator does this by itself
    /// at its first cycle, so that an upgrade of the app that accepts them applies them.
    ///
    /// - Throws: What stops a cycle (the store, a conflict with an app's save); a record still
    ///   refused stays set aside, with the reason of this attempt.
    public func retrySetAsideRecords() async throws {
        try await exclusively { sync in try await sync.applySetAsideAgain() }
    }

    /// Forgets a set-aside record on this device: the server keeps it, and a newer version of it
    /// from the feed is applied (or set aside) as usual.
    ///
    /// - Throws: ``SyncError`` (``SyncError/Code/notSetAside``) when no record is set aside under `id`;
    ///   ``SyncError`` (``SyncError/Code/store``).
    public func discardSetAsideRecord(_ id: UUID) async throws {
        await waitForCycles()
        let entry = try setAsideEntry(id)
        if let shape = model.shape(forRecordType: entry.recordType) {
            // Read again from the zone's start, the record is not set aside anew.
            var states = try recordStates(for: [id])
            let state = try states[id] ?? newState(id, entity: shape.entityName, into: &states)
            state.feedVersion = max(state.feedVersion, entry.version)
        }
        try saveSettling(entry)
    }

    /// Replaces a set-aside record by a corrected value, saved on this device and sent to the
    /// server as a change of this device.
    ///
    /// The object of the record (the one this device has, or a new one under the record's ID) is
    /// given the record's fields that fit, then handed to `correct`, which makes it valid; it is
    /// saved when `correct` returns, and pushed at the next cycle.
    ///
    /// ```swift
    /// try await sync.replaceSetAsideRecord(refused.id) { object in
    ///     (object as? Mood)?.rating = 5
    /// }
    /// ```
    ///
    /// - Throws: ``SyncError`` (``SyncError/Code/notSetAside``) when no record is set aside under `id`;
    ///   ``SyncError`` (``SyncError/Code/invalidRecord``) when its type does not
    ///   sync here; what `correct` throws; ``SyncError`` (``SyncError/Code/store``) when the corrected object is
    ///   still refused (a validation failure), nothing changed then.
    public func replaceSetAsideRecord(_ id: UUID, correcting correct: (any Entity) throws -> Void) async throws {
        await waitForCycles()
        let entry = try setAsideEntry(id)
        guard let shape = model.shape(forRecordType: entry.recordType) else {
            throw SyncError.invalidRecord(
                recordType: entry.recordType, recordID: id, field: nil, reason: "this version of the app does not sync \(entry.recordType)")
        }
        do {
            let fields = try Self.fields(entry.fields)
            // Based on the server's version: what the app corrects is sent as a change of it.
            var states = try recordStates(for: [id])
            let state = try states[id] ?? newState(id, entity: shape.entityName, into: &states)
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

    private func setAsideEntry(_ id: UUID) throws -> SetAsideEntry {
        guard let entry = try storeCall({ try context.object(withGlobalID: id, as: SetAsideEntry.self) }) else {
            throw SyncError.notSetAside(id)
        }
        return entry
    }

    /// Saves the settling of `entry`, which is no longer kept.
    private func saveSettling(_ entry: SetAsideEntry) throws {
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
}
