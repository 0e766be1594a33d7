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
