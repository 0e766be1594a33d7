import Foundation
import MoodyModel
import ObjectGraph
import Testing

/// A list monitor learns of the rows its context does not hold (issue 26, point 1): a row that
/// starts matching because of another context's save, batch operation or another process's
/// transaction enters the list although nothing held it, and so do the rows of a related object
/// nobody holds (a country joining Europe elsewhere). NSFetchedResultsController's best-known hole.
@Suite struct ListMonitorUnheldRowsTests {
    /// A list as object IDs, by section: comparable across contexts, so that the fresh fetch it is
    /// checked against is made in a context of its own, and the monitored context holds nothing
    /// but what its monitor holds.
    struct IDList: Equatable, CustomStringConvertible {
        var sections: [Section]

        struct Section: Equatable {
            var key: String?
            var items: [ObjectID]
        }

        init(_ monitor: ListMonitor<Mood>) {
            sections = monitor.sections.map { Section(key: $0.key, items: $0.objects.map(\.objectID)) }
        }

        init(fetching request: FetchDescriptor<Mood>, in context: ObjectContext, sectionKey: ((Mood) -> String?)?) throws {
            sections = sectionKey == nil ? [Section(key: nil, items: [])] : []
            for mood in try context.fetch(request) {
                let key = sectionKey?(mood)
                if sections.isEmpty || sections[sections.count - 1].key != key { sections.append(Section(key: key, items: [])) }
                sections[sections.count - 1].items.append(mood.objectID)
            }
        }

        var description: String { sections.map { "\($0.key ?? "nil"): \($0.items)" }.joined(separator: "; ") }

        /// The list after `changeset`, in the order ``ListChangeset`` documents.
        func applying(_ changeset: ListChangeset<Mood>) throws -> IDList {
            var list = self
            var removals: [(IndexPath, ObjectID)] = []
            var insertions: [(IndexPath, ObjectID)] = []
            var sectionRemovals: [Int] = []
            var sectionInsertions: [(Int, String?)] = []
            for change in changeset.changes {
                switch change {
                case let .deleteObject(object, path): removals.append((path, object.objectID))
                case let .insertObject(object, path): insertions.append((path, object.objectID))
                case let .moveObject(object, from, to):
                    removals.append((from, object.objectID))
                    insertions.append((to, object.objectID))
                case .updateObject: break
                case .deleteSection(_, let index): sectionRemovals.append(index)
                case .insertSection(let section, let index): sectionInsertions.append((index, section.key))
                }
            }
            for (path, id) in removals.sorted(by: { $0.0 > $1.0 }) {
                try #require(list.sections[path[0]].items[path[1]] == id)
                list.sections[path[0]].items.remove(at: path[1])
            }
            for index in sectionRemovals.sorted(by: >) {
                try #require(list.sections[index].items.isEmpty)
                list.sections.remove(at: index)
            }
            for (index, key) in sectionInsertions.sorted(by: { $0.0 < $1.0 }) {
                list.sections.insert(Section(key: key, items: []), at: index)
            }
            for (path, id) in insertions.sorted(by: { $0.0 < $1.0 }) {
                list.sections[path[0]].items.insert(id, at: path[1])
            }
            return list
        }
    }

    /// Moods a (France, rating 1) and b (Spain, rating 5) saved by a writer; France has no continent.
    private static func twoMoods(in writer: ObjectContext) throws -> (a: Mood, b: Mood, france: Country, europe: Continent) {
        let europe = Continent(name: "Europe")
        let france = Country(name: "France")
        let spain = Country(name: "Spain", continent: europe)
        for object in [france, spain] { writer.insert(object) }
        let a = Mood(text: "a", rating: 1, country: france), b = Mood(text: "b", rating: 5, country: spain)
        writer.insert(a)
        writer.insert(b)
        try writer.save()
        return (a, b, france, europe)
    }

    @Test func aRowThatStartsMatchingInAnotherContextEntersTheList() throws {
        let container = try makeContainer()
        let writer = container.newBackgroundContext()
        let (a, _, _, _) = try Self.twoMoods(in: writer)
        let context = container.newBackgroundContext()
        let monitor = try context.monitorList(Mood.self, predicate: #Predicate { $0.rating >= 3 }, sortBy: [SortDescriptor(\.text)])
        #expect(monitor.objects.map(\.text) == ["b"])
        var changesets: [ListChangeset<Mood>] = []
        let token = monitor.observeChanges { changesets.append($0) }

        a.rating = 4  // a row the monitored context never held
        try writer.save()
        context.processPendingChanges()
        #expect(monitor.objects.map(\.text) == ["a", "b"])
        let inserted = try #require(monitor.objects.first)
        #expect(changesets.map(\.changes) == [[.insertObject(inserted, at: IndexPath(indexes: [0, 0]))]])
        withExtendedLifetime(token) {}
    }

    @Test func aCountryJoiningEuropeInAnotherContextBringsItsMoods() throws {
        let container = try makeContainer()
        let writer = container.newBackgroundContext()
        let (_, _, france, europe) = try Self.twoMoods(in: writer)
        let context = container.newBackgroundContext()
        let monitor = try context.monitorList(
            Mood.self, predicate: #Predicate { $0.country?.continent?.name == "Europe" }, sortBy: [SortDescriptor(\.text)])
        #expect(monitor.objects.map(\.text) == ["b"])

        france.continent = europe  // neither France nor its moods are held by the monitored context
        try writer.save()
        context.processPendingChanges()
        #expect(monitor.objects.map(\.text) == ["a", "b"])
        #expect(monitor.lastError == nil)
    }

    @Test func anotherProcesssTransactionReachesTheList() throws {
        let path = temporaryStorePath()
        let container = try ObjectContainer(for: Mood.self, configuration: .file(path))
        let writer = container.newBackgroundContext()
        let (a, _, _, _) = try Self.twoMoods(in: writer)
        let context = container.newBackgroundContext()
        let monitor = try context.monitorList(Mood.self, predicate: #Predicate { $0.rating >= 3 }, sortBy: [SortDescriptor(\.text)])

        // Another container on the same file is another writer: its commits arrive through the
        // history, as another process's do.
        let other = try ObjectContainer(for: Mood.self, configuration: .file(path)).newBackgroundContext()
        try other.existingObject(with: a.objectID, as: Mood.self).rating = 3
        try other.save()
        try container.mergeChangesFromOtherProcesses()
        context.processPendingChanges()
        #expect(monitor.objects.map(\.text) == ["a", "b"])
    }

    @Test func aBatchUpdateAndAnUnmarkingInAnotherContextReachTheList() throws {
        let container = try makeContainer()
        let writer = container.newBackgroundContext()
        let (a, b, _, _) = try Self.twoMoods(in: writer)
        let context = container.newBackgroundContext()
        let monitor = try context.monitorList(Mood.self, predicate: #Predicate { $0.rating >= 3 }, sortBy: [SortDescriptor(\.text)])

        _ = try writer.batchUpdate(Mood.self, where: #Predicate { $0.rating < 3 }, set: [.set(\.rating, to: 3)])
        context.processPendingChanges()
        #expect(monitor.objects.map(\.text) == ["a", "b"])

        b.markForLocalDeletion()
        try writer.save()
        context.processPendingChanges()
        #expect(monitor.objects.map(\.text) == ["a"])
        b.markedForDeletionDate = nil  // unmarked elsewhere: back in the list
        try writer.save()
        context.processPendingChanges()
        #expect(monitor.objects.map(\.text) == ["a", "b"])
        withExtendedLifetime(a) {}
    }

    /// Random saves, batch operations and marks made by another context, of rows and related rows
    /// the monitored context does not hold: after each step the monitor is a fresh fetch's list, and
    /// the reported changes turn the old list into the new one. 400 sequences of 12 steps.
    @Test(arguments: [MonitoredListShape.byRating, .byCountry, .inEurope, .window, .batched], 0..<8)
    func anotherContextsChangesOfRowsNobodyHoldsReachTheList(shape: MonitoredListShape, batch: Int) throws {
        for sequence in 0..<10 {
            try runRandomSequence(shape, seed: UInt64(batch * 1_000 + sequence))
        }
    }

    private func runRandomSequence(_ shape: MonitoredListShape, seed: UInt64) throws {
        var random = SeededGenerator(state: seed)
        let container = try makeContainer()
        let writer = container.newBackgroundContext()
        var nameCount = 0
        func uniqueName(_ prefixes: [String]) -> String {
            nameCount += 1
            return (prefixes.randomElement(using: &random) ?? "A") + String(nameCount)
        }
        let continents = [Continent(name: "Europe"), Continent(name: "Asia"), Continent(name: "Africa")]
        for index in 0..<4 {
            writer.insert(Country(name: uniqueName(["A", "M", "Z"]), continent: continents[index % 3]))
        }
        func randomDate() -> Date { MonitoredListShape.cutoff.addingTimeInterval(Double(Int.random(in: -2...4, using: &random))) }
        func liveCountries() throws -> [Country] {
            Array(try writer.fetch(FetchDescriptor<Country>(sortBy: [SortDescriptor(\.name)])))
        }
        func randomCountry() throws -> Country? {
            Int.random(in: 0...4, using: &random) == 0 ? nil : try liveCountries().randomElement(using: &random)
        }
        func randomMood() throws -> Mood {
            Mood(
                text: ["a", "b", "c", "d", "e"].randomElement(using: &random) ?? "a",
                rating: Int.random(in: 1...4, using: &random), date: randomDate(), country: try randomCountry())
        }
        for _ in 0..<10 { writer.insert(try randomMood()) }
        try writer.save()

        // The monitored context holds nothing but what its monitor holds.
        let context = container.newBackgroundContext()
        let monitor = try shape.monitor(in: context)
        var changesets: [ListChangeset<Mood>] = []
        let token = monitor.observeChanges { changesets.append($0) }
        var steps: [String] = []
        for step in 0..<12 {
            let before = IDList(monitor)
            changesets = []
            let moods = Array(try writer.fetch(FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.text)])))
            let countries = try liveCountries()
            // Marked continents too: their names are still taken.
            let allContinents = Array(
                try writer.fetch(
                    FetchDescriptor<Continent>(
                        sortBy: [SortDescriptor(\.name)], includesMarkedForDeletion: true)))
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let mood = moods.filter { !$0.isDeleted }.randomElement(using: &random)
                let country = countries.filter { !$0.isDeleted }.randomElement(using: &random)
                switch Int.random(in: 0..<14, using: &random) {
                case 0, 1:
                    writer.insert(try randomMood())
                    steps.append("insert")
                case 2:
                    if let mood { writer.delete(mood) }
                    steps.append("delete")
                case 3: mood?.rating = Int.random(in: 1...4, using: &random); steps.append("rating")
                case 4: mood?.text = ["a", "b", "c", "d", "e"].randomElement(using: &random) ?? "a"; steps.append("text")
                case 5: mood?.date = randomDate(); steps.append("date")
                case 6: mood?.country = try randomCountry(); steps.append("mood's country")
                case 7: country?.name = uniqueName(["A", "M", "Z"]); steps.append("country name")
                case 8:
                    // A country changes continent: two relationships away from the moods.
                    country?.continent = allContinents.filter { !$0.isDeleted }.randomElement(using: &random)
                    steps.append("country's continent")
                case 9:
                    // A continent takes a name the filters read, or gives it up.
                    if let continent = allContinents.filter({ !$0.isDeleted }).randomElement(using: &random) {
                        let taken = Set(allContinents.map(\.name))
                        let wanted = ["Europe", "Asia"].filter { !taken.contains($0) }
                        continent.name = wanted.randomElement(using: &random) ?? uniqueName(["Eu", "Af"])
                    }
                    steps.append("continent name")
                case 10:
                    mood?.markForLocalDeletion()
                    steps.append("mark")
                case 11:
                    if let country { writer.delete(country) }  // cascades to its moods
                    steps.append("delete country")
                case 12:
                    try writer.save()
                    let rating = Int.random(in: 1...4, using: &random)
                    _ = try writer.batchUpdate(
                        Mood.self, where: #Predicate { $0.rating == rating },
                        set: [.set(\.rating, to: Int.random(in: 1...4, using: &random))])
                    steps.append("batch update")
                default:
                    try writer.save()
                    let text = ["a", "b", "c", "d", "e"].randomElement(using: &random) ?? "a"
                    _ = try writer.batchDelete(Mood.self, where: #Predicate { $0.text == text })
                    steps.append("batch delete")
                }
            }
            if Int.random(in: 0..<6, using: &random) == 0 {
                // A new country, with a continent, for later steps to use.
                let continent = allContinents.filter({ !$0.isDeleted }).randomElement(using: &random) ?? Continent(name: uniqueName(["Eu"]))
                writer.insert(Country(name: uniqueName(["A", "M", "Z"]), continent: continent))
            }
            try writer.save()
            steps.append("save")
            context.processPendingChanges()

            let after = IDList(monitor)
            let fresh = try IDList(fetching: shape.request, in: container.newBackgroundContext(), sectionKey: shape.sectionKey)
            let place = "\(shape), seed \(seed), step \(step) after \(steps.suffix(6))"
            #expect(after == fresh, "\(place): the monitor's list \(after) is not a fresh fetch's \(fresh)")
            var applied = before
            for changeset in changesets where !changeset.isRefetch { applied = try applied.applying(changeset) }
            #expect(applied == after, "\(place): the changes applied give \(applied), the list is \(after)")
            #expect(changesets.allSatisfy { !$0.isRefetch }, "\(place): reported as a refetch")
            #expect(monitor.lastError == nil, "\(place): \(String(describing: monitor.lastError))")
            if applied != after || after != fresh { return }
        }
        withExtendedLifetime(token) {}
    }
}
