public import Foundation
public import ObjectGraphModel

/// Posted by a context when a save begins, before validation: what it is about to write.
///
/// Observe it with ``ObjectContext/observeWillSave(_:)`` or ``ObjectContext/willSaveNotifications``.
public struct WillSave: Sendable {
    /// The objects to insert, by their temporary IDs.
    public let insertedObjectIDs: Set<ObjectID>
    /// The saved objects with unsaved changes.
    public let updatedObjectIDs: Set<ObjectID>
    /// The saved objects to delete.
    public let deletedObjectIDs: Set<ObjectID>
    /// The saving context's ``ObjectContext/name``, recorded as the transaction's author.
    public let author: String?
}

/// Posted by a context after each successful save: what the transaction wrote.
///
/// It holds IDs, not objects, so that it can cross to other contexts and isolations: another context
/// turns them into its own objects. Observe it with ``ObjectContext/observeDidSave(_:)`` or
/// ``ObjectContext/didSaveNotifications``.
public struct DidSave: Sendable {
    /// The inserted objects, by their permanent IDs.
    public let insertedObjectIDs: Set<ObjectID>
    /// The updated objects, with the names of the properties the save changed.
    public let updatedObjectIDs: [ObjectID: Set<String>]
    /// The deleted objects.
    public let deletedObjectIDs: Set<ObjectID>
    /// The saving context's ``ObjectContext/name``.
    public let author: String?
    /// The transaction's number in the store's history: every save to a store gets a larger one.
    public let sequence: Int64
    /// When the transaction was written.
    public let date: Date
}
