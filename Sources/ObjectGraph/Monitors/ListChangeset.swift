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
/// Applying the changes in ``changes``' order to the old list gives the new one: first the deletions
/// (objects deleted and moved away, by old index path, last first), then the deleted sections (empty
/// by then, last first), then the inserted sections (empty, first first), then the insertions
/// (objects inserted and moved in, by new index path, first first). Updates change no place; their
/// index path is in the new list.
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

    /// The changes: deletions, section deletions, section insertions, insertions, moves, updates.
    public let changes: [Change]
    /// Whether the list was fetched again as a whole (a refetch or a reset): ``changes`` is empty and
    /// the list must be read again.
    public let isRefetch: Bool
}
