import Foundation
import ObjectGraphModel

/// Saving, the public call; the steps are in `Saving/`.
extension ObjectContext {

    /// Writes every change since the last save, atomically.
    ///
    /// Runs pending delete rules, calls `willSave()` on changed objects, validates (required values,
    /// uniqueness, relationship counts, deny rules and the objects' own `validateFor…` hooks), writes in
    /// one transaction, and calls `didSave()`.
    ///
    /// A changed object whose row another context saved since this one read it is a conflict,
    /// settled by the ``mergePolicy``.
    ///
    /// - Throws: ``ObjectGraphError/validationFailed(_:)`` listing every failure,
    ///   ``ObjectGraphError/conflict(_:)`` for conflicts under the ``MergePolicy/error`` policy,
    ///   ``ObjectGraphError/readFailed(_:property:_:)`` when a read made since the last save failed
    ///   (or the delete rules of a deleted object cannot read what they need), or
    ///   ``ObjectGraphError/store(_:)``. Nothing is written when it throws.
    public func save() throws {
        let use = beginUse()
        defer { use.end() }
        if let error = changes.takeDeferredError() { throw error }
        // A save ends an event: what its `willSave()` hooks change is undone with what led to it.
        defer { endUndoEvent() }
        processPendingChangesWithinEvent()  // merging other contexts' saves first
        // Nothing is written over what could not be read: the caller learns of it here.
        try throwReadFailures()
        guard hasChanges else { return }
        try runSave()
    }
}
