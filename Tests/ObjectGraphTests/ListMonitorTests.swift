import Foundation
import MoodyModel
import ObjectGraph
import Testing

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
    private static let cutoff = MonitoredListShape.cutoff

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
        return try ShownList(
            fetching: FetchDescriptor<Mood>(
                predicate: #Predicate { $0.date >= cutoff }, sortBy: [SortDescriptor(\.rating), SortDescriptor(\.text)]),
            in: context, sectionKey: { String($0.rating) })
    }

    @Test func sectionsByARelatedOptionalTextAttributeReadWhatTheKeyPathReads() throws {
        let container = try ObjectContainer(for: NoteV2.self, Tag.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let titled = NoteV2(text: "one")
        titled.title = "Errands"
        let untitled = NoteV2(text: "two")
        let tags = [("a", titled), ("b", untitled), ("c", nil), ("d", titled)].map { name, note in
            let tag = Tag(name: name)
            tag.note = note
            return tag
        }
        for tag in tags { context.insert(tag) }
        try context.save()
        let monitor = try context.monitorSectionedList(
            Tag.self, sectionBy: SectionBy(\.note?.title), sortBy: [SortDescriptor(\.note?.title), SortDescriptor(\.name)])
        #expect(monitor.sections.map(\.key) == [nil, "Errands"])
        #expect(monitor.sections.map { $0.objects.map(\.name) } == [["b", "c"], ["a", "d"]])
        for tag in tags {
            let section = try #require(monitor.sections.first { $0.objects.contains(tag) })
            #expect(section.key == tag[keyPath: \.note?.title], "the section of \(tag.name) is what its key path reads")
        }

        untitled.title = "Errands"  // unsaved: read from the object, as the key path reads it
        titled.title = nil
        context.processPendingChanges()
        #expect(monitor.sections.map { $0.objects.map(\.name) } == [["a", "c", "d"], ["b"]])
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

    /// A Bool attribute sections and sorts a list, as CoreStore's examples do (issue 26, point 5).
    @Test func aBoolAttributeSectionsAndSortsAList() throws {
        let container = try ObjectContainer(for: Word.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let words = (0..<4).map { Word(serial: $0, text: "w\($0)", note: nil, rank: 0) }  // w0 and w3 starred
        for word in words { context.insert(word) }
        try context.save()
        let monitor = try context.monitorSectionedList(
            Word.self, sectionBy: SectionBy(\.starred) { $0 == "true" ? "Starred" : "Others" },
            sortBy: [SortDescriptor(\.starred, order: .reverse), SortDescriptor(\.text)])
        #expect(monitor.sections.map(\.name) == ["Starred", "Others"])
        #expect(monitor.objects.map(\.text) == ["w0", "w3", "w1", "w2"])
        var changesets: [ListChangeset<Word>] = []
        let token = monitor.observeChanges { changesets.append($0) }

        words[2].starred = true
        context.processPendingChanges()
        #expect(monitor.objects.map(\.text) == ["w0", "w2", "w3", "w1"])
        let expected: [ListChangeset<Word>.Change] = [
            .moveObject(words[2], from: IndexPath(indexes: [1, 1]), to: IndexPath(indexes: [0, 1]))
        ]
        #expect(changesets.map(\.changes) == [expected])
        withExtendedLifetime(token) {}
    }

    /// Changes compare and print as a test or a log wants them (issue 26, point 5).
    @Test func changesAreEquatableAndReadable() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let mood = Mood(text: "a", rating: 1)
        context.insert(mood)
        try context.save()
        let other = Mood(text: "b")
        let path = IndexPath(indexes: [0, 2])
        typealias Change = ListChangeset<Mood>.Change
        #expect(Change.insertObject(mood, at: path) == .insertObject(mood, at: path))
        #expect(Change.insertObject(mood, at: path) != .insertObject(other, at: path), "objects compare by identity")
        #expect(Change.insertObject(mood, at: path) != .updateObject(mood, at: path))
        #expect(
            Change.moveObject(mood, from: path, to: IndexPath(indexes: [1, 0])).description
                == "move \(mood.objectID) from [0, 2] to [1, 0]")
        #expect(Change.deleteObject(mood, from: path).description == "delete \(mood.objectID) from [0, 2]")
        let monitor = try context.monitorSectionedList(Mood.self, sectionBy: SectionBy(\.rating), sortBy: [SortDescriptor(\.rating)])
        let section = monitor.section(at: 0)
        #expect(Change.insertSection(section, at: 0) == .insertSection(monitor.section(at: 0), at: 0))
        #expect(Change.insertSection(section, at: 0).description == "insert section 1 at 0")
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

    /// A reset is reported as a whole: the unsaved changes it discards are not reported one by one
    /// first (issue 26, point 4).
    @Test func aResetIsReportedAsARefetchOnly() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let late = Self.cutoff.addingTimeInterval(10)
        let first = Mood(text: "a", rating: 1, date: late), second = Mood(text: "b", rating: 2, date: late)
        context.insert(first)
        context.insert(second)
        try context.save()
        let monitor = try Self.monitor(in: context)
        let observer = RecordingListObserver()
        monitor.addObserver(observer)

        first.rating = 3  // unsaved: "a" moves after "b"
        context.processPendingChanges()
        #expect(observer.calls.contains { $0.hasPrefix("move a") })
        observer.calls = []
        context.reset()
        #expect(observer.calls == ["willRefetch", "didRefetch"])
        #expect(monitor.objects.map(\.text) == ["a", "b"])  // the edit was not saved
    }

    @Test func aWindowKeepsTheFirstObjectsAndRefillsFromBeyondIt() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let moods = ["b", "c", "d"].map { Mood(text: $0) }
        for mood in moods { context.insert(mood) }
        try context.save()
        var request = FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.text)])
        request.fetchLimit = 2
        let monitor = try context.monitorList(request)
        var shown = ShownList(monitor)
        let token = monitor.observeChanges { changeset in
            do { shown = try shown.applying(changeset) } catch { Issue.record(error) }
        }
        func check(_ expected: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
            context.processPendingChanges()
            #expect(monitor.objects.map(\.text) == expected, sourceLocation: sourceLocation)
            #expect(shown == ShownList(monitor), sourceLocation: sourceLocation)
            let fresh = try ShownList(fetching: request, in: context)
            #expect(fresh == ShownList(monitor), sourceLocation: sourceLocation)
        }
        try check(["b", "c"])
        context.insert(Mood(text: "a"))  // first: c leaves the window
        try check(["a", "b"])
        context.delete(moods[0])  // b goes: c comes back from beyond the window
        try check(["a", "c"])
        moods[2].text = "0"  // d, beyond the window, sorts first now
        try check(["0", "a"])
        try context.save()
        try check(["0", "a"])
        withExtendedLifetime(token) {}
    }

    @Test func aBatchedListLoadsItsObjectsABatchAtATime() throws {
        let container = try makeContainer()
        let writer = container.newBackgroundContext()
        for index in 0..<10 { writer.insert(Mood(text: "m\(index)")) }
        try writer.save()
        let context = container.newBackgroundContext()
        var request = FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.text)])
        request.fetchBatchSize = 4
        let monitor = try context.monitorList(request)
        #expect(monitor.count == 10)
        #expect(monitor.objects.allSatisfy { $0.isFault })
        #expect(monitor[5].text == "m5")
        #expect(monitor.objects.map(\.isFault) == [true, true, true, true, false, false, false, false, true, true])

        // Changes reach it as they reach any list: another context's insert, merged.
        writer.insert(Mood(text: "m45"))
        try writer.save()
        context.processPendingChanges()
        #expect(monitor.count == 11 && monitor[5].text == "m45")
        #expect(monitor.objects.map(\.text) == (try context.fetch(request)).map(\.text))
    }

    @Test func anOffsetOrANegativeWindowIsRefused() throws {
        let context = try makeContainer().newBackgroundContext()
        var request = FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.text)])
        request.fetchOffset = 1
        #expect(throws: ObjectGraphError.self) { try context.monitorList(request) }
        request.fetchOffset = 0
        request.fetchLimit = -1
        #expect(throws: ObjectGraphError.self) { try context.monitorList(request) }
    }

    /// Random sequences of inserts, deletions and edits of the filter, sort and section keys and of
    /// the related countries and continents, in the monitor's context and in another whose saves are
    /// merged: after each step, the reported changes applied to the old list give the monitor's
    /// list, which is a fresh fetch's. 600 sequences of 20 steps.
    @Test(arguments: [MonitoredListShape.byRating, .byCountry, .unsectioned], 0..<8)
    func randomChangesAreReportedExactly(shape: MonitoredListShape, batch: Int) throws {
        for sequence in 0..<25 {
            let seed = UInt64(batch * 1_000 + sequence)
            try runRandomSequence(shape, seed: seed)
        }
    }

    private func runRandomSequence(_ shape: MonitoredListShape, seed: UInt64) throws {
        var random = SeededGenerator(state: seed)
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let other = container.newBackgroundContext()
        var nameCount = 0
        func uniqueName(_ prefixes: [String]) -> String {
            nameCount += 1
            return (prefixes.randomElement(using: &random) ?? "A") + String(nameCount)
        }
        let initialContinents = [Continent(name: "Europe"), Continent(name: "Asia")]
        for index in 0..<3 {
            context.insert(Country(name: uniqueName(["A", "M", "Z"]), continent: initialContinents[index % 2]))
        }
        for object in initialContinents { context.insert(object) }
        // Deletion rules take a country with its last mood, and a continent with its last country.
        var countries: [Country] = []
        var continents: [Continent] = []
        func randomCountry() -> Country? {
            Int.random(in: 0...3, using: &random) == 0 ? nil : countries.filter { !$0.isDeleted }.randomElement(using: &random)
        }
        func randomMood() -> Mood {
            Mood(
                text: ["a", "b", "c", "d"].randomElement(using: &random) ?? "a",
                rating: Int.random(in: 1...4, using: &random),
                date: Self.cutoff.addingTimeInterval(Double(Int.random(in: -2...4, using: &random))),
                country: randomCountry())
        }
        countries = Array(try context.fetch(FetchDescriptor<Country>(sortBy: [SortDescriptor(\.name)])))
        for _ in 0..<8 { context.insert(randomMood()) }
        try context.save()
        let monitor = try shape.monitor(in: context)
        var changesets: [ListChangeset<Mood>] = []
        let token = monitor.observeChanges { changesets.append($0) }
        for step in 0..<20 {
            let before = ShownList(monitor)
            changesets = []
            let all = try context.fetch(FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.text)], includesMarkedForDeletion: true))
            countries = Array(
                try context.fetch(FetchDescriptor<Country>(sortBy: [SortDescriptor(\.name)], includesMarkedForDeletion: true)))
            continents = Array(
                try context.fetch(FetchDescriptor<Continent>(sortBy: [SortDescriptor(\.name)], includesMarkedForDeletion: true)))
            if countries.isEmpty || continents.isEmpty {
                let continent = continents.first ?? Continent(name: uniqueName(["Eu", "Af"]))
                let country = Country(name: uniqueName(["A", "M", "Z"]), continent: continent)
                context.insert(country)
                context.insert(continent)
                countries.append(country)
                continents = [continent]
            }
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let target = all.isEmpty ? nil : all[Int.random(in: 0..<all.count, using: &random)]
                switch Int.random(in: 0..<12, using: &random) {
                case 0: context.insert(randomMood())
                case 1: if let target, !target.isDeleted { context.delete(target) }
                case 2: target?.rating = Int.random(in: 1...4, using: &random)
                case 3: target?.text = ["a", "b", "c", "d"].randomElement(using: &random) ?? "a"
                case 4: target?.date = Self.cutoff.addingTimeInterval(Double(Int.random(in: -2...4, using: &random)))
                case 5: (target as Mood?)?.markForLocalDeletion()
                case 6: if let target, !target.isDeleted { target.country = randomCountry() }
                case 7: countries.randomElement(using: &random)?.name = uniqueName(["A", "M", "Z"])
                case 8:
                    if let country = countries.randomElement(using: &random), !country.isDeleted {
                        country.continent = continents.filter { !$0.isDeleted }.randomElement(using: &random)
                    }
                case 9:
                    // A continent takes the filtered name, or gives it up.
                    guard let continent = continents.randomElement(using: &random) else { break }
                    if continent.name == "Asia" {
                        continent.name = uniqueName(["Eu", "Af"])
                    } else if !continents.contains(where: { $0.name == "Asia" }) {
                        continent.name = "Asia"
                    }
                case 10:
                    // Another context changes a saved mood or a country and saves; the merge reaches
                    // the monitor.
                    try context.save()
                    let theirs = try other.fetch(FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.text)]))
                    if let mood = theirs.randomElement(using: &random) {
                        switch Int.random(in: 0...2, using: &random) {
                        case 0: mood.rating = Int.random(in: 1...4, using: &random)
                        case 1: other.delete(mood)
                        default: mood.country?.name = uniqueName(["A", "M", "Z"])
                        }
                    }
                    other.insert(randomMood().withoutCountry())
                    try other.save()
                default: try context.save()
                }
            }
            context.processPendingChanges()
            let after = ShownList(monitor)
            let fresh = try ShownList(fetching: shape.request, in: context, sectionKey: shape.sectionKey)
            #expect(after == fresh, "\(shape), seed \(seed), step \(step): the monitor's list \(after) is not a fresh fetch's \(fresh)")
            var applied = before
            for changeset in changesets { applied = try applied.applying(changeset) }
            #expect(applied == after, "\(shape), seed \(seed), step \(step): the changes applied give \(applied), the list is \(after)")
            #expect(monitor.lastError == nil)
            if applied != after || after != fresh { return }
        }
        withExtendedLifetime(token) {}
    }
}

private extension Mood {
    /// The mood, for a context that does not hold the other context's countries.
    func withoutCountry() -> Mood {
        country = nil
        return self
    }
}
