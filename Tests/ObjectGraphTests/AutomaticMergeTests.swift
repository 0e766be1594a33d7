import Foundation
import MoodyModel
import ObjectGraph
import Testing

/// Every save reaches every other live context of the container by itself (issue 4, point 4).
@Suite struct AutomaticMergeTests {
    /// A saved mood, and a second context holding it loaded.
    private func moodHeldElsewhere() throws -> (
        container: ObjectContainer, writer: ObjectContext, mood: Mood,
        reader: ObjectContext, copy: Mood
    ) {
        let container = try makeContainer()
        let writer = container.newBackgroundContext()
        let mood = Mood(text: "Sunny", rating: 4)
        writer.insert(mood)
        try writer.save()
        let reader = container.newBackgroundContext()
        let copy = try reader.existingObject(with: mood.objectID, as: Mood.self)
        #expect(copy.text == "Sunny")
        return (container, writer, mood, reader, copy)
    }

    @Test func aSaveReachesAnotherContextWhenItIsNextUsed() throws {
        let (_, writer, mood, reader, copy) = try moodHeldElsewhere()
        var changes: [ObjectsDidChange] = []
        let token = reader.observeObjectsDidChange { changes.append($0) }
        mood.text = "Very sunny"
        try writer.save()

        // The reader's objects change only on its own isolation, when it is used.
        #expect(changes.isEmpty)
        reader.processPendingChanges()
        #expect(copy.text == "Very sunny")
        let change = try #require(changes.first)
        #expect(changes.count == 1)
        #expect(change.refreshedObjects.count == 1)
        #expect(change.refreshedObjects.first?.object === copy)
        #expect(change.refreshedObjects.first?.changedKeys == ["text"])
        withExtendedLifetime(token) {}
    }

    @Test func fetchingAndLookingUpMergeFirst() throws {
        let (_, writer, mood, reader, copy) = try moodHeldElsewhere()
        mood.rating = 1
        try writer.save()
        let fetched = try reader.fetch(FetchDescriptor<Mood>(predicate: #Predicate { $0.rating < 2 })).map { $0 }
        #expect(fetched.count == 1 && fetched.first === copy)
        #expect(copy.rating == 1)

        writer.delete(mood)
        try writer.save()
        #expect(throws: ObjectGraphError.objectNotFound(copy.objectID)) {
            try reader.existingObject(with: copy.objectID)
        }
        #expect(copy.isDeleted)
        #expect(copy.text == "Sunny")  // its last values
    }

    @Test func aDeletionReachesEveryLiveContext() throws {
        let (container, writer, mood, _, _) = try moodHeldElsewhere()
        let readers = (0..<3).map { _ in container.newBackgroundContext() }
        let copies = try readers.map { try $0.existingObject(with: mood.objectID, as: Mood.self) }
        var deletions = 0
        let tokens = readers.map { reader in
            reader.observeObjectsDidChange { change in deletions += change.deletedObjects.count }
        }
        writer.delete(mood)
        try writer.save()
        for reader in readers { try reader.save() }  // nothing of their own to write
        #expect(copies.allSatisfy { $0.isDeleted })
        #expect(deletions == 3)
        withExtendedLifetime(tokens) {}
    }

    @Test func insertedObjectsArePostedAsFaultsToObservers() throws {
        let (_, writer, _, reader, _) = try moodHeldElsewhere()
        var inserted: [any Entity] = []
        let token = reader.observeObjectsDidChange { inserted += $0.insertedObjects }
        let rainy = Mood(text: "Rainy", rating: 2)
        writer.insert(rainy)
        try writer.save()
        reader.processPendingChanges()
        let fault = try #require(inserted.first as? Mood)
        #expect(inserted.count == 1)
        #expect(fault.objectID == rainy.objectID)
        #expect(fault.isFault)
        #expect(fault.text == "Rainy")
        #expect(!reader.hasChanges)  // another context's insertion is nothing to save here
        withExtendedLifetime(token) {}
    }

    @Test func severalSavesAreMergedInOrderAndPostedOnce() throws {
        let (_, writer, mood, reader, copy) = try moodHeldElsewhere()
        var changes: [ObjectsDidChange] = []
        let token = reader.observeObjectsDidChange { changes.append($0) }
        mood.text = "Cloudy"
        try writer.save()
        mood.rating = 2
        try writer.save()
        writer.delete(mood)
        try writer.save()
        reader.processPendingChanges()
        #expect(changes.count == 1)
        #expect(changes.first?.deletedObjects.first === copy)
        #expect(changes.first?.refreshedObjects.isEmpty == true)  // deleted in the end: posted as deleted only
        #expect(copy.isDeleted)
        withExtendedLifetime(token) {}
    }

    @Test func unsavedEditsAreKeptAndAContextMergesBeforeItSaves() throws {
        let (container, writer, mood, reader, copy) = try moodHeldElsewhere()
        copy.rating = 5  // the reader's own edit, unsaved
        mood.text = "Stormy"  // the writer's, saved
        try writer.save()
        try reader.save()  // merges first: no conflict, both edits kept
        #expect(copy.text == "Stormy" && copy.rating == 5)
        let stored = try container.newBackgroundContext().existingObject(with: mood.objectID, as: Mood.self)
        #expect(stored.text == "Stormy" && stored.rating == 5)
    }

    @Test func switchedOffAContextKeepsItsViewUntilItMergesItself() throws {
        let (_, writer, mood, reader, copy) = try moodHeldElsewhere()
        reader.automaticallyMergesChanges = false
        #expect(!reader.automaticallyMergesChanges)
        var saves: [DidSave] = []
        let saveToken = writer.observeDidSave { saves.append($0) }
        var changes: [ObjectsDidChange] = []
        let token = reader.observeObjectsDidChange { changes.append($0) }
        mood.text = "Foggy"
        try writer.save()
        reader.processPendingChanges()
        _ = try reader.fetch(FetchDescriptor<Mood>())
        #expect(copy.text == "Sunny")
        #expect(changes.isEmpty)

        reader.mergeChanges(from: try #require(saves.first))
        #expect(copy.text == "Foggy")
        #expect(changes.count == 1)

        // Switched on again, it merges the saves from then on.
        reader.automaticallyMergesChanges = true
        mood.text = "Clear"
        try writer.save()
        reader.processPendingChanges()
        #expect(copy.text == "Clear")
        withExtendedLifetime((saveToken, token)) {}
    }

    @Test func aReleasedContextIsNotKeptAliveBySaves() throws {
        let (container, writer, mood, _, _) = try moodHeldElsewhere()
        weak var released: ObjectContext?
        do {
            let context = container.newBackgroundContext()
            _ = try context.existingObject(with: mood.objectID)
            released = context
        }
        #expect(released == nil)
        mood.text = "Windy"
        try writer.save()
    }

    @MainActor @Test(.timeLimit(.minutes(1))) func theViewContextMergesOnTheMainActorByItself() async throws {
        let container = try makeContainer()
        let view = container.viewContext
        let mood = Mood(text: "Sunny", rating: 4)
        view.insert(mood)
        try view.save()
        let id = mood.objectID

        let changes = view.objectsDidChangeNotifications
        let saved = try await container.performBackgroundTask { context in
            let copy = try context.existingObject(with: id, as: Mood.self)
            copy.text = "Hail"
            try context.save()
            return copy.text
        }
        #expect(saved == "Hail")
        // Without using the view context: the merge comes to the main actor by itself.
        for await change in changes {
            MainActor.assertIsolated()
            #expect(change.refreshedObjects.first?.object === mood)
            #expect(change.refreshedObjects.first?.changedKeys == ["text"])
            break
        }
        #expect(mood.text == "Hail")
    }
}

/// Relationships a context has loaded follow other contexts' saves.
@Suite struct MergedRelationshipTests {
    @Test func aMoveAndAnInsertElsewhereReachLoadedToManyRelationships() throws {
        let container = try makeContainer()
        let writer = container.newBackgroundContext()
        let (_, france, _) = try makeEurope(in: writer)
        let mood = Mood(text: "Sunny", country: france)
        writer.insert(mood)
        try writer.save()

        let reader = container.newBackgroundContext()
        let readFrance = try reader.existingObject(with: france.objectID, as: Country.self)
        let readSpain = try #require(try reader.fetch(FetchDescriptor<Country>(predicate: #Predicate { $0.name == "Spain" })).first)
        #expect(readFrance.moods.map(\.text) == ["Sunny"] && readSpain.moods.isEmpty)

        // A third context, which never loaded either country's moods, moves the mood and adds one.
        let mover = container.newBackgroundContext()
        let moved = try mover.existingObject(with: mood.objectID, as: Mood.self)
        let moverSpain = try #require(try mover.fetch(FetchDescriptor<Country>(predicate: #Predicate { $0.name == "Spain" })).first)
        moved.country = moverSpain
        mover.insert(Mood(text: "Siesta", country: moverSpain))
        try mover.save()

        reader.processPendingChanges()
        #expect(readFrance.moods.isEmpty)
        #expect(Set(readSpain.moods.map(\.text)) == ["Sunny", "Siesta"])
        #expect(readSpain.moods.allSatisfy { $0.country === readSpain })
    }
}
