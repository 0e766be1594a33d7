import Foundation
import MoodyModel
import ObjectGraph
import Testing

/// A list as a screen keeps it: section keys with the objects' identities.
private struct ShownList: Equatable, CustomStringConvertible {
    var sections: [(key: String?, items: [ObjectIdentifier])]

    init(_ monitor: ListMonitor<Mood>) {
        sections = monitor.sections.map { ($0.key, $0.objects.map { ObjectIdentifier($0) }) }
    }

    init(sections: [(key: String?, items: [ObjectIdentifier])]) {
        self.sections = sections
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

/// Records each changeset and the observer callbacks of a sectioned list.
private final class RecordingListObserver: ListSectionObserver {
    var calls: [String] = []
    func listMonitorWillChange(_ monitor: ListMonitor<Mood>) { calls.append("will") }
    func listMonitorDidChange(_ monitor: ListMonitor<Mood>) { calls.append("did") }
    func listMonitorWillRefetch(_ monitor: ListMonitor<Mood>) { calls.append("willRefetch") }
    func listMonitorDidRefetch(_ monitor: ListMonitor<Mood>) { calls.append("didRefetch") }
    func listMonitor(_ monitor: ListMonitor<Mood>, didInsertObject object: Mood, toIndexPath indexPath: IndexPath) {
        calls.append("insert \(object.text) \(indexPath)")
    }
    func listMonitor(_ monitor: ListMonitor<Mood>, didDeleteObject object: Mood, fromIndexPath indexPath: IndexPath) {
        calls.append("delete \(object.text) \(indexPath)")
    }
    func listMonitor(_ monitor: ListMonitor<Mood>, didUpdateObject object: Mood, atIndexPath indexPath: IndexPath) {
        calls.append("update \(object.text) \(indexPath)")
    }
    func listMonitor(_ monitor: ListMonitor<Mood>, didMoveObject object: Mood, fromIndexPath: IndexPath, toIndexPath: IndexPath) {
        calls.append("move \(object.text) \(fromIndexPath) \(toIndexPath)")
    }
    func listMonitor(_ monitor: ListMonitor<Mood>, didInsertSection section: ListSection<Mood>, toSectionIndex sectionIndex: Int) {
        calls.append("insertSection \(section.name ?? "nil") \(sectionIndex)")
    }
    func listMonitor(_ monitor: ListMonitor<Mood>, didDeleteSection section: ListSection<Mood>, fromSectionIndex sectionIndex: Int) {
        calls.append("deleteSection \(section.key ?? "nil") \(sectionIndex)")
    }
}

/// ListMonitor (issue 13, points 2 to 6).
@Suite struct ListMonitorTests {
    private static let cutoff = Date(timeIntervalSince1970: 1_000)

    private static func monitor(in context: ObjectContext) throws -> ListMonitor<Mood> {
        let cutoff = Self.cutoff
        return try context.monitorSectionedList(
            Mood.self, sectionBy: SectionBy(\.rating) { $0.map { "\($0) stars" } },
            predicate: #Predicate { $0.date >= cutoff },
            sortBy: [SortDescriptor(\.rating), SortDescriptor(\.text)])
    }

    /// The same request, fetched afresh, grouped the way the monitor groups it.
    private static func freshList(in context: ObjectContext) throws -> ShownList {
        let cutoff = Self.cutoff
        let moods = try context.fetch(FetchDescriptor<Mood>(
            predicate: #Predicate { $0.date >= cutoff }, sortBy: [SortDescriptor(\.rating), SortDescriptor(\.text)]))
        var sections: [(key: String?, items: [ObjectIdentifier])] = []
        for mood in moods {
            if sections.last?.key != String(mood.rating) { sections.append((String(mood.rating), [])) }
            sections[sections.count - 1].items.append(ObjectIdentifier(mood))
        }
        return ShownList(sections: sections)
    }

    @Test func aSectionedListReportsEachKindOfChangeWithItsIndexPaths() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let late = Self.cutoff.addingTimeInterval(10)
        let moods = [("a", 1), ("b", 1), ("c", 3)].map { Mood(text: $0.0, rating: $0.1, date: late) }
        for mood in moods { context.insert(mood) }
        try context.save()
        let monitor = try Self.monitor(in: context)
        #expect(monitor.numberOfSections == 2 && monitor.count == 3)
        #expect(monitor.section(at: 1).name == "3 stars" && monitor[1, 0] === moods[2])
        #expect(monitor[IndexPath(indexes: [0, 1])] === moods[1])
        let observer = RecordingListObserver()
        monitor.addObserver(observer)

        moods[0].text = "z"  // a sort key: a move within its section
        context.processPendingChanges()
        #expect(observer.calls == ["will", "move z [0, 0] [0, 1]", "did"])
        observer.calls = []
        moods[2].remoteIdentifier = "r"  // another key: an update
        context.processPendingChanges()
        #expect(observer.calls == ["will", "update c [1, 0]", "did"])
        observer.calls = []
        moods[2].rating = 5  // the last of its section, into a new one
        context.processPendingChanges()
        #expect(observer.calls == ["will", "deleteSection 3 1", "insertSection 5 stars 1", "move c [1, 0] [1, 0]", "did"])
        observer.calls = []
        moods[1].date = Self.cutoff.addingTimeInterval(-10)  // no longer matches: a deletion
        context.processPendingChanges()
        #expect(observer.calls == ["will", "delete b [0, 0]", "did"])
        observer.calls = []
        context.insert(Mood(text: "d", rating: 1, date: late))
        context.processPendingChanges()
        #expect(observer.calls == ["will", "insert d [0, 0]", "did"])
        #expect(monitor.objects.map(\.text) == ["d", "z", "c"])
    }

    @Test func theRulesOfTheListAreCheckedWhenItIsMade() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        #expect(throws: ObjectGraphError.self) { try context.monitorList(Mood.self, sortBy: []) }
        #expect(throws: ObjectGraphError.self) {
            try context.monitorSectionedList(Mood.self, sectionBy: SectionBy(\.rating), sortBy: [SortDescriptor(\.text)])
        }
    }

    @Test func aMergedSaveAMarkAndAResetReachTheList() async throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let late = Self.cutoff.addingTimeInterval(10)
        let mood = Mood(text: "a", rating: 2, date: late)
        context.insert(mood)
        try context.save()
        let monitor = try context.monitorList(Mood.self, sortBy: [SortDescriptor(\.text)])
        var changesets: [ListChangeset<Mood>] = []
        let token = monitor.observeChanges { changesets.append($0) }

        let writer = container.newBackgroundContext()
        writer.insert(Mood(text: "b", date: late))
        try writer.save()
        context.processPendingChanges()
        #expect(monitor.objects.map(\.text) == ["a", "b"])
        guard case .insertObject(_, let path)? = changesets.last?.changes.first else { Issue.record("no insertion"); return }
        #expect(path == IndexPath(indexes: [0, 1]))

        mood.markForLocalDeletion()
        context.processPendingChanges()
        #expect(monitor.objects.map(\.text) == ["b"])
        context.reset()
        #expect(changesets.last?.isRefetch == true)
        #expect(monitor.objects.map(\.text) == ["a", "b"])  // the mark was not saved
        withExtendedLifetime(token) {}
    }

    /// Random sequences of inserts, deletions and edits of the filter, sort and section keys, in the
    /// monitor's context and in another whose saves are merged: after each step, the reported changes
    /// applied to the old list give the monitor's list, which is a fresh fetch's.
    @Test(arguments: 0..<8)
    func randomChangesAreReportedExactly(batch: Int) throws {
        for sequence in 0..<25 {
            let seed = UInt64(batch * 1_000 + sequence)
            try runRandomSequence(seed: seed)
        }
    }

    private func runRandomSequence(seed: UInt64) throws {
        var random = SeededGenerator(state: seed)
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let other = container.newBackgroundContext()
        func randomMood() -> Mood {
            Mood(text: ["a", "b", "c", "d"].randomElement(using: &random) ?? "a",
                 rating: Int.random(in: 1...4, using: &random),
                 date: Self.cutoff.addingTimeInterval(Double(Int.random(in: -2...4, using: &random))))
        }
        for _ in 0..<8 { context.insert(randomMood()) }
        try context.save()
        let monitor = try Self.monitor(in: context)
        var changesets: [ListChangeset<Mood>] = []
        let token = monitor.observeChanges { changesets.append($0) }
        for step in 0..<20 {
            let before = ShownList(monitor)
            changesets = []
            let all = try context.fetch(FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.text)], includesMarkedForDeletion: true))
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let target = all.isEmpty ? nil : all[Int.random(in: 0..<all.count, using: &random)]
                switch Int.random(in: 0..<8, using: &random) {
                case 0: context.insert(randomMood())
                case 1: if let target, !target.isDeleted { context.delete(target) }
                case 2: target?.rating = Int.random(in: 1...4, using: &random)
                case 3: target?.text = ["a", "b", "c", "d"].randomElement(using: &random) ?? "a"
                case 4: target?.date = Self.cutoff.addingTimeInterval(Double(Int.random(in: -2...4, using: &random)))
                case 5: (target as Mood?)?.markForLocalDeletion()
                case 6:
                    // Another context changes a saved mood and saves; the merge reaches the monitor.
                    try context.save()
                    let theirs = try other.fetch(FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.text)]))
                    if let mood = theirs.randomElement(using: &random) {
                        if Bool.random(using: &random) { mood.rating = Int.random(in: 1...4, using: &random) } else { other.delete(mood) }
                    }
                    other.insert(randomMood())
                    try other.save()
                default: try context.save()
                }
            }
            context.processPendingChanges()
            let after = ShownList(monitor)
            let fresh = try Self.freshList(in: context)
            #expect(after == fresh, "seed \(seed), step \(step): the monitor's list \(after) is not a fresh fetch's \(fresh)")
            var applied = before
            for changeset in changesets { applied = try applied.applying(changeset) }
            #expect(applied == after, "seed \(seed), step \(step): the changes applied give \(applied), the list is \(after)")
            if applied != after || after != fresh { return }
        }
        withExtendedLifetime(token) {}
    }
}
