import Foundation
import ObjectGraphModel
package import ObjectGraphStore

/// Stands between a container's contexts and its store: it owns the store, knows the live contexts,
/// and hands every committed transaction to all of them but its author.
///
/// Contexts read and write rows through the store (``RowReader``, ``RowWriter``); what they commit
/// reaches the others only through ``didCommit(_:from:)``, so no change bypasses a context that merges
/// automatically, nor what observes it. Batch operations, the history of other processes' commits and
/// sync enter the same path.
package final class StoreCoordinator: Sendable {
    package let store: SQLiteStore
    /// Names this coordinator's transactions in the history, to tell them from other processes'.
    let origin = UUID()
    private let liveContexts = LiveContexts()
    /// Whoever observes every commit of the container (``ObjectContainer/observeCommits(_:)``).
    package let commitObservers = Observers<DidSave>()

    private let historyWatcher: HistoryWatcher?
    /// The watch of the store's files that wakes the history watcher; stopped with the coordinator.
    private let fileEvents = Locked<StoreFileEvents?>(nil)

    /// Starts watching the history for other writers' commits when the store is a file and
    /// `interval` is not nil.
    package init(store: SQLiteStore, pollingInterval interval: Duration?) throws {
        self.store = store
        if store.path != ":memory:" {
            historyWatcher = HistoryWatcher(startingAfter: try store.reader.lastSequence())
        } else {
            historyWatcher = nil
        }
        if historyWatcher != nil, let interval {
            let events = HistoryWatcher.start(for: self, every: interval)
            fileEvents.withLock { $0 = events }
        }
    }

    /// Delivers the transactions other writers committed since the last look to every live
    /// context. A failed read throws and moves nothing on: the next look reads the same
    /// transactions again, so none is skipped.
    package func mergeOtherWriters() throws {
        guard let historyWatcher else { return }
        for transaction in try historyWatcher.look(in: store, origin: origin) {
            didCommit(didSave(for: transaction), from: nil)
        }
    }

    /// A stored transaction as the saves contexts merge: IDs of the entities this model knows.
    private func didSave(for transaction: StoredTransaction) -> DidSave {
        var inserted: Set<ObjectID> = []
        var updated: [ObjectID: Set<String>] = [:]
        var deleted: Set<ObjectID> = []
        var keySets: [String: Set<String>] = [:]  // shared by the changes of equal keys, as a save's are
        for change in transaction.changes {
            guard let mapping = store.mapping(named: change.entity) else { continue }
            let id = ObjectID(entity: mapping.declaration, key: change.key, store: store.identity)
            switch change.kind {
            case .insert: inserted.insert(id)
            case .update:
                let text = change.changedKeys ?? ""
                let keys = keySets[text] ?? Set(text.split(separator: ",").map(String.init))
                keySets[text] = keys
                updated[id] = updated[id].map { $0.union(keys) } ?? keys
            case .delete: deleted.insert(id)
            }
        }
        return DidSave(
            insertedObjectIDs: inserted, updatedObjectIDs: updated, deletedObjectIDs: deleted,
            author: transaction.author, sequence: transaction.sequence, date: transaction.date)
    }

    /// Starts delivering commits to a new context, by its inbox, until the context is released.
    func register(_ inbox: MergeInbox) {
        liveContexts.add(inbox)
    }

    /// Hands a committed transaction to every live context but its author (a batch operation has
    /// none: every context merges it, the one that ran it included).
    func didCommit(_ save: DidSave, from author: MergeInbox?) {
        liveContexts.deliver(save, from: author)
        commitObservers.post(save)
    }
}

/// The container's live contexts, each by its inbox, held weakly: a context that is released stops
/// receiving saves without having to unregister.
private final class LiveContexts: Sendable {
    private struct Entry {
        weak var inbox: MergeInbox?
    }

    private let entries = Locked<[Entry]>([])

    func add(_ inbox: MergeInbox) {
        entries.withLock { entries in
            entries.removeAll { $0.inbox == nil }
            entries.append(Entry(inbox: inbox))
        }
    }

    /// Leaves a save in the inbox of every live context but its author's.
    func deliver(_ save: DidSave, from author: MergeInbox?) {
        let inboxes = entries.withLock { entries in
            entries.removeAll { $0.inbox == nil }
            return entries.compactMap(\.inbox)
        }
        for inbox in inboxes where inbox !== author { inbox.deliver(save) }
    }
}
