import Foundation
import MoodyModel
import ObjectGraph
import Testing

/// A list as a screen keeps it: section keys with the objects' identities.
struct ShownList: Equatable, CustomStringConvertible {
    var sections: [(key: String?, items: [ObjectIdentifier])]

    init(_ monitor: ListMonitor<Mood>) {
        sections = monitor.sections.map { ($0.key, $0.objects.map { ObjectIdentifier($0) }) }
    }

    init(sections: [(key: String?, items: [ObjectIdentifier])]) {
        self.sections = sections
    }

    /// What a fresh fetch of `request` gives, grouped by `sectionKey` (one section, keyed nil, without).
    init(
        fetching request: FetchDescriptor<Mood>, in context: ObjectContext,
        sectionKey: ((Mood) -> String?)? = nil
    ) throws {
        sections = []
        let moods = try context.fetch(request)
        if sectionKey == nil { sections = [(nil, [])] }
        for mood in moods {
            let key = sectionKey?(mood)
            if sections.isEmpty || sections[sections.count - 1].key != key { sections.append((key, [])) }
            sections[sections.count - 1].items.append(ObjectIdentifier(mood))
        }
    }

    static func == (lhs: ShownList, rhs: ShownList) -> Bool {
        lhs.sections.count == rhs.sections.count
            && zip(lhs.sections, rhs.sections).allSatisfy { $0.key == $1.key && $0.items == $1.items }
    }

    var description: String { sections.map { "\($0.key ?? "nil"): \($0.items.count)" }.joined(separator: ", ") }

    /// The list after `changeset`, applied in the order ``ListChangeset`` documents.
    func applying(_ changeset: ListChangeset<Mood>) throws -> ShownList {
        var sections = self.sections
        var removals: [(IndexPath, ObjectIdentifier)] = []
        var insertions: [(IndexPath, ObjectIdentifier)] = []
        var sectionRemovals: [Int] = []
        var sectionInsertions: [(Int, String?)] = []
        var touched = Set<ObjectIdentifier>()
        for change in changeset.changes {
            switch change {
            case let .deleteObject(object, path):
                removals.append((path, ObjectIdentifier(object)))
                #expect(touched.insert(ObjectIdentifier(object)).inserted)
            case let .insertObject(object, path):
                insertions.append((path, ObjectIdentifier(object)))
                #expect(touched.insert(ObjectIdentifier(object)).inserted)
            case let .moveObject(object, from, to):
                removals.append((from, ObjectIdentifier(object)))
                insertions.append((to, ObjectIdentifier(object)))
                #expect(touched.insert(ObjectIdentifier(object)).inserted)
            case .updateObject(let object, _):
                #expect(touched.insert(ObjectIdentifier(object)).inserted)
            case .deleteSection(_, let index):
                sectionRemovals.append(index)
            case .insertSection(let section, let index):
                sectionInsertions.append((index, section.key))
            }
        }
        for (path, id) in removals.sorted(by: { $0.0 > $1.0 }) {
            try #require(sections[path[0]].items[path[1]] == id)
            sections[path[0]].items.remove(at: path[1])
        }
        for index in sectionRemovals.sorted(by: >) {
            try #require(sections[index].items.isEmpty)
            sections.remove(at: index)
        }
        for (index, key) in sectionInsertions.sorted(by: { $0.0 < $1.0 }) {
            sections.insert((key, []), at: index)
        }
        for (path, id) in insertions.sorted(by: { $0.0 < $1.0 }) {
            sections[path[0]].items.insert(id, at: path[1])
        }
        return ShownList(sections: sections)
    }
}
