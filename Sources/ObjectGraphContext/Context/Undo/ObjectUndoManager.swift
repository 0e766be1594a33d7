import ObjectGraphModel

/// Records a context's changes in groups, which ``undo()`` takes back and ``redo()`` makes again.
///
/// Give a context one to record its changes (a context without one records nothing and pays
/// nothing):
///
/// ```swift
/// let undoManager = ObjectUndoManager()
/// context.undoManager = undoManager
/// mood.text = "Sunny"
/// context.processPendingChanges()  // the end of an event: the group closes
/// undoManager.undo()               // mood.text is what it was
/// ```
///
/// A group holds everything the context's objects went through while it was open: attribute edits,
/// relationship changes (both sides), insertions, and deletions with everything their delete rules
/// and `prepareForDeletion()` did. Undoing a group restores each of those exactly, before or after a
/// save: undoing a saved deletion brings the object back, with its ID and global ID, to be written
/// again at the next save. What undo changes is unsaved, posted in ``ObjectsDidChange`` like any
/// change, so monitors and observers follow.
///
/// Groups end at every event by default (``groupsByEvent``): a group opens with the first change
/// and closes when the context processes its pending changes, which the view context does as soon
/// as the main actor is free, and every context does when it saves or when
/// ``ObjectContext/processPendingChanges()`` is called. ``beginUndoGrouping()`` and
/// ``endUndoGrouping()`` make a group of their own, such as one per edit sheet.
///
/// Changes merged from other contexts' saves, rollbacks and refreshes are not recorded: they are not
/// this context's edits. ``ObjectContext/rollback()`` and ``ObjectContext/reset()`` empty both
/// stacks, since the states the groups lead back to are gone. Foundation's `UndoManager` is not
/// used: it is missing from Foundation on Linux.
///
/// An undo manager belongs to one context at a time, and is used on that context's isolation.
public final class ObjectUndoManager {
    /// The context whose changes are recorded, set by ``ObjectContext/undoManager``.
    weak var context: ObjectContext?
    /// The group being recorded: opened by the first change, or by ``beginUndoGrouping()``.
    var openGroup: UndoGroup?
    /// Groups that ``undo()`` can take back, the latest last.
    private(set) var undoStack: [UndoGroup] = []
    /// Groups that ``redo()`` can make again, the latest undone last.
    private(set) var redoStack: [UndoGroup] = []
    private var disabledCount = 0
    /// The keys saves gave to objects inserted while recording, by temporary key: an object that
    /// was inserted and deleted before those saves still names its relatives by their temporary
    /// keys, and an undo that brings it back replaces them.
    private(set) var savedKeys: AllocatedKeys = [:]

    /// The number of groups kept for undo; the oldest are dropped beyond it. Zero (the default)
    /// keeps every group.
    public var levelsOfUndo: Int {
        didSet { trimUndoStack() }
    }

    /// Whether a group closes at the end of every event (on by default): when the context processes
    /// its pending changes (see ``ObjectContext/processPendingChanges()``) or saves. Off, changes made
    /// outside ``beginUndoGrouping()`` and ``endUndoGrouping()`` gather in one group until the next
    /// of those calls, ``undo()`` or ``redo()``.
    public var groupsByEvent = true

    /// How many ``beginUndoGrouping()`` calls are not ended yet.
    public private(set) var groupingLevel = 0

    /// Whether ``undo()`` is restoring a group now (changes are then not recorded).
    public private(set) var isUndoing = false
    /// Whether ``redo()`` is restoring a group now.
    public private(set) var isRedoing = false

    /// Creates an undo manager.
    ///
    /// - Parameter levelsOfUndo: How many groups are kept; zero keeps them all.
    public init(levelsOfUndo: Int = 0) {
        self.levelsOfUndo = max(0, levelsOfUndo)
    }

    // MARK: State

    /// Whether changes are recorded: registration is enabled and no undo or redo is under way.
    var isRecording: Bool {
        disabledCount == 0 && !isUndoing && !isRedoing
    }

    /// Whether ``undo()`` would take a group back: one was recorded, and no group is open by
    /// ``beginUndoGrouping()``.
    public var canUndo: Bool {
        groupingLevel == 0 && (!undoStack.isEmpty || openGroup?.isEmpty == false)
    }

    /// Whether ``redo()`` would make an undone group again.
    public var canRedo: Bool {
        groupingLevel == 0 && !redoStack.isEmpty
    }

    /// The name of the group ``undo()`` takes back (see ``setActionName(_:)``); empty when none.
    public var undoActionName: String {
        if let openGroup, !openGroup.isEmpty { return openGroup.actionName }
        return undoStack.last?.actionName ?? ""
    }

    /// The name of the group ``redo()`` makes again; empty when none.
    public var redoActionName: String {
        redoStack.last?.actionName ?? ""
    }

    /// Names the group being recorded, or the one last closed if none is open: "Edit Mood", say,
    /// for a menu's "Undo Edit Mood".
    public func setActionName(_ name: String) {
        if openGroup != nil {
            openGroup?.actionName = name
        } else if !undoStack.isEmpty {
            undoStack[undoStack.count - 1].actionName = name
        }
    }

    // MARK: Grouping

    /// Opens a group; the changes until the matching ``endUndoGrouping()`` are undone together.
    /// Groups nest: an inner group is part of its outer one. A group left open by events closes
    /// first.
    public func beginUndoGrouping() {
        if groupingLevel == 0 {
            context?.processLocalChanges()  // pending delete rules: their effects belong to the group closing
            closeGroup()
            openGroup = UndoGroup()
        }
        groupingLevel += 1
    }

    /// Closes the group opened by the matching ``beginUndoGrouping()``. Without an open group, does
    /// nothing.
    public func endUndoGrouping() {
        guard groupingLevel > 0 else { return }
        if groupingLevel == 1 { context?.processLocalChanges() }  // pending delete rules: in this group
        groupingLevel -= 1
        if groupingLevel == 0 { closeGroup() }
    }

    /// Closes the group open by events, if any (called where an event ends).
    func endEventGroup() {
        guard groupsByEvent, groupingLevel == 0 else { return }
        closeGroup()
    }

    /// Keeps the open group for undo, if it recorded anything.
    private func closeGroup() {
        defer { openGroup = nil }
        guard let group = openGroup, !group.isEmpty else { return }
        undoStack.append(group)
        trimUndoStack()
    }

    private func trimUndoStack() {
        guard levelsOfUndo > 0, undoStack.count > levelsOfUndo else { return }
        undoStack.removeFirst(undoStack.count - levelsOfUndo)
    }

    // MARK: Registration

    /// Stops recording changes until the matching ``enableUndoRegistration()``: for changes that
    /// should not be undone, such as an import.
    public func disableUndoRegistration() {
        disabledCount += 1
    }

    /// Records changes again, once every ``disableUndoRegistration()`` is matched.
    public func enableUndoRegistration() {
        disabledCount = max(0, disabledCount - 1)
    }

    /// Whether changes are recorded (see ``disableUndoRegistration()``).
    public var isUndoRegistrationEnabled: Bool {
        disabledCount == 0
    }

    /// The group that records a change, opened if none is: a new change also ends what could be
    /// redone.
    func recordingGroup() -> UndoGroup? {
        guard isRecording else { return nil }
        if openGroup == nil {
            openGroup = UndoGroup()
        }
        if !redoStack.isEmpty { redoStack = [] }
        return openGroup
    }

    // MARK: Undo and redo

    /// Takes back the latest group: every object it changed gets what it had before the group, and
    /// what that changed is posted in ``ObjectsDidChange``. Closes a group open by events first; does
    /// nothing while ``beginUndoGrouping()`` has a group open, or when nothing can be undone.
    public func undo() {
        guard let context, groupingLevel == 0 else { return }
        context.processLocalChanges()  // pending delete rules: their effects belong to the group closing
        closeGroup()
        guard let group = undoStack.popLast() else { return }
        isUndoing = true
        let inverse = context.restore(group)
        isUndoing = false
        redoStack.append(inverse)
        context.postObjectsDidChange()
    }

    /// Makes the latest undone group again. Does nothing while ``beginUndoGrouping()`` has a group
    /// open, or when nothing was undone since the last recorded change.
    public func redo() {
        guard let context, groupingLevel == 0, let group = redoStack.popLast() else { return }
        isRedoing = true
        let inverse = context.restore(group)
        isRedoing = false
        undoStack.append(inverse)
        trimUndoStack()
        context.postObjectsDidChange()
    }

    /// Forgets every group, open or closed: nothing can be undone or redone.
    public func removeAllActions() {
        undoStack = []
        redoStack = []
        openGroup = nil
        groupingLevel = 0
        savedKeys = [:]
    }

    /// Keeps the keys a save gave to new objects (see ``savedKeys``), while groups could need them.
    func noteSavedKeys(_ newKeys: AllocatedKeys) {
        guard !undoStack.isEmpty || !redoStack.isEmpty || openGroup != nil else { return }
        savedKeys.merge(newKeys)
    }
}
