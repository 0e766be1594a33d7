import Crypto
public import Foundation
public import ObjectGraphSyncProtocol

/// What the server's ledger remembers of a client in a zone: its last applied batch.
///
/// It is written in the transaction that applies the batch, so "applied" and "remembered as
/// applied" can never disagree, even when the server dies between the commit and the answer.
public struct LedgerEntry: Sendable, Equatable {
    /// The number of the batch's first mutation.
    public var firstNumber: Int64
    /// The number of the batch's last mutation.
    public var lastNumber: Int64
    /// A digest of the batch's mutations, to tell a replay from a different batch reusing numbers.
    public var digest: String
    /// The answer given to the batch, as JSON, for replays.
    public var result: String

    /// An entry as a storage read it back.
    public init(firstNumber: Int64, lastNumber: Int64, digest: String, result: String) {
        self.firstNumber = firstNumber
        self.lastNumber = lastNumber
        self.digest = digest
        self.result = result
    }
}

/// What a push comes to; each storage carries it out inside one transaction.
public enum PushDecision: Sendable {
    /// Applied now: the entries to append, the zone's new last position and the answer.
    case apply(PushPlan)
    /// The same batch was already applied: answer what was answered then, change nothing.
    case replay(result: String)
    /// The batch reuses numbers already applied and is not the last batch: change nothing.
    case numberUsed(lastApplied: Int64)
    /// Some mutations were made from stale versions: change nothing.
    case conflict([SyncErrorBody.Conflict])
}

/// The entries a push appends to the feed, and what the ledger and the client are told.
public struct PushPlan: Sendable {
    /// The entries to append, in the order of their positions.
    public var entries: [FeedEntry]
    /// The zone's last position once they are appended.
    public var lastPosition: Int64
    /// The answer: each mutation's record version, and the zone's cursor after the push.
    public var result: PushResult
    /// `result` as JSON, sent and kept in the ledger.
    public var resultJSON: String
    /// What the ledger keeps of the batch (replacing what it kept of the client's previous one).
    public var ledger: LedgerEntry
}

/// Decides what a validated push does, from the ledger and the records it touches as the zone
/// holds them. Pure: the storages read its inputs and write its outputs under the zone's lock.
///
/// A storage validates the request first (`PushRequest.validate(against:)`), then, in one
/// transaction: reads the client's ledger entry and asks ``checkLedger(_:)``; when that decides
/// nothing, reads the latest state of each record of ``recordIDs`` and asks
/// ``plan(current:zoneID:lastPosition:now:)``; and writes what the plan says.
public struct PushPlanner: Sendable {
    /// The push, validated.
    public var request: PushRequest
    /// The server's limits (a record's largest size).
    public var limits: ServerLimits

    /// A planner for a validated push.
    public init(request: PushRequest, limits: ServerLimits) {
        self.request = request
        self.limits = limits
    }

    /// The digest of the batch, stable for the same mutations whatever the JSON's key order.
    public func digest() throws -> String {
        let hex = Array("0123456789abcdef".utf8)
        let digest = SHA256.hash(data: try StoredJSON.canonicalBytes(of: request.mutations))
        return String(decoding: digest.flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 0xF)]] }, as: UTF8.self)
    }

    /// The record identifiers the batch touches, to read their current state.
    public var recordIDs: [UUID] { Array(Set(request.mutations.map(\.id))) }

    /// First step: whether the ledger says the batch is new, a replay, or a reuse of numbers.
    public func checkLedger(_ entry: LedgerEntry?) throws -> PushDecision? {
        guard let entry, let first = request.mutations.first?.number, first <= entry.lastNumber else {
            return nil
        }
        if first == entry.firstNumber, request.mutations.last?.number == entry.lastNumber,
            try digest() == entry.digest
        {
            return .replay(result: entry.result)
        }
        return .numberUsed(lastApplied: entry.lastNumber)
    }

    /// Second step: the conflicts, or the entries to append after `lastPosition`.
    ///
    /// Conflicts are judged against the records as they were before the batch: a batch may
    /// create a record and change it again without the second mutation knowing its version.
    public func plan(current: [UUID: RecordState], zoneID: Int64, lastPosition: Int64, now: Int64) throws -> PushDecision {
        var conflicts: [SyncErrorBody.Conflict] = []
        var createdInBatch: Set<UUID> = []
        for mutation in request.mutations {
            guard let server = current[mutation.id] else {
                // Only a create may name a record the zone does not hold: an update or a delete
                // of it is a stale or guessed identifier (another user's records are not here).
                guard
                    createdInBatch.contains(mutation.id)
                        || (mutation.operation == .upsert && mutation.baseVersion == nil)
                else {
                    throw SyncRefusal.notFound(
                        "\(mutation.label): the zone holds no such record (never created in it, "
                            + "or deleted and purged past the tombstone horizon). Nothing was applied.")
                }
                createdInBatch.insert(mutation.id)
                continue
            }
            if isConflict(mutation, with: server) {
                conflicts.append(SyncErrorBody.Conflict(number: mutation.number, server: server.synced))
            }
        }
        if !conflicts.isEmpty { return .conflict(conflicts) }

        var working = current
        var entries: [FeedEntry] = []
        var applied: [PushResult.Applied] = []
        var position = lastPosition
        let transaction = lastPosition + 1
        for mutation in request.mutations {
            guard let (next, fieldsJSON) = try apply(mutation, to: working[mutation.id]) else {
                // Deleting what is already deleted: nothing to record.
                applied.append(.init(number: mutation.number, id: mutation.id, version: working[mutation.id]?.version ?? 0))
                continue
            }
            position += 1
            working[mutation.id] = next
            entries.append(
                FeedEntry(
                    position: position, transaction: transaction, committedAt: now, state: next,
                    fieldsJSON: fieldsJSON, fieldVersionsJSON: StoredJSON.encode(next.fieldVersions)))
            applied.append(.init(number: mutation.number, id: mutation.id, version: next.version))
        }
        let result = PushResult(applied: applied, cursor: FeedCursor(position: position, zoneID: zoneID))
        let resultJSON = StoredJSON.encode(result)
        let ledger = LedgerEntry(
            firstNumber: request.mutations.first?.number ?? 0, lastNumber: request.mutations.last?.number ?? 0,
            digest: try digest(), result: resultJSON)
        return .apply(PushPlan(entries: entries, lastPosition: position, result: result, resultJSON: resultJSON, ledger: ledger))
    }

    /// An upsert conflicts when the record was deleted after its base version, when it creates
    /// a record that exists, or when a field it sets changed after its base version; a delete
    /// conflicts when anything changed after its base version.
    private func isConflict(_ mutation: Mutation, with server: RecordState) -> Bool {
        let base = mutation.baseVersion ?? 0
        switch mutation.operation {
        case .upsert:
            if server.deleted { return server.version > base }
            if mutation.baseVersion == nil { return true }
            return mutation.fields.keys.contains { (server.fieldVersions[$0] ?? 0) > base }
        case .delete:
            if server.deleted { return false }
            return server.version > base
        }
    }

    /// The record after a mutation and its fields' JSON, or nil when the mutation changes nothing.
    private func apply(_ mutation: Mutation, to state: RecordState?) throws -> (RecordState, String)? {
        if let state, state.entity != mutation.entity {
            throw SyncRefusal.badRequest(
                "\(mutation.label): the record \(mutation.id.uuidString) is a \(state.entity). Nothing was applied.")
        }
        let version = (state?.version ?? 0) + 1
        switch mutation.operation {
        case .delete:
            guard let state, !state.deleted else { return nil }
            let tombstone = RecordState(
                entity: state.entity, id: state.id, version: version, deleted: true, fields: [:], fieldVersions: [:])
            return (tombstone, "{}")
        case .upsert:
            var next =
                state
                ?? RecordState(
                    entity: mutation.entity, id: mutation.id, version: 0, deleted: false, fields: [:], fieldVersions: [:])
            if next.deleted {
                // A client that saw the deletion creates the record anew.
                next.fields = [:]
                next.fieldVersions = [:]
                next.deleted = false
            }
            next.version = version
            for (name, value) in mutation.fields {
                next.fields[name] = value
                next.fieldVersions[name] = version
            }
            let fieldsJSON = try StoredJSON.encode(next.fields)
            let size = fieldsJSON.utf8.count
            guard size <= limits.maxRecordBytes else {
                throw SyncRefusal.tooLarge(
                    "\(mutation.label): the record would hold \(size) bytes of fields; "
                        + "the limit is \(limits.maxRecordBytes).")
            }
            return (next, fieldsJSON)
        }
    }
}
