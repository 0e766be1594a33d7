import ObjectGraphModel

/// What a save does with an object whose row changed in the store since the context read it (another
/// context saved it in between, and this context had not merged that save).
///
/// Every row carries a version, incremented by each write; a context remembers the version it read.
/// "Property by property" compares three values of each property: the one this context read, its
/// current one here, and the one in the store now.
///
/// Whatever the policy, a row another context deleted stays deleted: the object is marked deleted
/// here and its changes are dropped (except with ``error``, which reports it). The other objects of
/// the save are written as usual, and resolved objects are posted as refreshed in the next
/// ``ObjectsDidChange``. A deletion is not checked against the row's version: deleting wins over a
/// change made elsewhere.
///
/// To-many relationships: a save writes the members added and removed here, never the whole set as
/// it was read, so a link another context removed (or added) meanwhile stays as that context left
/// it. A one-to-many link is the member's foreign key, versioned with the member's row. A
/// many-to-many change is a versioned change of both objects (join-table rows have no version), so
/// two contexts editing one object's many-to-many relationship meet a conflict: ``error`` reports
/// it; ``storeTrumps`` and ``objectTrumps`` write this context's additions and removals on top of
/// the store's links, keeping both sets of edits; ``overwrite`` writes the set as it is here;
/// ``rollback`` writes none of this object's link changes, and its relationships read the store's
/// links again.
public enum MergePolicy: Sendable, Hashable {
    /// The save fails with ``ObjectGraphError/conflict(_:)``, listing each such object with the
    /// version read and the version in the store (nil when deleted); nothing is written. The default.
    case error
    /// The store's changes win, property by property: a property changed both here and in the store
    /// keeps the store's value, one changed only here is written, the others take the store's values.
    case storeTrumps
    /// This context's changes win, property by property: properties changed here are written, the
    /// others take the store's values, so changes made elsewhere to other properties are kept.
    case objectTrumps
    /// The object is written as it is here, every property, replacing what the store has.
    case overwrite
    /// The object's changes here are discarded: it takes the store's values, and nothing of it is
    /// written.
    case rollback
}
