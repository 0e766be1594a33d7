import Foundation
import MoodyModel
import ObjectGraph
import Testing

/// ObjectsDidChange (issue 4, point 1), by callback and as an async sequence.
@Suite struct ObjectsDidChangeTests {
    private func keys(_ change: ObjectsDidChange, of object: some Entity) -> Set<String>? {
        change.updatedObjects.first { $0.object === object }?.changedKeys
    }

    /// Found by the list monitor's randomized test: an object inserted and posted, then changed before
    /// any save, must be posted as updated, or a list showing it never learns of the change.
    @Test func anInsertedObjectChangedAfterItsInsertionWasPostedIsPostedUpdated() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        var changes: [ObjectsDidChange] = []
        let token = context.observeObjectsDidChange { changes.append($0) }
        let mood = Mood(text: "Sunny")
        context.insert(mood)
        mood.rating = 1  // part of the insertion: not posted yet
        context.processPendingChanges()
        #expect(changes.count == 1 && changes[0].updatedObjects.isEmpty)
        mood.rating = 5
        context.processPendingChanges()
        #expect(changes.count == 2)
        #expect(changes.last.map { keys($0, of: mood) } == ["rating"])
        withExtendedLifetime(token) {}
    }

    @Test func insertedUpdatedAndDeletedObjectsArePostedTogether() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let (europe, france, spain) = try makeEurope(in: context)
        var changes: [ObjectsDidChange] = []
        let token = context.observeObjectsDidChange { changes.append($0) }

        let italy = Country(name: "Italy")
        context.insert(italy)
        france.name = "République française"
        #expect(changes.isEmpty)  // gathered until pending changes are processed
        context.delete(spain)  // which delete does
        #expect(changes.count == 1)
        let change = try #require(changes.first)
        #expect(change.insertedObjects.count == 1 && change.insertedObjects.first === italy)
        #expect(keys(change, of: france) == ["name"])
        #expect(keys(change, of: europe) == ["countries"])  // Spain left it (nullify)
        #expect(change.deletedObjects.count == 1 && change.deletedObjects.first === spain)
        #expect(spain.name == "Spain")  // a deleted object keeps its last values
        #expect(!change.invalidatedAllObjects && change.refreshedObjects.isEmpty)

        context.processPendingChanges()
        #expect(changes.count == 1)  // nothing new, nothing posted
        withExtendedLifetime(token) {}
    }

    @Test func aRelationshipChangeNamesBothSides() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let (_, france, spain) = try makeEurope(in: context)
        let mood = Mood(text: "Sunny", country: france)
        context.insert(mood)
        try context.save()
        var changes: [ObjectsDidChange] = []
        let token = context.observeObjectsDidChange { changes.append($0) }
        mood.country = spain
        context.processPendingChanges()
        let change = try #require(changes.first)
        #expect(keys(change, of: mood) == ["country"])
        #expect(keys(change, of: france) == ["moods"])
        #expect(keys(change, of: spain) == ["moods"])
        withExtendedLifetime(token) {}
    }

    @Test func anObjectInsertedAndDeletedBeforeItWasPostedIsNeither() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        var changes: [ObjectsDidChange] = []
        let token = context.observeObjectsDidChange { changes.append($0) }
        let italy = Country(name: "Italy")
        context.insert(italy)
        context.delete(italy)
        #expect(changes.isEmpty)
        withExtendedLifetime(token) {}
    }

    @Test func rollbackRefreshAndResetArePosted() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let (_, france, spain) = try makeEurope(in: context)
        var changes: [ObjectsDidChange] = []
        let token = context.observeObjectsDidChange { changes.append($0) }

        let italy = Country(name: "Italy")
        context.insert(italy)
        france.name = "Francia"
        context.rollback()
        #expect(changes.count == 1)
        #expect(changes[0].invalidatedObjects.first === italy)
        #expect(changes[0].refreshedObjects.count == 1 && changes[0].refreshedObjects.first?.object === france)
        #expect(changes[0].insertedObjects.isEmpty && changes[0].updatedObjects.isEmpty)

        context.refresh(spain, mergeChanges: false)
        context.processPendingChanges()
        #expect(changes.count == 2 && changes[1].refreshedObjects.first?.object === spain)

        context.reset()
        #expect(changes.last?.invalidatedAllObjects == true)
        #expect(changes.last?.isGone(france) == true)
        withExtendedLifetime(token) {}
    }

    @Test func objectsDidChangeAsAnAsyncSequence() async throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let changes = context.objectsDidChangeNotifications
        let italy = Country(name: "Italy")
        context.insert(italy)
        context.processPendingChanges()
        var iterator = changes.makeAsyncIterator()
        let change = await iterator.next()
        #expect(change?.insertedObjects.first === italy)
    }

    @MainActor @Test(.timeLimit(.minutes(1))) func theViewContextPostsByItselfOnceTheMainActorIsFree() async throws {
        let container = try makeContainer()
        let view = container.viewContext
        let changes = view.objectsDidChangeNotifications
        let peru = Country(name: "Peru")
        view.insert(peru)
        try view.save()
        peru.name = "Perú"
        // Nothing called processPendingChanges(): the changes come once this job lets the main actor go.
        var received: [ObjectsDidChange] = []
        for await change in changes {
            received.append(change)
            if !change.updatedObjects.isEmpty { break }
        }
        #expect(received.first?.insertedObjects.first === peru)  // posted by the save
        let update = try #require(received.last?.updatedObjects.first)
        #expect(update.object === peru && update.changedKeys == ["name"])
    }
}
