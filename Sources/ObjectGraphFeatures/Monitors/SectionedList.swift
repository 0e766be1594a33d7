import Algorithms
import Foundation
import ObjectGraphContext
import ObjectGraphModel

/// What a ``ListMonitor`` shows, as a value: objects in order, grouped in sections, and the reduction
/// of a change of the list (objects leaving it, objects entering it) into a ``ListChangeset``.
///
/// It knows no context: the monitor decides which objects a notification makes leave or enter (it
/// reads the store and evaluates the predicate for that), this decides where they go and what that
/// did, and the monitor delivers the changeset. The order is the request's sort, which must keep
/// each section's objects together (its first descriptor sorts by the section key).
struct SectionedList<Object: Entity> {
    /// The objects, in order.
    private(set) var objects: OrderedObjects
    /// The sections' keys in order; an unsectioned list has one section, keyed nil, always there.
    private(set) var sectionKeys: [String?] = []
    /// How many objects each section holds.
    private var sectionCounts: [String?: Int] = [:]
    /// The position of each section's first object.
    private(set) var sectionStarts: [Int] = []
    let sortBy: [SortDescriptor<Object>]
    let sectionBy: SectionBy<Object>?

    /// A list of `sorted`, in the order `sortBy` gives them.
    init(sorted: [AnyObject], sortBy: [SortDescriptor<Object>], sectionBy: SectionBy<Object>?) {
        self.objects = OrderedObjects(sorted: sorted)
        self.sortBy = sortBy
        self.sectionBy = sectionBy
        if let sectionBy {
            for object in sorted {
                let key = sectionBy.key(unsafeDowncast(object, to: Object.self))
                if sectionCounts[key] == nil { sectionKeys.append(key) }
                sectionCounts[key, default: 0] += 1
            }
        } else {
            sectionKeys = [nil]
            sectionCounts = [nil: sorted.count]
        }
        computeSectionStarts()
    }

    // MARK: Reading

    /// The number of objects.
    var count: Int { objects.count }

    /// The object at a position of the whole list.
    func object(at position: Int) -> Object {
        unsafeDowncast(objects.object(at: position), to: Object.self)
    }

    /// Whether `object` is in the list: a hash lookup, where its position also counts the objects
    /// before it.
    func contains(_ object: Object) -> Bool { objects.contains(object) }

    /// The position of `object` in the whole list; nil when it is not in it.
    func position(of object: Object) -> Int? { objects.position(of: object) }

    /// The positions of the objects of section `index`.
    func positions(ofSection index: Int) -> Range<Int> {
        let start = sectionStarts[index]
        return start..<start + (sectionCounts[sectionKeys[index]] ?? 0)
    }

    /// The section at `index`, with its objects.
    func section(at index: Int) -> ListSection<Object> {
        section(key: sectionKeys[index], objects: positions(ofSection: index).map(object(at:)))
    }

    /// The index path (section, then item) of a position of the whole list.
    func indexPath(ofPosition position: Int) -> IndexPath {
        let section = max(0, sectionStarts.partitioningIndex { $0 > position } - 1)
        return IndexPath(indexes: [section, position - sectionStarts[section]])
    }

    // MARK: Changing

    /// Takes `leaving` out of the list and puts `entering` in (an object in both stays, perhaps
    /// elsewhere; one leaving that is not in the list is ignored), and says what that did.
    mutating func apply(leaving: [Object], entering: [Object]) -> ListChangeset<Object> {
        // Where the leaving objects were, in the old list.
        let oldSectionKeys = sectionKeys
        var old: [ObjectIdentifier: (position: Int, path: IndexPath)] = [:]
        for object in leaving {
            guard let position = objects.position(of: object) else { continue }
            old[ObjectIdentifier(object)] = (position, indexPath(ofPosition: position))
        }
        for object in leaving {
            guard let place = old[ObjectIdentifier(object)] else { continue }
            objects.remove(object)
            sectionCounts[oldSectionKeys[place.path[0]], default: 1] -= 1
        }
        let sortBy = self.sortBy
        for object in entering {
            objects.insert(object) {
                sortBy.orders(unsafeDowncast($0, to: Object.self), before: unsafeDowncast($1, to: Object.self))
            }
            sectionCounts[sectionBy?.key(object), default: 0] += 1
        }
        if let sectionBy {
            // The sections, in order: each one's first object follows the previous one's last. A
            // section emptied and filled again in the same change is the same section.
            sectionCounts = sectionCounts.filter { $0.value > 0 }
            sectionKeys = []
            var start = 0
            while start < objects.count {
                let key = sectionBy.key(object(at: start))
                sectionKeys.append(key)
                start += max(1, sectionCounts[key] ?? 1)
            }
        }
        computeSectionStarts()
        return changeset(leaving: leaving, entering: entering, old: old, oldSectionKeys: oldSectionKeys)
    }

    /// What the change just applied did, from where the objects were before and are now.
    private func changeset(
        leaving: [Object], entering: [Object],
        old: [ObjectIdentifier: (position: Int, path: IndexPath)], oldSectionKeys: [String?]
    ) -> ListChangeset<Object> {
        var new: [ObjectIdentifier: (position: Int, path: IndexPath)] = [:]
        for object in entering {
            guard let position = objects.position(of: object) else { continue }
            new[ObjectIdentifier(object)] = (position, indexPath(ofPosition: position))
        }
        // An object that stays moved when the objects around it that did not change are no longer
        // the same: fewer or more of them before it, another section, or, among the changed objects
        // between the same two unchanged ones, an order that changed.
        let oldPositions = old.values.map(\.position).sorted()
        let newPositions = new.values.map(\.position).sorted()
        func unchangedBefore(_ position: Int, among changed: [Int]) -> Int {
            position - changed.partitioningIndex { $0 >= position }
        }
        var moved = Set<ObjectIdentifier>()
        var slots: [Int: [(old: Int, new: Int, id: ObjectIdentifier)]] = [:]
        for object in entering {
            let id = ObjectIdentifier(object)
            guard let before = old[id], let after = new[id] else { continue }
            let slotBefore = unchangedBefore(before.position, among: oldPositions)
            let slotAfter = unchangedBefore(after.position, among: newPositions)
            if slotBefore != slotAfter || oldSectionKeys[before.path[0]] != sectionKeys[after.path[0]] {
                moved.insert(id)
            } else {
                slots[slotBefore, default: []].append((before.position, after.position, id))
            }
        }
        for (_, members) in slots where members.count > 1 {
            let inNewOrder = members.sorted { $0.new < $1.new }
            let kept = Set(longestIncreasingRun(inNewOrder.map(\.old)).map { inNewOrder[$0].id })
            for member in members where !kept.contains(member.id) { moved.insert(member.id) }
        }

        var deletions: [(Object, IndexPath)] = []
        var insertions: [(Object, IndexPath)] = []
        var moves: [(Object, IndexPath, IndexPath)] = []
        var updates: [(Object, IndexPath)] = []
        for object in leaving {
            let id = ObjectIdentifier(object)
            guard let before = old[id] else { continue }
            if new[id] == nil { deletions.append((object, before.path)) }
        }
        for object in entering {
            let id = ObjectIdentifier(object)
            guard let after = new[id] else { continue }
            if let before = old[id] {
                if moved.contains(id) { moves.append((object, before.path, after.path)) } else { updates.append((object, after.path)) }
            } else {
                insertions.append((object, after.path))
            }
        }
        let keptKeys = Set(sectionKeys)
        let formerKeys = Set(oldSectionKeys)
        var changes: [ListChangeset<Object>.Change] = []
        changes += deletions.sorted { $0.1 > $1.1 }.map { .deleteObject($0.0, from: $0.1) }
        if sectionBy != nil {
            for index in oldSectionKeys.indices.reversed() where !keptKeys.contains(oldSectionKeys[index]) {
                changes.append(.deleteSection(section(key: oldSectionKeys[index], objects: []), from: index))
            }
            for index in sectionKeys.indices where !formerKeys.contains(sectionKeys[index]) {
                changes.append(.insertSection(section(at: index), at: index))
            }
        }
        changes += insertions.sorted { $0.1 < $1.1 }.map { .insertObject($0.0, at: $0.1) }
        changes += moves.sorted { $0.2 < $1.2 }.map { .moveObject($0.0, from: $0.1, to: $0.2) }
        changes += updates.sorted { $0.1 < $1.1 }.map { .updateObject($0.0, at: $0.1) }
        return ListChangeset(changes: changes, isRefetch: false)
    }

    // MARK: Sections

    func section(key: String?, objects: [Object]) -> ListSection<Object> {
        ListSection(key: key, name: sectionBy.map { $0.name(key) } ?? nil, objects: objects)
    }

    private mutating func computeSectionStarts() {
        var start = 0
        sectionStarts = sectionKeys.map { key in
            defer { start += sectionCounts[key] ?? 0 }
            return start
        }
    }
}

/// The positions in `values` of a longest strictly increasing subsequence.
func longestIncreasingRun(_ values: [Int]) -> [Int] {
    var tails: [Int] = []  // positions of the smallest tail of each length
    var previous = [Int](repeating: -1, count: values.count)
    for (index, value) in values.enumerated() {
        let length = tails.partitioningIndex { values[$0] >= value }
        if length > 0 { previous[index] = tails[length - 1] }
        if length == tails.count { tails.append(index) } else { tails[length] = index }
    }
    var run: [Int] = []
    var index = tails.last ?? -1
    while index >= 0 {
        run.append(index)
        index = previous[index]
    }
    return run.reversed()
}
