import ObjectGraphModel

/// The change flow's last steps, run at the end of every event and first in every save: merge the
/// saves of other contexts that arrived, run the delete rules of the objects deleted since (a
/// ``DeletionPass``), and post ``ObjectsDidChange`` for everything that changed.
extension ObjectContext {
    /// Merges the saves of other contexts that arrived (see ``automaticallyMergesChanges``), runs
    /// `prepareForDeletion()` and the delete rules of the objects deleted since the last call, and of
    /// every object they delete in turn, then posts ``ObjectsDidChange`` for every change since it
    /// was last posted.
    ///
    /// `delete(_:)` runs the delete rules at once, and ``save()`` does all of this first, so the graph
    /// is consistent as soon as `delete` returns; a `delete` made from `prepareForDeletion()` joins
    /// the pass under way. Each object's rules run once however many paths reach it, and a cycle of
    /// cascades ends when it comes back to an object already deleted.
    ///
    /// The call ends an event: an ``undoManager`` that groups by event closes its group.
    public func processPendingChanges() {
        let use = beginUse()
        defer { use.end() }
        processPendingChangesWithinEvent()
        endUndoEvent()
    }

    /// ``processPendingChanges()`` as a step of a longer call (a save), whose end ends the event.
    func processPendingChangesWithinEvent() {
        processing.isScheduled = false
        mergeIncomingChanges()
        processLocalChanges()
    }

    /// Propagates this context's own deletions and posts its changes, without merging other
    /// contexts' saves: what `delete` and the steps of a save need.
    func processLocalChanges() {
        guard !processing.isRunning else { return }
        DeletionPass(context: self).run()
        postObjectsDidChange()
    }

    /// Posts ``ObjectsDidChange`` for the changes recorded since it was last posted, if any. Handlers
    /// may change the graph again: that is recorded for the next one.
    func postObjectsDidChange() {
        guard !changes.unposted.isEmpty else { return }
        let change = changes.takeUnposted()
        for object in change.inserted.values { object._$state.insertionIsPosted = true }
        let toMonitors = listMonitorObservers.isObserved, toObservers = objectsDidChangeObservers.isObserved
        guard toMonitors || toObservers else { return }
        let notification = change.notification
        if toMonitors { listMonitorObservers.post(notification) }
        if toObservers && notification.namesObjects { objectsDidChangeObservers.post(notification) }
    }
}

/// Where the processing of a context's pending changes stands.
struct PendingChangesProcessing {
    /// Whether delete rules are running: a `delete` made meanwhile joins the pass, and saves of
    /// other contexts wait.
    var isRunning = false
    /// Whether the view context asked its isolation to process pending changes once free, and that
    /// has not happened yet.
    var isScheduled = false
}
