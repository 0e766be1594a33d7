import Foundation
import MoodyModel
import ObjectGraph
import Observation
import Synchronization
import Testing

/// Whether an Observation `onChange` was called, and how often.
private final class ChangeCount: Sendable {
    private let count = Atomic(0)
    var value: Int { count.load(ordering: .sequentiallyConsistent) }
    func add() { count.add(1, ordering: .sequentiallyConsistent) }
}

/// Runs `read` under `withObservationTracking`; the count grows when what it read changes.
private func track(_ read: () -> Void) -> ChangeCount {
    let changes = ChangeCount()
    withObservationTracking(read) { changes.add() }
    return changes
}

/// Entities and monitors are `Observable` (issue 13, point 9): what SwiftUI relies on, tested with
/// `withObservationTracking`, on Linux too.
@Suite struct ObservationTests {
    private func observableContext(_ container: ObjectContainer) -> ObjectContext {
        let context = container.newBackgroundContext()
        context.isObservable = true
        return context
    }

    /// A saved mood in an observable context of a new container.
    private func savedMood() throws -> (ObjectContainer, ObjectContext, Mood) {
        let container = try makeContainer()
        let context = observableContext(container)
        let mood = Mood(text: "Sunny", rating: 4)
        context.insert(mood)
        try context.save()
        return (container, context, mood)
    }

    @Test func aPropertyReadIsTrackedAndItsChangeHereIsSeen() throws {
        let (container, context, mood) = try savedMood()

        let text = track { _ = mood.text }
        mood.rating = 1  // not read: not seen
        #expect(text.value == 0)
        mood.text = "Cloudy"
        #expect(text.value == 1)
        withExtendedLifetime((container, context)) {}
    }

    @Test func aChangeMergedFromAnotherContextsSaveIsSeen() throws {
        let (container, context, mood) = try savedMood()

        let rating = track { _ = mood.rating }
        let text = track { _ = mood.text }
        let writer = container.newBackgroundContext()
        try writer.existingObject(with: mood.objectID, as: Mood.self).text = "Rainy"
        try writer.save()
        context.processPendingChanges()
        #expect(text.value == 1)
        #expect(rating.value == 0)  // the save named the keys it changed
        #expect(mood.text == "Rainy")
    }

    @Test func relationshipsAreTrackedOnBothSides() throws {
        let container = try makeContainer()
        let context = observableContext(container)
        let (_, france, spain) = try makeEurope(in: context)
        let mood = Mood(text: "Sunny", country: france)
        context.insert(mood)
        try context.save()

        let country = track { _ = mood.country }
        let frenchMoods = track { _ = france.moods }
        let spanishMoods = track { _ = spain.moods }
        mood.country = spain  // each side changes: the inverses are maintained
        #expect(country.value == 1)
        #expect(frenchMoods.value == 1)
        #expect(spanishMoods.value == 1)
    }

    @Test func aContextThatIsNotObservableReportsNoRead() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        #expect(!context.isObservable)  // background contexts' bulk reads pay for no registrar
        let mood = Mood(text: "Sunny")
        context.insert(mood)
        let text = track { _ = mood.text }
        mood.text = "Cloudy"
        #expect(text.value == 0)
    }

    @MainActor @Test func theViewContextIsObservable() throws {
        let container = try makeContainer()
        let context = container.viewContext
        #expect(context.isObservable)
        let mood = Mood(text: "Sunny")
        context.insert(mood)
        let text = track { _ = mood.text }
        mood.text = "Cloudy"
        #expect(text.value == 1)
    }

    @Test func monitorsAreObservable() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let mood = Mood(text: "Sunny")
        context.insert(mood)
        try context.save()
        let list = try context.monitorList(Mood.self, sortBy: [SortDescriptor(\.text)])
        let monitor = try #require(context.monitorObject(mood))

        let count = track { _ = list.count }
        let sections = track { _ = list.sections }
        let object = track { _ = monitor.object }
        context.insert(Mood(text: "Rainy"))
        context.processPendingChanges()
        #expect(count.value == 1 && sections.value == 1)
        #expect(object.value == 0)
        context.delete(mood)
        context.processPendingChanges()
        #expect(object.value == 1)
        #expect(monitor.object == nil)
    }
}
