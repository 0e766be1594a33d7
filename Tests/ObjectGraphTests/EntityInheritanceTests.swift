import Foundation
import ObjectGraph
import Testing

/// What happened to which object, in order: the hooks that ran.
nonisolated(unsafe) var hookLog: [String] = []

/// An event in a calendar: the root of a hierarchy of entities.
@Entity class Event {
    var title: String
    var day: Int = 1
    var note: String?
    init(title: String) { self.title = title }

    func prepareForDeletion() { hookLog.append("Event \(title)") }
}

/// An event at work: a subentity, final.
@Entity final class WorkEvent: Event {
    var budget: Int = 0
    var client: String
    init(title: String, client: String, budget: Int = 0) {
        self.client = client
        self.budget = budget
        super.init(title: title)
    }

    override func prepareForDeletion() {
        hookLog.append("WorkEvent \(title)")
        super.prepareForDeletion()
    }
}

/// A trip: a subentity that has subentities of its own.
@Entity class Trip: Event {
    var destination = ""
    init(title: String, destination: String) {
        self.destination = destination
        super.init(title: title)
    }
}

/// A business trip: three levels down.
@Entity final class BusinessTrip: Trip {
    var perDiem: Double = 45
    init(title: String, destination: String, perDiem: Double) {
        self.perDiem = perDiem
        super.init(title: title, destination: destination)
    }
}

@Suite("Entity inheritance: @Entity subclasses of @Entity classes")
struct EntityInheritanceTests {
    @Test func aSubentityHasItsOwnAndItsInheritedPropertiesWithTheirDefaults() {
        let meeting = WorkEvent(title: "Kick-off", client: "ACME", budget: 500)
        #expect(meeting.title == "Kick-off" && meeting.day == 1 && meeting.note == nil)
        #expect(meeting.client == "ACME" && meeting.budget == 500)
        meeting.day = 3
        meeting.note = "bring slides"
        meeting.budget += 1
        #expect(meeting.day == 3 && meeting.note == "bring slides" && meeting.budget == 501)

        let trip = BusinessTrip(title: "Fair", destination: "Lyon", perDiem: 60)
        #expect(trip.title == "Fair" && trip.destination == "Lyon" && trip.perDiem == 60 && trip.day == 1)
        let plain = Event(title: "Birthday")
        #expect(plain.title == "Birthday" && plain.day == 1)
    }

    @Test func eachClassDeclaresItsEntityWithItsParentAndTheInheritedPropertiesFirst() {
        #expect(WorkEvent.entityName == "WorkEvent")
        #expect((WorkEvent.self as Event.Type).entityName == "WorkEvent")
        #expect(Event.entityName == "Event")
        let meeting = WorkEvent(title: "Kick-off", client: "ACME")
        #expect(meeting.objectID.entityName == "WorkEvent")
        let trip = BusinessTrip(title: "Fair", destination: "Lyon", perDiem: 60)
        #expect(trip.objectID.entityName == "BusinessTrip")
        #expect(Event(title: "Birthday").objectID.entityName == "Event")
    }

    @Test func aSubclassOverridesTheLifecycleHooksObjectGraphCalls() {
        hookLog = []
        let objects: [any Entity] = [
            WorkEvent(title: "Review", client: "ACME"), Event(title: "Lunch"), Trip(title: "Away", destination: "Oslo")
        ]
        for object in objects { object.prepareForDeletion() }
        #expect(hookLog == ["WorkEvent Review", "Event Review", "Event Lunch", "Event Away"])
    }

    @Test func predicatesTestTheClassInMemory() throws {
        let events: [Event] = [
            WorkEvent(title: "Review", client: "ACME", budget: 200), Event(title: "Lunch"),
            BusinessTrip(title: "Fair", destination: "Lyon", perDiem: 60), WorkEvent(title: "Call", client: "Initech", budget: 50)
        ]
        let isWork = #Predicate<Event> { $0 is WorkEvent }
        #expect(try events.filter { try isWork.evaluate($0) }.map(\.title) == ["Review", "Call"])
        let costly = #Predicate<Event> { (($0 as? WorkEvent)?.budget ?? 0) > 100 }
        #expect(try events.filter { try costly.evaluate($0) }.map(\.title) == ["Review"])
        let trips = #Predicate<Event> { $0 is Trip }
        #expect(try events.filter { try trips.evaluate($0) }.map(\.title) == ["Fair"])
    }
}

extension EntityInheritanceTests {
    @Test func theSchemaDescribesEachSubentityWithItsParentAndIncludesTheParents() throws {
        let schema = try Schema(WorkEvent.self, BusinessTrip.self)
        #expect(schema.entities.map(\.name) == ["BusinessTrip", "Event", "Trip", "WorkEvent"])
        #expect(schema.entity(named: "WorkEvent")?.parentEntity == "Event")
        #expect(schema.entity(named: "BusinessTrip")?.parentEntity == "Trip")
        #expect(schema.entity(named: "Event")?.parentEntity == nil)
        #expect(schema.entity(named: "WorkEvent")?.attributes.map(\.name) == ["title", "day", "note", "budget", "client"])
    }

    @Test func aContainerRefusesAModelWithSubentitiesNamingThemRatherThanStoringThemApart() {
        let message = invalidModelMessage { _ = try ObjectContainer(for: Event.self, WorkEvent.self, configuration: .inMemory) }
        #expect(message?.contains("WorkEvent is a subentity of Event") == true, "\(message ?? "")")
    }
}
