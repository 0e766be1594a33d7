import Foundation
public import ObjectGraph
import ObjectGraphSyncProtocol

/// Pushing local changes, exactly once.
///
/// A batch is built from pending records' states, given the next mutation numbers, and saved as an
/// outbox batch (with the advanced counter) before it is sent. Sent, it is acknowledged in one save
/// that gives each record its new version, clears what the batch carried, and deletes the batch.
/// A crash or a lost answer in between leaves the batch in the outbox, sent again unchanged at the
/// next attempt: the server recognizes the same client and numbers and answers as the first time,
/// without applying anything twice. One batch is in flight at a time.
extension SyncCoordinator {
    /// Sends every pending local change, batch after batch, and returns when none is left.
    ///
    /// For a change processor (the ``Uploader`` calls it); it runs within the coordinator's cycle.
    public func uploadPendingChanges() async throws {
        try await push(selecting: nil)
    }

    /// The local records the server refused as too large, by ID (see ``HeldBackRecord``): not
    /// sent until they change again.
    ///
    /// - Throws: ``SyncError`` (``SyncError/Code/store``) when the store cannot be read.
    public func heldBackRecords() throws -> [HeldBackRecord] {
        try workspace.heldBackRecords()
    }

    /// Sends the pending local changes of `objects` only (a processor that uploads some objects and
    /// not others calls it); the other pending changes wait.
    public func upload(_ objects: [any Entity]) async throws {
        guard !objects.isEmpty else { return }
        try await push(selecting: Set(objects.map(\.objectGlobalID)))
    }

    /// Tells the server that `objects` are deleted, then deletes them here, the two-step way: an
    /// object marked for deletion stays (hidden) until the server acknowledged, so that nothing is
    /// lost if the app stops in between. Objects the server never had are deleted at once.
    public func deleteRemotely(_ objects: [any Entity]) async throws {
        guard !objects.isEmpty else { return }
        try workspace.markDeletedRemotely(objects)
        try await push(selecting: Set(objects.map(\.objectGlobalID)))
    }

    /// Sends the forwards of records moved to another zone whose new zone has them (see
    /// ``SyncWorkspace/move(_:to:)``), and the batch left in each zone's outbox: part of the
    /// sync's own bookkeeping, sent whatever the processors chose to upload.
    func sendForwards() async throws {
        guard try workspace.hasReadyMoves() else { return }
        try await push(selecting: [])
    }

    // MARK: Batches

    /// Sends, zone by zone, the batch left in the outbox, if any, then batches of the pending
    /// changes of `recordIDs` (all of them for nil) until none is left. A zone the user may only
    /// read has none to send (its edits are refused at save).
    ///
    /// Records moved between zones are sent to their new zone first, then their forwards to the
    /// zone they left (see ``SyncWorkspace/move(_:to:)``): a second pass sends the forwards the
    /// first one made ready.
    private func push(selecting recordIDs: Set<UUID>?) async throws {
        var passes = 0
        repeat {
            passes += 1
            for (zone, role) in zoneRoles.sorted(by: { $0.key < $1.key }) where role.canWrite {
                try await inZone(zone) { sync in
                    // A batch the server refuses as too large is made again with half its records,
                    // down to the one record it cannot take, which is held back.
                    var limit: Int?
                    if let batch = try sync.workspace.pendingBatch() { limit = try await sync.sendOrSplit(batch) }
                    while let batch = try sync.workspace.makeBatch(selecting: recordIDs, limit: limit) {
                        limit = try await sync.sendOrSplit(batch) ?? limit
                    }
                }
            }
        } while try passes < 2 && recordIDs == nil && workspace.hasReadyMoves()
    }

    /// Sends a batch; when the server refuses it as too large (`tooLarge`: a record above its
    /// `maxRecordBytes`, a body above its `maxBodyBytes`), drops it, and returns the size of the
    /// batches to make instead: half as many records, or, for a batch of one record, holds that
    /// record back (see ``HeldBackRecord``) and returns nil. Nothing of a refused push was applied,
    /// so its changes, still pending, go in the batches made next (with new mutation numbers).
    private func sendOrSplit(_ batch: OutboxBatch) async throws -> Int? {
        do {
            try await send(batch)
            return nil
        } catch let error as SyncError where error.serverCode == .tooLarge {
            let (_, entries) = try workspace.contents(of: batch)
            try workspace.drop(batch)
            guard entries.count == 1, let entry = entries.first, entry.forwardsTo == nil else {
                guard entries.count > 1 else { throw error }
                return max(1, entries.count / 2)
            }
            try workspace.holdBack(entry.recordID, revision: entry.revision, reason: error.reason ?? "\(error)")
            let heldBack = try workspace.heldBackCount()
            status.update { $0.heldBackRecords = heldBack }
            return nil
        }
    }

    /// Sends a batch and records what the server did with it.
    private func send(_ batch: OutboxBatch) async throws {
        let (request, entries) = try workspace.contents(of: batch)
        let outcome: PushOutcome
        do {
            outcome = try await remote.push(request, zone: workspace.zone)
        } catch let error as SyncError where error.serverCode == .mutationNumberUsed {
            // The server applied later numbers than this client's state knows (a store restored
            // from a backup): the batch is built again with fresh numbers.
            try workspace.drop(batch)
            throw SyncError.server(.mutationNumberUsed, "mutation numbers were already used; the changes are sent again")
        }
        switch outcome {
        case .applied(let result):
            try workspace.acknowledge(batch, request: request, entries: entries, result: result)
        case .conflicts(let conflicts):
            try workspace.resolve(conflicts, of: batch, request: request, entries: entries)
        }
    }
}
