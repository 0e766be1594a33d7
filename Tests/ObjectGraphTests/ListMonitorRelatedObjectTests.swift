import Foundation
import MoodyModel
import ObjectGraph
import Testing

/// A list sorted, sectioned or filtered through a relationship follows the related objects' changes
/// (issue 13, point 7): a gap of CoreStore and NSFetchedResultsController, which see only changes of
/// the listed objects themselves.
@Suite struct ListMonitorRelatedObjectTests {
    private static let byCountry = FetchDescriptor<Mood>(
        sortBy: [SortDescriptor(\.country?.name), SortDescriptor(\.text)])

    /// Moods a, b in France and c, d in Spain, saved.
    private static func moods(in context: ObjectContext) throws -> (france: Country, spain: Country, europe: Continent) {
        let (europe, france, spain) = try makeEurope(in: context)
        for (text, country) in [("a", france), ("b", france), ("c", spain), ("d", spain)] {
            context.insert(Mood(text: text, country: country))
        }
        try context.save()
        return (france, spain, europe)
    }

    /// Applies each changeset the monitor posts to the list as it was, and checks the result against
    /// the monitor and a fresh fetch.
    private final class Checker {
        let monitor: ListMonitor<Mood>
        let fresh: () throws -> ShownList
        var shown: ShownList
        var changesets: [ListChangeset<Mood>] = []
        private var token: ObservationToken?

        init(_ monitor: ListMonitor<Mood>, fresh: @escaping () throws -> ShownList) {
            self.monitor = monitor
            self.fresh = fresh
            shown = ShownList(monitor)
            token = monitor.observeChanges { [unowned self] changeset in
                changesets.append(changeset)
                do { shown = try shown.applying(changeset) } catch { Issue.record(error) }
            }
        }

        func check(sourceLocation: SourceLocation = #_sourceLocation) throws {
            #expect(shown == ShownList(monitor), "the changes applied", sourceLocation: sourceLocation)
            #expect(ShownList(monitor) == (try fresh()), "a fresh fetch", sourceLocation: sourceLocation)
        }
    }

    @Test func aListSectionedByARelatedObjectFollowsItsRenamingInAnotherContext() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let (_, spain, _) = try Self.moods(in: context)
        let monitor = try context.monitorSectionedList(Self.byCountry, sectionBy: SectionBy(\.country?.name))
        let checker = Checker(monitor) {
            try ShownList(fetching: Self.byCountry, in: context, sectionKey: { $0.country?.name })
        }
        #expect(monitor.sections.map(\.name) == ["France", "Spain"])

        let writer = container.newBackgroundContext()
        let theirSpain = try #require(writer.object(with: spain.objectID, as: Country.self))
        theirSpain.name = "Andorra"
        try writer.save()
        context.processPendingChanges()
        #expect(monitor.sections.map(\.name) == ["Andorra", "France"])
        #expect(monitor.objects.map(\.text) == ["c", "d", "a", "b"])
        #expect(checker.changesets.count == 1)
        try checker.check()
    }

    @Test func aListFilteredThroughTwoRelationshipsFollowsTheFarthestObject() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let (france, _, europe) = try Self.moods(in: context)
        let request = FetchDescriptor<Mood>(
            predicate: #Predicate { $0.country?.continent?.name == "Europe" }, sortBy: [SortDescriptor(\.text)])
        let monitor = try context.monitorList(request)
        let checker = Checker(monitor) { try ShownList(fetching: request, in: context) }
        #expect(monitor.count == 4)

        europe.name = "Eurasia"  // every mood leaves
        context.processPendingChanges()
        #expect(monitor.count == 0)
        try checker.check()  // the fetch, too, reads the continent's unsaved name
        try context.save()

        let other = Continent(name: "Europe")
        context.insert(other)
        france.continent = other  // France's moods come back, through their country's new continent
        context.processPendingChanges()
        #expect(monitor.objects.map(\.text) == ["a", "b"])
        try checker.check()
        try context.save()
        try checker.check()
    }

    @Test func changesTheListDoesNotReadReportNothingOfTheRelatedObjects() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let (france, _, _) = try Self.moods(in: context)
        let monitor = try context.monitorList(Self.byCountry)
        let checker = Checker(monitor) { try ShownList(fetching: Self.byCountry, in: context) }

        let asia = Continent(name: "Asia")
        context.insert(asia)
        france.continent = asia  // the list reads the country's name, not its continent
        context.processPendingChanges()
        #expect(checker.changesets.isEmpty)

        // A new mood changes France's moods: one insertion, not an update of every French mood.
        context.insert(Mood(text: "e", country: france))
        context.processPendingChanges()
        #expect(checker.changesets.count == 1)
        #expect(checker.changesets.first?.changes.count == 1)
        try checker.check()
    }

    @Test func aRenamingThatKeepsTheOrderIsAnUpdateOfEachObjectOfTheRelatedObject() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let (france, _, _) = try Self.moods(in: context)
        let monitor = try context.monitorList(Self.byCountry)
        let checker = Checker(monitor) { try ShownList(fetching: Self.byCountry, in: context) }

        france.name = "Francia"  // still before Spain: each French mood is shown with a new name
        context.processPendingChanges()
        let changes = try #require(checker.changesets.first?.changes)
        let updated: [String] = changes.compactMap {
            if case .updateObject(let mood, _) = $0 { return mood.text } else { return nil }
        }
        #expect(updated.sorted() == ["a", "b"] && changes.count == 2)
        try checker.check()
    }
}
