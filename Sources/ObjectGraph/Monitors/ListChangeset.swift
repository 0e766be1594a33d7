public import Foundation

/// A section of a ``ListMonitor``'s list: its name and its objects.
public struct ListSection<Object: Entity> {
    /// The section's value, as text (nil for objects whose value is nil); nil for an unsectioned list.
    public let key: String?
    /// The section's displayed name: ``SectionBy``'s transform of the key.
    public let name: String?
    /// The section's objects, in order.
    public let objects: [Object]

    /// The number of objects in the section.
    public var count: Int { objects.count }
}

/// Everything one change of a ``ListMonitor``'s list reported, as one value.
///
/// The old list becomes the new one in four steps, as UIKit's batch updates do it: remove the
/// objects of every deletion and every move's origin (old index paths, last first); remove the deleted
/// sections (empty by then, last first); insert the inserted sections (empty, first first); insert the
/// objects of every insertion and every move's destination (new index paths, first first). Updates
/// change no place; their index path is in the new list. ``changes`` lists the deletions, section
/// deletions, section insertions, insertions, moves and updates, each group in that order.
public struct ListChangeset<Object: Entity> {
    /// One change.
    public enum Change {
        case deleteObject(Object, from: IndexPath)
        case deleteSection(ListSection<Object>, from: Int)
        case insertSection(ListSection<Object>, at: Int)
        case insertObject(Object, at: IndexPath)
        case moveObject(Object, from: IndexPath, to: IndexPath)
        case updateObject(Object, at: IndexPath)
    }

    /// The changes, grouped as the type's overview says.
    public let changes: [Change]
    /// Whether the list was fetched again as a whole (a refetch or a reset): ``changes`` is empty and
    /// the list must be read again.
    public let isRefetch: Bool
}
