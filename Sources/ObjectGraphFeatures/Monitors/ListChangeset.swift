public import Foundation
import ObjectGraphContext
public import ObjectGraphModel

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

extension ListSection: Equatable {
    /// Sections are equal when their keys, names and objects are (objects by identity).
    public static func == (lhs: ListSection, rhs: ListSection) -> Bool {
        lhs.key == rhs.key && lhs.name == rhs.name && lhs.objects.elementsEqual(rhs.objects, by: ===)
    }
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

extension ListChangeset.Change: Equatable, CustomStringConvertible {
    /// Changes are equal when they are of the same kind, with the same objects (by identity), sections
    /// and positions.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case let (.deleteObject(a, from: p), .deleteObject(b, from: q)),
            let (.insertObject(a, at: p), .insertObject(b, at: q)),
            let (.updateObject(a, at: p), .updateObject(b, at: q)):
            return a === b && p == q
        case let (.moveObject(a, from: p, to: r), .moveObject(b, from: q, to: s)):
            return a === b && p == q && r == s
        case let (.deleteSection(a, from: i), .deleteSection(b, from: j)),
            let (.insertSection(a, at: i), .insertSection(b, at: j)):
            return a == b && i == j
        default:
            return false
        }
    }

    /// The change with the object's ID (`move Mood/p3 from [0, 2] to [1, 0]`) or the section's key.
    public var description: String {
        switch self {
        case let .deleteObject(object, path): "delete \(object.objectID) from \(path)"
        case let .insertObject(object, path): "insert \(object.objectID) at \(path)"
        case let .updateObject(object, path): "update \(object.objectID) at \(path)"
        case let .moveObject(object, from, to): "move \(object.objectID) from \(from) to \(to)"
        case let .deleteSection(section, index): "delete section \(section.key ?? "nil") from \(index)"
        case let .insertSection(section, index): "insert section \(section.key ?? "nil") at \(index)"
        }
    }
}

extension ListChangeset: CustomStringConvertible {
    /// The changes, one per line, or `refetch`.
    public var description: String {
        isRefetch ? "refetch" : changes.map(\.description).joined(separator: "\n")
    }
}
