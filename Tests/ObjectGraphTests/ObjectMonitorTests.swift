import Foundation
import MoodyModel
import ObjectGraph
import Testing

/// A screen's record of what its ``ObjectMonitor`` told it, in order.
private final class RecordingObjectObserver: ObjectMonitorObserver {
    enum Event: Equatable {
        case willUpdate(text: String)
        case didUpdate(text: String, keys: Set<String>)
        case didDelete(text: String)
    }

    var events: [Event] = []
    var monitorObjectAtDelete: Mood??

    func objectMonitor(_ monitor: ObjectMonitor<Mood>, willUpdateObject object: Mood) {
        events.append(.willUpdate(text: object.text))
    }

    func objectMonitor(_ monitor: ObjectMonitor<Mood>, didUpdateObject object: Mood, changedPersistentKeys: Set<String>) {
        events.append(.didUpdate(text: object.text, keys: changedPersistentKeys))
    }

    func objectMonitor(_ monitor: ObjectMonitor<Mood>, didDeleteObject object: Mood) {
        monitorObjectAtDelete = .some(monitor.object)
        events.append(.didDelete(text: object.text))
    }
}

/// ObjectMonitor (issue 13, point 1): will-update, did-update with the changed keys, did-delete with
/// the object's last values; several weakly held observers; one monitor shared between screens.
@Suite struct ObjectMonitorTests {
    @Test func observersHearUpdatesWithTheirKeysAndTheDeletionWithTheLastValues() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let (_, france, _) = try makeEurope(in: context)
        let mood = Mood(text: "Sunny", rating: 4, country: france)
        context.insert(mood)
        try context.save()
        let monitor = try #require(context.monitorObject(mood))
        let screen = RecordingObjectObserver()
        let badge = RecordingObjectObserver()
        monitor.addObserver(screen)
        monitor.addObserver(badge)
        monitor.addObserver(screen)  // twice: still one delivery

        mood.text = "Cloudy"
        mood.rating = 2
        context.processPendingChanges()
        let update: [RecordingObjectObserver.Event] = [
            .willUpdate(text: "Cloudy"), .didUpdate(text: "Cloudy", keys: ["text", "rating"])
        ]
        #expect(screen.events == update)
        #expect(badge.events == update)

        context.delete(mood)
        context.processPendingChanges()
        #expect(screen.events == update + [.didDelete(text: "Cloudy")])
        #expect(screen.monitorObjectAtDelete == .some(nil))
        #expect(monitor.object == nil && !monitor.isValid)
        #expect(badge.events.last == .didDelete(text: "Cloudy"))
    }

    @Test func anotherContextsSaveAndItsDeletionReachTheMonitor() throws {
        let container = try makeContainer()
        let writer = container.newBackgroundContext()
        let (_, france, _) = try makeEurope(in: writer)
        let mood = Mood(text: "Sunny", country: france)
        writer.insert(mood)
        try writer.save()
        let viewer = container.newBackgroundContext()
        let shown = try viewer.existingObject(with: mood.objectID, as: Mood.self)
        _ = shown.text
        let monitor = try #require(viewer.monitorObject(shown))
        let screen = RecordingObjectObserver()
        monitor.addObserver(screen)

        mood.text = "Rainy"
        try writer.save()
        viewer.processPendingChanges()
        #expect(screen.events == [.willUpdate(text: "Rainy"), .didUpdate(text: "Rainy", keys: ["text"])])

        // A cascade in the other context: the continent takes the country and its mood.
        writer.delete(try #require(france.continent))
        try writer.save()
        viewer.processPendingChanges()
        #expect(screen.events.last == .didDelete(text: "Rainy"))
        #expect(monitor.object == nil)
    }

    @Test func aMarkForDeletionIsADeletionAndAReleasedObserverIsDropped() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let mood = Mood(text: "Sunny")
        context.insert(mood)
        try context.save()
        let monitor = try #require(context.monitorObject(mood))
        let kept = RecordingObjectObserver()
        monitor.addObserver(kept)
        var released: RecordingObjectObserver? = RecordingObjectObserver()
        weak let releasedReference = released
        monitor.addObserver(try #require(released))
        released = nil
        #expect(releasedReference == nil)  // the monitor does not keep it alive

        mood.markForLocalDeletion()
        context.processPendingChanges()
        #expect(kept.events == [.didDelete(text: "Sunny")])
        #expect(monitor.object == nil)
        // Nothing more is delivered once the object is gone.
        mood.text = "Changed"
        context.processPendingChanges()
        #expect(kept.events.count == 1)
    }

    @Test func removingAnObserverStopsItsDeliveries() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let mood = Mood(text: "Sunny")
        context.insert(mood)
        try context.save()
        let monitor = try #require(context.monitorObject(mood))
        let screen = RecordingObjectObserver()
        monitor.addObserver(screen)
        monitor.removeObserver(screen)
        mood.text = "Cloudy"
        context.processPendingChanges()
        #expect(screen.events.isEmpty)
        // A monitor of an object of another context, or of a deleted one, is refused.
        let other = container.newBackgroundContext()
        #expect(other.monitorObject(mood) == nil)
        context.delete(mood)
        #expect(context.monitorObject(mood) == nil)
    }

    /// Point 7: a monitor can opt in to the changes of related objects, reported with the
    /// relationship's name before each key.
    @Test func aMonitorOptingInToRelatedObjectsReportsTheirChanges() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let (europe, france, spain) = try makeEurope(in: context)
        let mood = Mood(text: "Sunny", country: france)
        context.insert(mood)
        try context.save()
        let plain = try #require(context.monitorObject(mood))
        let withCountry = try #require(
            context.monitorObject(
                mood, includingChangesOf: [.through(\.country), .through(\.country?.continent)]))
        let plainScreen = RecordingObjectObserver()
        let screen = RecordingObjectObserver()
        plain.addObserver(plainScreen)
        withCountry.addObserver(screen)

        // Another context renames the country: only the monitor that asked hears it.
        let writer = container.newBackgroundContext()
        try #require(writer.object(with: france.objectID, as: Country.self)).name = "Francia"
        try writer.save()
        context.processPendingChanges()
        #expect(plainScreen.events.isEmpty)
        #expect(screen.events == [.willUpdate(text: "Sunny"), .didUpdate(text: "Sunny", keys: ["country.name"])])

        europe.name = "Eurasia"  // two relationships away
        context.processPendingChanges()
        // Keys through a chain name its relationships (issue 26, point 5).
        #expect(screen.events.last == .didUpdate(text: "Sunny", keys: ["country.continent.name"]))

        // Another country changing is not this mood's news; the mood moving to it is its own change.
        spain.name = "España"
        context.processPendingChanges()
        #expect(screen.events.count == 4)
        mood.country = spain
        context.processPendingChanges()
        // (The new country's moods changed too, as the monitor of its changes says.)
        #expect(screen.events.last == .didUpdate(text: "Sunny", keys: ["country", "country.moods"]))
        #expect(plainScreen.events.last == .didUpdate(text: "Sunny", keys: ["country"]))
    }

    /// The related objects a monitor follows are heard changing in another context even when
    /// nothing else holds them (issue 26, point 1): the monitor keeps them, and follows the chain
    /// again when a link of it changes.
    @Test func aMonitorHearsRelatedObjectsNobodyHoldsChangeElsewhere() throws {
        let container = try makeContainer()
        let writer = container.newBackgroundContext()
        let (europe, france, _) = try makeEurope(in: writer)
        let asia = Continent(name: "Asia")
        writer.insert(asia)
        let written = Mood(text: "Sunny", country: france)
        writer.insert(written)
        try writer.save()

        // The screen's context holds the mood alone: no country, no continent.
        let context = container.newBackgroundContext()
        let mood = try context.existingObject(with: written.objectID, as: Mood.self)
        let monitor = try #require(
            context.monitorObject(
                mood, includingChangesOf: [.through(\.country), .through(\.country?.continent)]))
        let screen = RecordingObjectObserver()
        monitor.addObserver(screen)
        #expect(context.registeredObjects.count >= 1)

        france.name = "Francia"
        try writer.save()
        context.processPendingChanges()
        #expect(screen.events.last == .didUpdate(text: "Sunny", keys: ["country.name"]))

        europe.name = "Eurasia"
        try writer.save()
        context.processPendingChanges()
        #expect(screen.events.last == .didUpdate(text: "Sunny", keys: ["country.continent.name"]))

        // The middle link changes: the chain now leads to Asia, whose changes are heard from then on.
        france.continent = asia
        try writer.save()
        context.processPendingChanges()
        // (Europe, the continent until then, lost the country: its change is reported too.)
        #expect(screen.events.last == .didUpdate(text: "Sunny", keys: ["country.continent", "country.continent.countries"]))
        asia.name = "Asie"
        try writer.save()
        context.processPendingChanges()
        #expect(screen.events.last == .didUpdate(text: "Sunny", keys: ["country.continent.name"]))
        europe.name = "Europe"  // no longer on the chain
        try writer.save()
        context.processPendingChanges()
        #expect(screen.events.count == 8)
    }

    @Test func aCountrysMonitorCanHearItsMoodsChange() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let (_, france, _) = try makeEurope(in: context)
        let mood = Mood(text: "Sunny", country: france)
        context.insert(mood)
        try context.save()
        let monitor = try #require(context.monitorObject(france, includingChangesOf: [.through(\.moods)]))
        final class CountryScreen: ObjectMonitorObserver {
            var keys: [Set<String>] = []
            func objectMonitor(
                _ monitor: ObjectMonitor<Country>, didUpdateObject object: Country,
                changedPersistentKeys: Set<String>
            ) { keys.append(changedPersistentKeys) }
        }
        let screen = CountryScreen()
        monitor.addObserver(screen)
        mood.rating = 1
        context.processPendingChanges()
        #expect(screen.keys == [["moods.rating"]])
        context.insert(Mood(text: "Rainy", country: france))  // a new member: the country's own change
        context.processPendingChanges()
        #expect(screen.keys.last?.contains("moods") == true)
    }
}
