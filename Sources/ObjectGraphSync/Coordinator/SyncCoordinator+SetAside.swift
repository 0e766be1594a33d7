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
    typealias RecordVersion = SyncWorkspace.RecordVersion
    typealias Refusal = SyncWorkspace.Refusal

    /// Applies `changes` through the processors and saves them, with what `finish` changes (the
    /// feed's new cursor), in one transaction; the records that cannot be applied are set aside in
    /// that transaction instead.
    func applySettingAside(_ changes: [FeedChange], finishing finish: (ClientState) throws -> Void) async throws {
        var refused: [RecordVersion: Refusal] = [:]
        while true {
            workspace.refusedWhileApplying = [:]
            do {
                let applied = refused.isEmpty ? changes : changes.filter { refused[RecordVersion($0.record)] == nil }
                for processor in processors {
                    try await processor.processRemoteChanges(applied, in: self)
                }
                refused.merge(workspace.refusedWhileApplying) { first, _ in first }
                let kept = try workspace.keepSetAside(changes, refused: refused)
                try finish(try workspace.clientState())
                try workspace.save()
                if let kept { workspace.setAsideSaved(kept, refused: refused) }
                return
            } catch {
                guard let found = workspace.refusals(in: error, among: changes, refused: refused) else { throw error }
                workspace.forgetHeldObjects()
                if found.isEmpty {
                    // No record of the page named: each is tried alone, to find those refused.
                    try await isolateRefusals(changes, refused: &refused, after: error)
                } else {
                    refused.merge(found) { first, _ in first }
                }
            }
        }
    }

    /// Applies the records of `changes` not refused yet one at a time, each saved alone (without
    /// the cursor, which moves with the whole page), to find those refused: the page is then
    /// applied again without them, the records saved here skipped by their version.
    private func isolateRefusals(_ changes: [FeedChange], refused: inout [RecordVersion: Refusal], after error: any Error) async throws {
        var foundAny = false
        for change in changes where refused[RecordVersion(change.record)] == nil {
            workspace.refusedWhileApplying = [:]
            do {
                for processor in processors {
                    try await processor.processRemoteChanges([change], in: self)
                }
                refused.merge(workspace.refusedWhileApplying) { first, _ in first }
                try workspace.save()
            } catch {
                guard let refusal = SyncWorkspace.refusal(error) else { throw error }
                // Named as a refusal of the page names it, before the objects are forgotten.
                let named = workspace.refusals(in: error, among: [change], refused: [:])?[RecordVersion(change.record)]
                workspace.forgetHeldObjects()
                refused[RecordVersion(change.record)] = named ?? refusal
                foundAny = true
            }
        }
        // Every record applies alone: the failure is not theirs.
        if !foundAny { throw error }
    }

    /// Applies the set-aside records again, oldest first: those the app's model and rules accept
    /// now are applied and no longer kept; the others are kept, with the reason of this attempt.
    func applySetAsideAgain() async throws {
        guard !(try workspace.setAsideIDs()).isEmpty else { return }
        let byZone = Dictionary(grouping: try workspace.setAsideRecordsByZone(), by: \.zone)
        // Each in the zone whose feed brought it, so that a record applied now lives there.
        for (zone, records) in byZone.sorted(by: { $0.key < $1.key }) where zoneRoles[zone] != nil {
            let changes = records.map { FeedChange(position: 0, transaction: 0, record: $0.record.record) }
            try await inZone(zone) { sync in try await sync.applySettingAside(changes) { _ in } }
        }
    }
}

// MARK: - Settling set-aside records

extension SyncCoordinator {
    /// The records this device set aside, oldest first (see ``SetAsideRecord``).
    ///
    /// - Throws: ``SyncError`` (``SyncError/Code/store``) when the store cannot be read.
    public func setAsideRecords() throws -> [SetAsideRecord] {
        try workspace.setAsideRecords()
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
        try workspace.discardSetAsideRecord(id)
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
        try workspace.replaceSetAsideRecord(id, correcting: correct)
    }
}
