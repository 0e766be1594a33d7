import Foundation
import MoodyModel
import ObjectGraph
import Testing

/// Seed 000's ManagedObjectObserver (issue 4, point 7).
@Suite struct ObjectObserverTests {
    /// A saved mood in France, and a record of what an observer of it was told.
    private final class Recorder {
        var changes: [ObjectObserver<Mood>.Change] = []
    }

    private func savedMood(in context: ObjectContext) throws -> (Mood, Country) {
        let (_, france, _) = try makeEurope(in: context)
        let mood = Mood(text: "Sunny", rating: 4, country: france)
        context.insert(mood)
        try context.save()
        return (mood, france)
    }

    /// Makes a change in a new context of the container, saves it, and returns the save.
    private func saveInAnotherContext(
        of container: ObjectContainer,
        _ change: (ObjectContext) throws -> Void
    ) throws -> DidSave {
        let background = container.newBackgroundContext()
        var saves: [DidSave] = []
        let token = background.observeDidSave { saves.append($0) }
        try change(background)
        try background.save()
        withExtendedLifetime(token) {}
        return try #require(saves.first)
    }

    @Test func updatesNameTheChangedKeys() throws {
        let context = try makeContainer().newBackgroundContext()
        let (mood, _) = try savedMood(in: context)
        let recorder = Recorder()
        let observer = ObjectObserver(mood) { recorder.changes.append($0) }
        mood.rating = 5
        context.processPendingChanges()
        #expect(recorder.changes == [.update(changedKeys: ["rating"])])
        withExtendedLifetime(observer) {}
    }

    @Test func aDeletionHereOrThroughACascadeIsADelete() throws {
        let context = try makeContainer().newBackgroundContext()
        let (mood, france) = try savedMood(in: context)
        let recorder = Recorder()
        let observer = ObjectObserver(mood) { recorder.changes.append($0) }
        context.delete(france)  // countries cascade to their moods
        #expect(recorder.changes == [.delete])
        withExtendedLifetime(observer) {}
    }

    @Test func aDeletionByABackgroundContextIsADeleteOnceMerged() throws {
        let container = try makeContainer()
        let viewer = container.newBackgroundContext()
        let (mood, _) = try savedMood(in: viewer)
        let recorder = Recorder()
        let observer = ObjectObserver(mood) { recorder.changes.append($0) }

        let save = try saveInAnotherContext(of: container) { background in
            background.delete(try background.existingObject(with: mood.objectID, as: Mood.self))
        }
        #expect(recorder.changes.isEmpty)
        viewer.mergeChanges(from: save)
        #expect(recorder.changes == [.delete])
        #expect(mood.isDeleted)
        withExtendedLifetime(observer) {}
    }

    @Test func anUpdateMergedFromAnotherContextNamesItsKeys() throws {
        let container = try makeContainer()
        let viewer = container.newBackgroundContext()
        let (mood, _) = try savedMood(in: viewer)
        let recorder = Recorder()
        let observer = ObjectObserver(mood) { recorder.changes.append($0) }
        let save = try saveInAnotherContext(of: container) { background in
            try background.existingObject(with: mood.objectID, as: Mood.self).text = "Cloudy"
        }
        viewer.mergeChanges(from: save)
        #expect(recorder.changes == [.update(changedKeys: ["text"])])
        #expect(mood.text == "Cloudy")
        viewer.processPendingChanges()  // merged by hand: not merged again
        #expect(recorder.changes.count == 1)
        withExtendedLifetime(observer) {}
    }

    @Test func resetIsADelete() throws {
        let context = try makeContainer().newBackgroundContext()
        let (mood, _) = try savedMood(in: context)
        let recorder = Recorder()
        let observer = ObjectObserver(mood) { recorder.changes.append($0) }
        context.reset()
        #expect(recorder.changes == [.delete])
        withExtendedLifetime(observer) {}
    }

    @Test func leavingThePredicateIsADelete() throws {
        let context = try makeContainer().newBackgroundContext()
        let (mood, _) = try savedMood(in: context)
        let recorder = Recorder()
        let observer = ObjectObserver(mood, matching: #Predicate<Mood> { $0.markedForDeletionDate == nil }) {
            recorder.changes.append($0)
        }
        mood.text = "Still here"
        context.processPendingChanges()
        mood.markedForDeletionDate = Date()  // two-step deletion: hidden from now on
        context.processPendingChanges()
        #expect(recorder.changes == [.update(changedKeys: ["text"]), .delete])
        withExtendedLifetime(observer) {}
    }

    /// A predicate that cannot be evaluated on the object's values is a delete (it does not hold),
    /// and the observer keeps the error for its owner to see, instead of dropping it.
    @Test func aPredicateThatCannotBeEvaluatedIsADeleteWithItsErrorKept() throws {
        let context = try makeContainer().newBackgroundContext()
        let (mood, _) = try savedMood(in: context)
        mood.remoteIdentifier = "r1"
        let recorder = Recorder()
        let observer = try #require(
            ObjectObserver(mood, matching: #Predicate<Mood> { $0.remoteIdentifier!.count > 0 }) {
                recorder.changes.append($0)
            })
        mood.text = "Still here"
        context.processPendingChanges()
        #expect(observer.lastError == nil)
        mood.remoteIdentifier = nil  // the force unwrap fails
        context.processPendingChanges()
        #expect(recorder.changes == [.update(changedKeys: ["text", "remoteIdentifier"]), .delete])
        #expect(observer.lastError != nil)
    }

    @Test func aReleasedObserverIsSilentAndTheObjectIsNotKeptAlive() throws {
        let context = try makeContainer().newBackgroundContext()
        let (mood, _) = try savedMood(in: context)
        let recorder = Recorder()
        var observer = ObjectObserver(mood) { recorder.changes.append($0) }
        #expect(observer != nil)
        observer = nil
        mood.rating = 1
        context.processPendingChanges()
        #expect(recorder.changes.isEmpty)

        // An observer does not keep its object alive.
        weak var released: Mood?
        var kept: ObjectObserver<Mood>?
        do {
            let other = Mood(text: "Other")
            context.insert(other)
            try context.save()
            released = other
            kept = ObjectObserver(other) { recorder.changes.append($0) }
        }
        #expect(kept != nil)
        #expect(released == nil)
        #expect(ObjectObserver(Mood(text: "Not inserted")) { _ in } == nil)
    }

    @MainActor @Test(.timeLimit(.minutes(1))) func aViewContextObserverLearnsOfABackgroundDeletionByItself() async throws {
        let container = try makeContainer()
        let (mood, _) = try savedMood(in: container.viewContext)
        let recorder = Recorder()
        let observer = ObjectObserver(mood) { recorder.changes.append($0) }
        let changes = container.viewContext.objectsDidChangeNotifications
        let id = mood.objectID
        try await container.performBackgroundTask { sync in
            sync.delete(try sync.existingObject(with: id, as: Mood.self))
            try sync.save()
        }
        for await change in changes where change.isGone(mood) { break }
        #expect(recorder.changes == [.delete])
        #expect(mood.isDeleted && mood.text == "Sunny")
        withExtendedLifetime(observer) {}
    }
}
