import Foundation
import ObjectGraph

/// A record of the feed this device could not apply, kept until it is applied or the app settles
/// it (see ``SetAsideRecord``). One per record, under the record's global ID; saved in the
/// transaction of the page that brought it, so that the cursor never passes a record that is
/// neither applied nor kept here.
@Entity("ObjectGraphSyncSetAside") final class SetAsideEntry {
    /// The record's type on the server.
    var recordType: String
    /// The record's version on the server, as it was set aside.
    var version: Int64
    /// Whether the record is a deletion (a tombstone the device's rules refused).
    var deleted: Bool
    /// The record's fields, as a JSON object.
    var fields: Data
    /// The record's field that does not fit, when one does not.
    var field: String?
    /// Why the record could not be applied.
    var reason: String
    /// When it was (last) set aside.
    var date: Date
    /// The zone whose feed brought it (a ``SyncWorkspace/zoneKey(_:)``): where it applies.
    var zone = ""

    init(recordType: String, version: Int64, deleted: Bool, fields: Data, field: String?, reason: String, date: Date) {
        self.recordType = recordType
        self.version = version
        self.deleted = deleted
        self.fields = fields
        self.field = field
        self.reason = reason
        self.date = date
    }
}
