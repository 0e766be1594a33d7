import Foundation
import ObjectGraph

/// What the coordinator knows of the sync context's unsaved work: one value, begun afresh at each
/// save and rollback of the context (``SyncWorkspace/save()``, ``SyncWorkspace/forgetHeldObjects()``),
/// so that nothing learnt during an attempt that was not saved outlives it.
///
/// The feed's apply writes most of it (what it wrote as the server's, the objects and links it read,
/// the unique values and aliases of the page, the lists to sort, the members a merge moved); the
/// save reads it to tell the sync's own writes from the reactions of the app's rules, which are sent
/// (see ``SyncWorkspace/recordConsequences()``).
struct UnsavedSyncState {
    /// What the sync context holds because the server has it.
    var mirrored = SyncWorkspace.MirroredChanges()
    /// The synced objects looked up, found or gone.
    var known = KnownObjects()
    /// The pending links read, by their ends.
    var pendingLinks = PendingLinkIndex()
    /// The objects that hold the unique values of the page being applied, by value.
    var uniqueHolders: [SyncWorkspace.UniqueKey: [any Entity]] = [:]
    /// Records merged into others (loser to survivor), as read for the page being applied.
    var aliases: [UUID: UUID] = [:]
    /// The ordered lists whose members' keys the sync context changed, to sort before it saves.
    var listsToSort: Set<ListToSort> = []
    /// The members a merge of unique values moved to the survivor, with the reference that moved:
    /// sent as this device's changes.
    var mergeMoves: [(member: any Entity, property: String)] = []
    /// The history position the save records as read (registered once the cycle ends).
    var historyPositionToRegister: Int64?
}
