import ObjectGraphModel

/// The saves of other contexts waiting to be merged into one context.
///
/// A context is not `Sendable`: only its own isolation may change its objects. A save made elsewhere
/// therefore does not touch it; it is left here, and the context merges it when it is next used
/// (see ``ObjectContext/automaticallyMergesChanges``). The view context also asks the main actor to
/// merge as soon as it is free, through `wake`.
final class MergeInbox: Sendable {
    private struct Contents {
        var saves: [DidSave] = []
        var isOpen = true
    }

    private let contents = Locked(Contents())
    /// Called when a save arrives in an empty inbox: one call per batch of saves, not per save.
    private let wake: (@Sendable () -> Void)?

    init(wake: (@Sendable () -> Void)? = nil) {
        self.wake = wake
    }

    /// Whether saves are accepted. Closing drops the ones not merged yet.
    var isOpen: Bool {
        get { contents.withLock { $0.isOpen } }
        set {
            contents.withLock { contents in
                contents.isOpen = newValue
                if !newValue { contents.saves = [] }
            }
        }
    }

    /// Leaves a save for the context, from any thread.
    func deliver(_ save: DidSave) {
        let isFirst = contents.withLock { contents -> Bool in
            guard contents.isOpen else { return false }
            contents.saves.append(save)
            return contents.saves.count == 1
        }
        if isFirst { wake?() }
    }

    /// Drops a save that the context merged by hand, so that it is not merged twice.
    func discard(_ save: DidSave) {
        contents.withLock { contents in contents.saves.removeAll { $0.sequence == save.sequence } }
    }

    /// Takes the saves waiting, oldest transaction first (saves committed in one order may arrive in
    /// another when contexts save on several threads).
    func takeAll() -> [DidSave] {
        let saves = contents.withLock { contents in
            defer { contents.saves = [] }
            return contents.saves
        }
        return saves.count > 1 ? saves.sorted { $0.sequence < $1.sequence } : saves
    }
}
