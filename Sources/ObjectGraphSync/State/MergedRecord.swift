import Foundation
import ObjectGraph

/// A record merged into another because both held the same unique value (see
/// ``SyncCoordinator``'s unique attributes): kept under the merged record's ID, so that records
/// that still refer to it (from a device that has not merged yet) refer to the survivor, and that
/// its own changes are not applied as a second object.
@Entity("ObjectGraphSyncMergedRecord") final class MergedRecord {
    /// The record that holds the value, and everything that referred to the merged one.
    var survivorID: UUID
    /// The entity of both.
    var entityName: String

    init(survivorID: UUID, entityName: String) {
        self.survivorID = survivorID
        self.entityName = entityName
    }
}
