import Foundation
import Logging
import ObjectGraph

/// Local records the server refused as too large (see ``HeldBackRecord``).
extension SyncWorkspace {
    /// Holds back the local revision `revision` of a record the server refused, with its
    /// refusal: it is not sent again until a new local change. Saved.
    func holdBack(_ recordID: UUID, revision: Int64, reason: String) throws {
        guard let state = try recordStates(for: [recordID])[recordID], state.localRevision == revision else { return }
        state.heldBackRevision = revision
        state.heldBackReason = reason
        try save()
        logger.warning(
            "a record is held back: the server refused it as too large",
            metadata: ["entity": "\(state.entityName)", "record": "\(recordID)", "reason": "\(reason)"])
    }

    /// The records held back, by ID.
    func heldBackRecords() throws -> [HeldBackRecord] {
        try storeCall {
            try context.fetch(
                FetchDescriptor<SyncRecordState>(predicate: #Predicate { $0.isPending && $0.heldBackRevision == $0.localRevision })
            )
            .map { HeldBackRecord(id: $0.recordID, entity: $0.entityName, reason: $0.heldBackReason ?? "") }
            .sorted { $0.id.uuidString < $1.id.uuidString }
        }
    }

    /// How many records are held back.
    func heldBackCount() throws -> Int {
        try storeCall {
            try context.fetchCount(
                FetchDescriptor<SyncRecordState>(predicate: #Predicate { $0.isPending && $0.heldBackRevision == $0.localRevision }))
        }
    }
}
