import Foundation
import MoodyModel
import ObjectGraph
import Testing

@Suite("Partial fetches: FetchDescriptor.propertiesToFetch")
struct PartialFetchTests {
    /// The newest moods, read with their text only.
    static func textOnly() -> FetchDescriptor<Mood> {
        var request = FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.date, order: .reverse)])
        request.propertiesToFetch = [\.text]
        return request
    }

    @Test("A partial fetch selects only the listed properties; reading another loads that object's row, once")
    func readsOnlyWhatItLists() throws {
        let (container, log) = try PrefetchingTests.store()
        let context = container.newBackgroundContext()
        log.clear()
        let moods = try context.fetch(Self.textOnly())
        let selects = log.statements(from: "Mood")
        #expect(selects.count == 1)
        #expect(selects.first?.contains("\"text\"") == true && selects.first?.contains("\"rating\"") == false, "\(selects)")
        #expect(moods.map(\.text).prefix(2) == ["Mood 59", "Mood 58"])
        #expect(log.statements(from: "Mood").count == 1, "the texts were read with the fetch")
        #expect(moods[0].rating == 59 % 5 + 1)
        #expect(moods[0].rating == 5)
        #expect(log.reads(of: "Mood") == 1, "the first other property loaded the row, once")
    }

    @Test("What a partial fetch reads agrees with a full fetch, property by property")
    func agreesWithAFullFetch() throws {
        let (container, _) = try PrefetchingTests.store()
        var request = Self.textOnly()
        request.propertiesToFetch = [\.text, \.rating, \.country]
        let partial = try container.newBackgroundContext().fetch(request)
        let full = try container.newBackgroundContext().fetch(FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.date, order: .reverse)]))
        #expect(partial.map(\.objectGlobalID) == full.map(\.objectGlobalID))
        #expect(partial.map(\.text) == full.map(\.text))
        #expect(partial.map(\.rating) == full.map(\.rating))
        #expect(partial.map { $0.country?.name } == full.map { $0.country?.name })
        #expect(partial.map(\.date) == full.map(\.date))
    }

    @Test("Another context's save of a partially read object reaches it: the merge forgets what the fetch read")
    func mergesForgetPartialValues() throws {
        let (container, _) = try PrefetchingTests.store()
        let context = container.newBackgroundContext()
        let moods = try context.fetch(Self.textOnly())
        let other = container.newBackgroundContext()
        let same = try #require(try other.fetch(FetchDescriptor<Mood>(predicate: #Predicate { $0.text == "Mood 59" })).first)
        same.text = "Changed elsewhere"
        try other.save()
        context.processPendingChanges()
        #expect(moods[0].text == "Changed elsewhere")
    }

    @Test("Objects the context holds keep their values, unsaved changes included; a child context reads whole rows")
    func heldObjectsAndChildren() throws {
        let (container, _) = try PrefetchingTests.store()
        let context = container.newBackgroundContext()
        let held = try #require(try context.fetch(FetchDescriptor<Mood>(predicate: #Predicate { $0.text == "Mood 58" })).first)
        held.rating = 1
        held.text = "Unsaved"
        let moods = try context.fetch(Self.textOnly())
        #expect(moods[1] === held && moods[1].text == "Unsaved" && moods[1].rating == 1)

        let child = context.newChildContext()
        let inChild = try child.fetch(Self.textOnly())
        #expect(inChild[1].text == "Unsaved" && inChild[1].rating == 1)
    }

    @Test("A change to a partially read object loads its row first, saves the change alone, and undoes")
    func changesLoadTheRowFirst() throws {
        let (container, _) = try PrefetchingTests.store()
        let context = container.newBackgroundContext()
        context.undoManager = ObjectUndoManager()
        let mood = try #require(try context.fetch(Self.textOnly()).first)
        mood.rating = 2
        try context.save()
        let reader = container.newBackgroundContext()
        let check = try #require(try reader.fetch(FetchDescriptor<Mood>(predicate: #Predicate { $0.text == "Mood 59" })).first)
        #expect(check.rating == 2 && check.date == Date(timeIntervalSince1970: 59) && check.country?.name == "Country 11")
        context.undoManager?.undo()
        #expect(mood.rating == 5)
    }

    @Test("With prefetching, a partial fetch reads the keys it follows, and the related objects, with no row of the results")
    func withPrefetching() throws {
        let (container, log) = try PrefetchingTests.store()
        let context = container.newBackgroundContext()
        var request = Self.textOnly()
        request.relationshipKeyPathsForPrefetching = [\.country]
        log.clear()
        let moods = try context.fetch(request)
        #expect(moods.map { $0.country?.name ?? "" }.first == "Country 11")
        #expect(log.statements(from: "Mood").count == 1 && log.reads(of: "Mood") == 0, "\(log.statements(from: "Mood"))")
        #expect(log.reads(of: "Country") == 1)
    }

    @Test("A partially read object moved to another object's to-many relationship reads its new destination")
    func inverseChangesWin() throws {
        let (container, _) = try PrefetchingTests.store()
        let context = container.newBackgroundContext()
        var request = Self.textOnly()
        request.propertiesToFetch = [\.text, \.country]
        let mood = try #require(try context.fetch(request).first)
        let first = try #require(try context.fetch(FetchDescriptor<Country>(predicate: #Predicate { $0.name == "Country 0" })).first)
        first.moods.insert(mood)
        #expect(mood.country?.name == "Country 0")
        // Fetched again, partially: the store's value does not overwrite the unsaved one.
        #expect(try context.fetch(request).first?.country?.name == "Country 0")
        try context.save()
        let reader = container.newBackgroundContext()
        let saved = try #require(try reader.fetch(FetchDescriptor<Mood>(predicate: #Predicate { $0.text == "Mood 59" })).first)
        #expect(saved.country?.name == "Country 0")
    }

    @Test("A key path that is not an attribute or a to-one relationship is refused, naming the entity")
    func refusesToMany() throws {
        let (container, _) = try PrefetchingTests.store()
        var request = FetchDescriptor<Country>()
        request.propertiesToFetch = [\.moods]
        let error = #expect(throws: ObjectGraphError.self) { _ = try container.newBackgroundContext().fetch(request) }
        #expect(error?.code == .invalidPropertyAccess)
        #expect(error?.entity == "Country")
    }
}
