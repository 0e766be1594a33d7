import Foundation
import ObjectGraph

/// A reference from a record applied from the feed to a record this device does not have yet: a
/// child that arrived before its parent. Resolved (and deleted) when the target arrives, in the
/// same save; until then the relationship reads nil.
@Entity("ObjectGraphSyncPendingLink") final class PendingLink {
    /// The object that refers.
    @Attribute(.indexed) var sourceID: UUID
    var sourceEntity: String
    /// The to-one relationship that refers.
    var property: String
    /// The record referred to.
    @Attribute(.indexed) var targetID: UUID

    init(sourceID: UUID, sourceEntity: String, property: String, targetID: UUID) {
        self.sourceID = sourceID
        self.sourceEntity = sourceEntity
        self.property = property
        self.targetID = targetID
    }
}
