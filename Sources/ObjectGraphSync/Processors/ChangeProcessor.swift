public import Foundation
public import ObjectGraph
public import ObjectGraphSyncProtocol

/// Acts on the local objects its predicate selects, and hears the server's changes: a change
/// processor, as Core Data sync architectures have them.
///
/// A processor selects its objects by what they are, not by what just happened to them: the
/// coordinator gives it the objects of each local save that match its predicate (remapped into the
/// sync context), and at start every object that matches, so that what a crash or a suspension
/// interrupted resumes. Inserts and updates are one path. Its methods run on the coordinator, in
/// its cycle; the objects belong to its sync context.
///
/// ```swift
/// /// Uploads only the moods that have a rating.
/// struct RatedMoodUploader: ChangeProcessor {
///     var predicate: Predicate<Mood>? { #Predicate { $0.rating > 0 } }
///     func processChangedLocalObjects(_ objects: [Mood], in sync: isolated SyncCoordinator) async throws {
///         try await sync.upload(objects)
///     }
/// }
/// ```
public protocol ChangeProcessor: Sendable {
    /// The entity of the local objects it acts on.
    associatedtype Object: Entity

    /// The local objects it wants; nil for a processor of remote changes only.
    var predicate: Predicate<Object>? { get }

    /// Acts on local objects that match the predicate: those of the saves since the last cycle, or,
    /// at start, all of them.
    func processChangedLocalObjects(_ objects: [Object], in sync: isolated SyncCoordinator) async throws

    /// Hears a page of the server's feed before it is saved with the new cursor: what a processor
    /// changes here is saved with the page, as the sync's. Of that, only changes of synced
    /// properties the server does not have are sent, like the app's own; what the feed brought never
    /// goes back. Does nothing by default.
    func processRemoteChanges(_ changes: [FeedChange], in sync: isolated SyncCoordinator) async throws
}

extension ChangeProcessor {
    public func processChangedLocalObjects(_ objects: [Object], in sync: isolated SyncCoordinator) async throws {}
    public func processRemoteChanges(_ changes: [FeedChange], in sync: isolated SyncCoordinator) async throws {}
}

/// Sends the local changes the server has not acknowledged: the records whose state is pending.
public struct Uploader: ChangeProcessor {
    public init() {}

    public var predicate: Predicate<SyncRecordState>? { #Predicate { $0.isPending } }

    public func processChangedLocalObjects(_ objects: [SyncRecordState], in sync: isolated SyncCoordinator) async throws {
        try await sync.uploadPendingChanges()
    }
}

/// Applies the server's feed to the local objects: inserts, updates, deletions, references
/// resolved in any order.
public struct Downloader: ChangeProcessor {
    public init() {}

    public var predicate: Predicate<SyncRecordState>? { nil }

    public func processRemoteChanges(_ changes: [FeedChange], in sync: isolated SyncCoordinator) async throws {
        try sync.workspace.apply(changes)
    }
}

/// Deletes on the server the objects of an entity marked for deletion here (two-step deletion,
/// see `DelayedDeletable`), then here: a marked object stays, hidden, until the server
/// acknowledged.
public struct RemoteDeleter<Object: Syncable & DelayedDeletable>: ChangeProcessor {
    public init() {}

    public var predicate: Predicate<Object>? { #Predicate { $0.markedForDeletionDate != nil } }

    public func processChangedLocalObjects(_ objects: [Object], in sync: isolated SyncCoordinator) async throws {
        try await sync.deleteRemotely(objects)
    }
}
