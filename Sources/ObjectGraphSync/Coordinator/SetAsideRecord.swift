public import Foundation
public import ObjectGraphSyncProtocol

/// A record of the server's feed that this device could not apply, kept aside so that the rest of
/// the zone goes on: it breaks one of the app's validation rules, a field has the wrong form, or
/// its type or a field is unknown to this version of the app.
///
/// Nothing is applied in violation of a rule, and nothing is dropped without the app saying so. A
/// set-aside record is tried again each time the coordinator starts (an upgrade of the app that
/// now accepts it applies it) and by ``SyncCoordinator/retrySetAsideRecords()``; a newer version of
/// the record from the feed replaces it. The app can also settle it:
/// ``SyncCoordinator/replaceSetAsideRecord(_:correcting:)`` saves a corrected value here and sends
/// it, and ``SyncCoordinator/discardSetAsideRecord(_:)`` forgets it on this device.
///
/// ```swift
/// for refused in try await sync.setAsideRecords() {
///     print("\(refused.record.entity) \(refused.id): \(refused.reason)")
/// }
/// ```
public struct SetAsideRecord: Sendable, Hashable, Identifiable {
    /// The record as the feed brought it: its type, ID, version, fields, and whether it is a
    /// deletion.
    public var record: SyncedRecord
    /// The field that does not fit, when the reason is one field's.
    public var field: String?
    /// Why it could not be applied, naming the entity, the property and the value involved.
    public var reason: String
    /// When it was set aside (again, for a newer version).
    public var date: Date

    /// The record's ID: the global ID of the object it would be.
    public var id: UUID { record.id }

    /// A set-aside record.
    public init(record: SyncedRecord, field: String?, reason: String, date: Date) {
        self.record = record
        self.field = field
        self.reason = reason
        self.date = date
    }
}
