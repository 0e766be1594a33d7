import Foundation
import GRDB
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

}

/// The hierarchy in a store: one table, each row's entity in it.
@Suite("Entity inheritance: a hierarchy in the store")
struct EntityHierarchyStoreTests {
    static func container(_ path: String? = nil) throws -> ObjectContainer {
        try ObjectContainer(
            for: Event.self, WorkEvent.self, Trip.self, BusinessTrip.self, configuration: path.map { .file($0) } ?? .inMemory)
    }

    /// Two events, two work events, a trip and a business trip, saved.
    static func filled(_ container: ObjectContainer) throws {
        let context = container.newBackgroundContext()
        context.insert(Event(title: "Birthday"))
        context.insert(Event(title: "Lunch"))
        context.insert(WorkEvent(title: "Review", client: "ACME", budget: 200))
        context.insert(WorkEvent(title: "Call", client: "Initech", budget: 50))
        context.insert(Trip(title: "Away", destination: "Oslo"))
        context.insert(BusinessTrip(title: "Fair", destination: "Lyon", perDiem: 60))
        try context.save()
    }

    static func titles<E: Event>(_ objects: some Sequence<E>) -> [String] { objects.map(\.title).sorted() }

    @Test func aFetchOfTheRootReturnsEveryObjectAsItsOwnClassWithItsValues() throws {
        let container = try Self.container()
        try Self.filled(container)
        let context = container.newBackgroundContext()
        let events = try context.fetch(FetchDescriptor<Event>(sortBy: [SortDescriptor(\.title)]))
        #expect(events.map(\.title) == ["Away", "Birthday", "Call", "Fair", "Lunch", "Review"])
        #expect(events.map { "\(type(of: $0))" } == ["Trip", "Event", "WorkEvent", "BusinessTrip", "Event", "WorkEvent"])
        let review = try #require(events.last as? WorkEvent)
        #expect(review.client == "ACME" && review.budget == 200 && review.day == 1)
        let fair = try #require(events[3] as? BusinessTrip)
        #expect(fair.destination == "Lyon" && fair.perDiem == 60)
        #expect(try context.fetchCount(FetchDescriptor<Event>()) == 6)
    }

    @Test func aFetchOfASubentityReturnsItsObjectsAndItsSubentitiesOnly() throws {
        let container = try Self.container()
        try Self.filled(container)
        let context = container.newBackgroundContext()
        #expect(Self.titles(try context.fetch(FetchDescriptor<WorkEvent>())) == ["Call", "Review"])
        #expect(Self.titles(try context.fetch(FetchDescriptor<Trip>())) == ["Away", "Fair"])
        #expect(Self.titles(try context.fetch(FetchDescriptor<BusinessTrip>())) == ["Fair"])
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 2)
        let ids = try context.fetchIdentifiers(FetchDescriptor<Event>(predicate: #Predicate { $0.title == "Fair" }))
        #expect(ids.map(\.entityName) == ["BusinessTrip"])
    }

    @Test func predicatesTestTheClassInSQLAsInMemorySavedOrNot() throws {
        let container = try Self.container()
        try Self.filled(container)
        let context = container.newBackgroundContext()
        // The same kinds again, unsaved: the context evaluates them in memory.
        context.insert(WorkEvent(title: "Unsaved review", client: "ACME", budget: 300))
        context.insert(Event(title: "Unsaved lunch"))
        context.insert(BusinessTrip(title: "Unsaved fair", destination: "Nice", perDiem: 70))
        func titles(_ predicate: Predicate<Event>) throws -> [String] {
            Self.titles(try context.fetch(FetchDescriptor(predicate: predicate)))
        }
        #expect(try titles(#Predicate { $0 is WorkEvent }) == ["Call", "Review", "Unsaved review"])
        #expect(try titles(#Predicate { $0 is Trip }) == ["Away", "Fair", "Unsaved fair"])
        #expect(
            try titles(#Predicate { !($0 is Trip) && $0.day == 1 }) == [
                "Birthday", "Call", "Lunch", "Review", "Unsaved lunch", "Unsaved review"
            ])
        #expect(try titles(#Predicate { (($0 as? WorkEvent)?.budget ?? 0) > 100 }) == ["Review", "Unsaved review"])
        #expect(try titles(#Predicate { ($0 as? BusinessTrip)?.perDiem == 60 }) == ["Fair"])
        // And nothing else than Swift's answer, object by object.
        let all = try context.fetch(FetchDescriptor<Event>())
        let costly = #Predicate<Event> { (($0 as? WorkEvent)?.budget ?? 0) > 100 }
        #expect(Self.titles(try all.filter { try costly.evaluate($0) }) == ["Review", "Unsaved review"])
    }

    @Test func changesAndDeletionsOfSubentitiesReachOtherContextsAndTheStore() throws {
        let path = temporaryStorePath()
        let container = try Self.container(path)
        try Self.filled(container)
        let writer = container.newBackgroundContext()
        let review = try #require(try writer.fetch(FetchDescriptor<WorkEvent>(predicate: #Predicate { $0.title == "Review" })).first)
        let reader = container.newBackgroundContext()
        let shown = try #require(
            try reader.fetch(FetchDescriptor<Event>(predicate: #Predicate { $0.title == "Review" })).first as? WorkEvent)
        review.budget = 999
        review.day = 7
        try writer.save()
        reader.processPendingChanges()
        #expect(shown.budget == 999 && shown.day == 7)

        writer.delete(review)
        try writer.save()
        reader.processPendingChanges()
        #expect(shown.isDeleted)
        let fresh = try Self.container(path).newBackgroundContext()
        #expect(Self.titles(try fresh.fetch(FetchDescriptor<WorkEvent>())) == ["Call"])
        #expect(try fresh.fetchCount(FetchDescriptor<Event>()) == 5)
    }

    @Test func aBatchedFetchOfTheRootLoadsEachClassWithItsValues() throws {
        let container = try Self.container()
        try Self.filled(container)
        let context = container.newBackgroundContext()
        var request = FetchDescriptor<Event>(sortBy: [SortDescriptor(\.title)])
        request.fetchBatchSize = 2
        let events = try context.fetch(request)
        #expect(
            events.map { "\(type(of: $0)) \($0.title)" } == [
                "Trip Away", "Event Birthday", "WorkEvent Call", "BusinessTrip Fair", "Event Lunch", "WorkEvent Review"
            ])
        #expect((events[2] as? WorkEvent)?.client == "Initech")
    }

    @Test func subentitiesShareOneTableWithTheirEntityInEachRow() throws {
        let path = temporaryStorePath()
        try Self.filled(try Self.container(path))
        let queue = try DatabaseQueue(path: path)
        let rows = try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT Z_ENT, title, budget, perDiem FROM Event ORDER BY title")
        }
        #expect(rows.map { $0["Z_ENT"] as String } == ["Trip", "Event", "WorkEvent", "BusinessTrip", "Event", "WorkEvent"])
        let tables = try queue.read {
            try String.fetchAll($0, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('WorkEvent', 'Trip')")
        }
        #expect(tables.isEmpty)
    }

    @Test func aManyToManyRelationshipOfAHierarchyHoldsObjectsOfEachClass() throws {
        let container = try ObjectContainer(for: Agenda.self, TeamAgenda.self, Slot2.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let mine = Agenda()
        mine.name = "mine"
        let team = TeamAgenda()
        team.name = "team"
        team.team = "core"
        let slot = Slot2()
        slot.start = 9
        for object in [mine, team, slot] as [any Entity] { context.insert(object) }
        mine.slots = [slot]
        team.slots = [slot]
        try context.save()
        let reader = container.newBackgroundContext()
        let readSlot = try #require(try reader.fetch(FetchDescriptor<Slot2>()).first)
        #expect(readSlot.agendas.map { "\(type(of: $0)) \($0.name)" }.sorted() == ["Agenda mine", "TeamAgenda team"])
        let readTeam = try #require(try reader.fetch(FetchDescriptor<TeamAgenda>()).first)
        #expect(readTeam.slots.map(\.start) == [9] && readTeam.team == "core")
    }
}

/// `Event` before it had subentities.
@Entity("Event") final class EventBeforeHierarchy {
    var title: String
    var day: Int = 1
    var note: String?
    init(title: String) { self.title = title }
}

extension EntityHierarchyStoreTests {
    @Test func aStoreOfAnEntityWithoutSubentitiesMigratesIntoAHierarchyItsRowsBeingOfTheRoot() throws {
        let path = temporaryStorePath()
        do {
            let context = try ObjectContainer(for: EventBeforeHierarchy.self, configuration: .file(path)).newBackgroundContext()
            context.insert(EventBeforeHierarchy(title: "Old birthday"))
            context.insert(EventBeforeHierarchy(title: "Old lunch"))
            try context.save()
        }
        let container = try Self.container(path)
        let context = container.newBackgroundContext()
        context.insert(WorkEvent(title: "New review", client: "ACME"))
        try context.save()
        let reader = container.newBackgroundContext()
        let events = try reader.fetch(FetchDescriptor<Event>(sortBy: [SortDescriptor(\.title)]))
        #expect(events.map { "\(type(of: $0)) \($0.title)" } == ["WorkEvent New review", "Event Old birthday", "Event Old lunch"])
        #expect(Self.titles(try reader.fetch(FetchDescriptor<WorkEvent>())) == ["New review"])
    }
}

/// A hierarchy with a many-to-many relationship, inherited by its subentity.
@Entity class Agenda {
    var name = ""
    @Relationship(inverse: \Slot2.agendas) var slots: [Slot2] = []
    init() {}
}

@Entity final class TeamAgenda: Agenda {
    var team = ""
}

@Entity final class Slot2 {
    var start = 0
    var agendas: Set<Agenda> = []
    init() {}
}

/// A hierarchy with the rest of the object graph: batch operations, undo, child contexts,
/// monitors, aggregates.
extension EntityHierarchyStoreTests {
    @Test func aBatchDeleteOfTheRootDeletesSubentitiesObjectsAndContextsHoldingThemSeeIt() throws {
        let container = try Self.container()
        try Self.filled(container)
        let viewer = container.newBackgroundContext()
        let review = try #require(try viewer.fetch(FetchDescriptor<WorkEvent>(predicate: #Predicate { $0.title == "Review" })).first)
        let context = container.newBackgroundContext()
        let deleted = try context.batchDelete(Event.self, where: #Predicate { $0.day == 1 && $0.title != "Lunch" })
        #expect(Set(deleted.map(\.entityName)) == ["Event", "WorkEvent", "Trip", "BusinessTrip"])
        viewer.processPendingChanges()
        #expect(review.isDeleted)
        #expect(Self.titles(try viewer.fetch(FetchDescriptor<Event>())) == ["Lunch"])
    }

    @Test func aBatchUpdateOfASubentityChangesItsRowsOnly() throws {
        let container = try Self.container()
        try Self.filled(container)
        let context = container.newBackgroundContext()
        try context.batchUpdate(WorkEvent.self, set: [.set(\.day, to: 9)])
        let days = Dictionary(uniqueKeysWithValues: try context.fetch(FetchDescriptor<Event>()).map { ($0.title, $0.day) })
        #expect(days == ["Birthday": 1, "Lunch": 1, "Review": 9, "Call": 9, "Away": 1, "Fair": 1])

        // Through the root: a context holding the subentity's object hears of its change.
        let viewer = container.newBackgroundContext()
        let fair = try #require(try viewer.fetch(FetchDescriptor<BusinessTrip>()).first)
        let updated = try context.batchUpdate(Event.self, where: #Predicate { $0.title == "Fair" }, set: [.set(\.day, to: 4)])
        #expect(updated.map(\.entityName) == ["BusinessTrip"])
        viewer.processPendingChanges()
        #expect(fair.day == 4)
    }

    @Test func undoAChildContextAndAnAggregateWorkPerClass() throws {
        let container = try Self.container()
        try Self.filled(container)
        let context = container.newBackgroundContext()
        let undoManager = ObjectUndoManager()
        context.undoManager = undoManager
        let trip = try #require(try context.fetch(FetchDescriptor<BusinessTrip>()).first)
        trip.perDiem = 99
        trip.title = "Fair (moved)"
        undoManager.undo()
        #expect(trip.perDiem == 60 && trip.title == "Fair")

        let child = context.newChildContext()
        child.insert(WorkEvent(title: "Drafted", client: "Hooli", budget: 10))
        try child.save()
        try context.save()
        let budgets = try container.newBackgroundContext().aggregate(.sum(\WorkEvent.budget))
        #expect(budgets == 260)
        #expect(try container.newBackgroundContext().fetchCount(FetchDescriptor<Event>()) == 7)
    }

    @Test func aListMonitorOfTheRootShowsSubentitiesObjectsAndHearsTheirChanges() throws {
        let container = try Self.container()
        try Self.filled(container)
        let context = container.newBackgroundContext()
        let monitor = try context.monitorList(FetchDescriptor<Event>(sortBy: [SortDescriptor(\.title)]))
        #expect(monitor.objects.map(\.title) == ["Away", "Birthday", "Call", "Fair", "Lunch", "Review"])
        context.insert(WorkEvent(title: "Brainstorm", client: "ACME"))
        context.processPendingChanges()
        #expect(monitor.objects.map(\.title) == ["Away", "Birthday", "Brainstorm", "Call", "Fair", "Lunch", "Review"])
        let writer = container.newBackgroundContext()
        try #require(try writer.fetch(FetchDescriptor<BusinessTrip>()).first).title = "Zurich fair"
        try writer.save()
        context.processPendingChanges()
        #expect(monitor.objects.map(\.title).last == "Zurich fair")
        #expect(monitor.objects.last is BusinessTrip)
    }
}

/// Relationships in a hierarchy: a calendar's entries (to the root, any class), a client's
/// meetings (to a subentity), and an entry's follow-up (within the hierarchy).
@Entity final class Diary {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Entry2.diary) var entries: [Entry2] = []
    init(name: String) { self.name = name }
}

@Entity class Entry2 {
    var title: String
    var diary: Diary?
    @Relationship(inverse: \Entry2.previous) var followUp: Entry2?
    var previous: Entry2?
    init(title: String) { self.title = title }
}

@Entity final class Visit: Entry2 {
    var customer: Customer?
    var fee = 0
    init(title: String, fee: Int) {
        self.fee = fee
        super.init(title: title)
    }
}

@Entity final class Customer {
    var name: String
    @Relationship(deleteRule: .nullify, inverse: \Visit.customer) var visits: Set<Visit> = []
    init(name: String) { self.name = name }
}

@Suite("Entity inheritance: relationships to and from a hierarchy")
struct EntityHierarchyRelationshipTests {
    static func container(_ path: String? = nil) throws -> ObjectContainer {
        try ObjectContainer(for: Diary.self, Entry2.self, Visit.self, Customer.self, configuration: path.map { .file($0) } ?? .inMemory)
    }

    @Test func relationshipsToTheRootHoldObjectsOfEverySubentityAsTheirOwnClass() throws {
        let container = try Self.container()
        let context = container.newBackgroundContext()
        let diary = Diary(name: "Work")
        let note = Entry2(title: "Note")
        let visit = Visit(title: "Visit ACME", fee: 80)
        let acme = Customer(name: "ACME")
        for object in [diary, note, visit, acme] as [any Entity] { context.insert(object) }
        diary.entries = [note, visit]
        visit.customer = acme
        note.followUp = visit
        try context.save()

        let reader = container.newBackgroundContext()
        let work = try #require(try reader.fetch(FetchDescriptor<Diary>()).first)
        #expect(work.entries.map { "\(type(of: $0)) \($0.title)" } == ["Entry2 Note", "Visit Visit ACME"])
        let readNote = try #require(work.entries.first)
        let followUp = try #require(readNote.followUp as? Visit)
        #expect(followUp.fee == 80 && followUp.previous === readNote)
        #expect(followUp.customer?.name == "ACME")
        let customer = try #require(try reader.fetch(FetchDescriptor<Customer>()).first)
        #expect(customer.visits.map(\.title) == ["Visit ACME"])
        #expect(
            try reader.fetch(FetchDescriptor<Entry2>(predicate: #Predicate { $0.diary?.name == "Work" && $0 is Visit })).map(\.title) == [
                "Visit ACME"
            ])
        #expect(
            try reader.fetch(FetchDescriptor<Entry2>(predicate: #Predicate { ($0.followUp as? Visit)?.fee == 80 })).map(\.title) == ["Note"]
        )
    }

    /// A diary with a note and a visit to ACME, saved.
    static func diaryWithVisit() throws -> (container: ObjectContainer, context: ObjectContext, diary: Diary, acme: Customer) {
        let container = try Self.container()
        let context = container.newBackgroundContext()
        let diary = Diary(name: "Work")
        let visit = Visit(title: "Visit", fee: 10)
        let acme = Customer(name: "ACME")
        for object in [diary, visit, acme] as [any Entity] { context.insert(object) }
        diary.entries = [Entry2(title: "Note"), visit]
        visit.customer = acme
        try context.save()
        return (container, context, diary, acme)
    }

    @Test func deleteRulesReachObjectsOfSubentitiesInAContext() throws {
        let (container, context, diary, acme) = try Self.diaryWithVisit()

        let other = container.newBackgroundContext()
        let readVisit = try #require(try other.fetch(FetchDescriptor<Visit>()).first)
        #expect(readVisit.customer?.name == "ACME")
        context.delete(acme)  // nullify: the visit stays, without its customer
        try context.save()
        other.processPendingChanges()
        #expect(readVisit.customer == nil && !readVisit.isDeleted)
        context.delete(diary)  // cascade: both entries go
        try context.save()
        other.processPendingChanges()
        #expect(readVisit.isDeleted)
        #expect(try container.newBackgroundContext().fetchCount(FetchDescriptor<Entry2>()) == 0)
    }

    @Test func aBatchDeletionCascadesIntoAHierarchyAndReportsEachRowAsItsOwnEntitys() throws {
        let container = try Self.diaryWithVisit().container

        let viewer = container.newBackgroundContext()
        let readVisit = try #require(try viewer.fetch(FetchDescriptor<Visit>()).first)
        let readCustomer = try #require(try viewer.fetch(FetchDescriptor<Customer>()).first)
        #expect(readCustomer.visits.count == 1)
        let deleted = try container.newBackgroundContext().batchDelete(Diary.self)
        #expect(Set(deleted.map(\.entityName)) == ["Diary", "Entry2", "Visit"])
        viewer.processPendingChanges()
        #expect(readVisit.isDeleted)
        #expect(readCustomer.visits.isEmpty && !readCustomer.isDeleted)
        let history = try container.fetchHistory().last?.changes.map { "\($0.kind) \($0.entityName)" }.sorted()
        #expect(history?.contains("delete Visit") == true, "\(history ?? [])")
    }
}

/// A hierarchy whose classes each have a rule.
@Entity class Gadget {
    @Attribute(.length(1...)) var name: String
    init(name: String) { self.name = name }
}

@Entity final class Phone: Gadget {
    @Attribute(.range(1...10)) var cameras: Int
    init(name: String, cameras: Int) {
        self.cameras = cameras
        super.init(name: name)
    }
}

extension EntityHierarchyRelationshipTests {
    @Test func validationRulesAndTheHistoryAreEachClasssOwn() throws {
        let container = try ObjectContainer(for: Gadget.self, Phone.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        context.insert(Phone(name: "", cameras: 11))
        let error = #expect(throws: ObjectGraphError.self) { try context.save() }
        let failures = error?.validationFailures.map { "\($0.entity).\($0.property ?? "")" }.sorted()
        #expect(failures == ["Phone.cameras", "Phone.name"])
        context.rollback()

        context.insert(Phone(name: "Pixel", cameras: 3))
        context.insert(Gadget(name: "Lamp"))
        try context.save()
        let changes = try container.fetchHistory().flatMap(\.changes)
        #expect(changes.map(\.entityName).sorted() == ["Gadget", "Phone"])
    }
}

/// A subentity, before and after it was renamed, with an inherited attribute renamed too.
@Entity final class Slate: Gadget {
    var stylus = false
}

@Entity("Gadget") class GadgetRenamed {
    @Attribute(originalName: "name") var label: String
    init(label: String) { self.label = label }
}

@Entity("Tablet", originalName: "Slate") final class Tablet: GadgetRenamed {
    @Attribute(originalName: "stylus") var pen = false
}

extension EntityHierarchyRelationshipTests {
    @Test func aSubclassThatDeclaresNoInitializerInheritsItsParents() throws {
        let tablet = Tablet(label: "Slate 2")
        tablet.pen = true
        #expect(tablet.label == "Slate 2" && tablet.pen && tablet.objectID.entityName == "Tablet")
    }

    @Test func aRenamedSubentityAndARenamedInheritedAttributeKeepTheirRows() throws {
        let path = temporaryStorePath()
        do {
            let context = try ObjectContainer(for: Gadget.self, Slate.self, configuration: .file(path)).newBackgroundContext()
            let slate = Slate(name: "First")
            slate.stylus = true
            context.insert(slate)
            context.insert(Gadget(name: "Lamp"))
            try context.save()
        }
        let context = try ObjectContainer(for: GadgetRenamed.self, Tablet.self, configuration: .file(path)).newBackgroundContext()
        let gadgets = try context.fetch(FetchDescriptor<GadgetRenamed>(sortBy: [SortDescriptor(\.label)]))
        #expect(gadgets.map { "\(type(of: $0)) \($0.label)" } == ["Tablet First", "GadgetRenamed Lamp"])
        #expect((gadgets.first as? Tablet)?.pen == true)
    }
}

/// A subentity that declares no initializer: it inherits its parent's, the materializing one too.
@Entity final class Smartwatch: Gadget {
    var strap = "steel"
}

extension EntityHierarchyRelationshipTests {
    @Test func anObjectOfASubclassWithoutInitializersIsSavedAndFetchedAsItsClass() throws {
        let container = try ObjectContainer(for: Gadget.self, Smartwatch.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let watch = Smartwatch(name: "Chrono")
        watch.strap = "leather"
        context.insert(watch)
        try context.save()
        let gadgets = try container.newBackgroundContext().fetch(FetchDescriptor<Gadget>())
        let fetched = try #require(gadgets.first as? Smartwatch)
        #expect(fetched.name == "Chrono" && fetched.strap == "leather")
    }
}

/// A hierarchy whose subentity keeps a large value in a file.
@Entity class Paper {
    var title: String
    init(title: String) { self.title = title }
}

@Entity final class Scan: Paper {
    @Attribute(.externalStorage) var pages: Data?
    init(title: String, pages: Data?) {
        self.pages = pages
        super.init(title: title)
    }
}

extension EntityHierarchyRelationshipTests {
    @Test func aSubentitysValueInAFileIsReadThroughItsParentsFetchAndGoesWithItsRow() throws {
        let path = temporaryStorePath()
        let pages = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let container = try ObjectContainer(for: Paper.self, Scan.self, configuration: .file(path))
        let context = container.newBackgroundContext()
        context.insert(Scan(title: "Contract", pages: pages))
        context.insert(Paper(title: "Memo"))
        try context.save()
        let files = { ((try? FileManager.default.contentsOfDirectory(atPath: path + "-external")) ?? []).filter { $0 != "incoming" } }
        #expect(files().count == 1)

        let reader = container.newBackgroundContext()
        let documents = try reader.fetch(FetchDescriptor<Paper>(sortBy: [SortDescriptor(\.title)]))
        #expect((documents.first as? Scan)?.pages == pages)
        #expect(try reader.fetch(FetchDescriptor<Scan>(predicate: #Predicate { ($0.pages?.count ?? 0) > 100_000 })).count == 1)

        for document in documents { reader.delete(document) }
        try reader.save()
        reader.insert(Paper(title: "Next"))
        try reader.save()
        #expect(files().isEmpty)
    }
}

/// A hierarchy whose root and subentity each have searchable text.
@Entity class Article {
    @Attribute(.searchable) var headline: String
    init(headline: String) { self.headline = headline }
}

@Entity final class Review: Article {
    @Attribute(.searchable) var verdict: String
    var stars = 3
    init(headline: String, verdict: String, stars: Int) {
        self.verdict = verdict
        self.stars = stars
        super.init(headline: headline)
    }
}

extension EntityHierarchyRelationshipTests {
    @Test func aSearchOfAHierarchyFindsEachClassByAnyOfItsTextSavedOrNot() throws {
        let container = try ObjectContainer(for: Article.self, Review.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        context.insert(Article(headline: "Sunny days ahead"))
        context.insert(Review(headline: "A new café", verdict: "Sunny terrace, slow service", stars: 4))
        context.insert(Review(headline: "Rainy night", verdict: "Cosy", stars: 2))
        try context.save()
        context.insert(Review(headline: "Unsaved", verdict: "sunny and bright", stars: 5))

        let found = try context.search(Article.self, matching: "sunny")
        #expect(
            found.map { "\(type(of: $0.object)) \($0.object.headline)" }.sorted() == [
                "Article Sunny days ahead", "Review A new café", "Review Unsaved"
            ])
        let reviews = try context.search(Review.self, matching: "sun", where: #Predicate { $0.stars >= 4 })
        #expect(reviews.map(\.object.headline).sorted() == ["A new café", "Unsaved"])
        #expect(reviews.contains { $0.snippet.description.contains("[Sunny] terrace") })
    }
}
