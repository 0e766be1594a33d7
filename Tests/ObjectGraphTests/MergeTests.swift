import Foundation
import MoodyModel
import ObjectGraph
import Testing

/// Merging a save from another context (issue 4, point 4: the explicit half).
@Suite struct MergeTests {
    @Test func mergingRefreshesUpdatedObjectsAndMarksDeletedOnes() throws {
        let container = try makeContainer()
        let writer = container.newBackgroundContext()
        let (_, france, _) = try makeEurope(in: writer)
        let sunny = Mood(text: "Sunny", rating: 4, country: france)
        let rainy = Mood(text: "Rainy", rating: 2, country: france)
        writer.insert(sunny)
        writer.insert(rainy)
        try writer.save()

        // The reader holds the objects, loaded.
        let reader = container.newBackgroundContext()
        let moods = try reader.fetch(FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.text)])).map { $0 }
        let (readRainy, readSunny) = (moods[0], moods[1])
        let readFrance = try #require(readSunny.country)
        #expect(readFrance.moods.count == 2)
        readSunny.rating = 5  // an unsaved change of the reader's own

        var saves: [DidSave] = []
        let saveToken = writer.observeDidSave { saves.append($0) }
        sunny.text = "Very sunny"
        writer.delete(rainy)
        try writer.save()

        var changes: [ObjectsDidChange] = []
        let changeToken = reader.observeObjectsDidChange { changes.append($0) }
        reader.mergeChanges(from: try #require(saves.first))

        #expect(readSunny.text == "Very sunny")  // the other context's change
        #expect(readSunny.rating == 5)  // the reader's unsaved change, kept
        #expect(readSunny.hasChanges)
        #expect(readRainy.isDeleted)
        #expect(readRainy.text == "Rainy")  // a deleted object keeps its last values
        #expect(readFrance.moods.map(\.text) == ["Very sunny"])
        let change = try #require(changes.last)
        #expect(change.deletedObjects.count == 1 && change.deletedObjects.first === readRainy)
        #expect(change.refreshedObjects.contains { $0.object === readSunny })
        #expect(change.refreshedObjects.contains { $0.object === readFrance })

        // The reader's save writes its own change only.
        try reader.save()
        let check = container.newBackgroundContext()
        let stored = try check.fetch(FetchDescriptor<Mood>()).map { ($0.text, $0.rating) }
        #expect(stored.count == 1 && stored[0] == ("Very sunny", 5))
        withExtendedLifetime((saveToken, changeToken)) {}
    }

    /// An object with unsaved changes to a to-many relationship keeps them over a merged save, and
    /// the relationship shows what the save changed too: a member deleted elsewhere is gone.
    @Test func aToManyChangedHereShowsAMemberDeletedByAMergedSaveAsGone() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let (_, france, _) = try makeEurope(in: context)
        let kept = Mood(text: "kept", country: france)
        let doomed = Mood(text: "doomed", country: france)
        for mood in [kept, doomed] { context.insert(mood) }
        try context.save()
        #expect(france.moods.count == 2)
        context.insert(Mood(text: "new", country: france))  // unsaved: France's moods changed here

        let other = container.newBackgroundContext()
        other.delete(try other.existingObject(with: doomed.objectID, as: Mood.self))
        try other.save()
        context.processPendingChanges()
        #expect(doomed.isDeleted)
        #expect(Set(france.moods.map(\.text)) == ["kept", "new"])
        try context.save()
        let reader = container.newBackgroundContext()
        let stored = try reader.existingObject(with: france.objectID, as: Country.self)
        #expect(Set(stored.moods.map(\.text)) == ["kept", "new"])
    }

    @Test func mergingLeavesObjectsNotInMemoryAlone() throws {
        let container = try makeContainer()
        let writer = container.newBackgroundContext()
        let (_, france, _) = try makeEurope(in: writer)
        var saves: [DidSave] = []
        let token = writer.observeDidSave { saves.append($0) }
        france.name = "Francia"
        try writer.save()

        let reader = container.newBackgroundContext()
        var changes: [ObjectsDidChange] = []
        let changeToken = reader.observeObjectsDidChange { changes.append($0) }
        reader.mergeChanges(from: try #require(saves.first))
        #expect(changes.isEmpty)
        #expect(reader.registeredObjects.isEmpty)
        withExtendedLifetime((token, changeToken)) {}
    }
}
