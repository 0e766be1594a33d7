import Foundation
import MoodyModel
import ObjectGraph
import Testing

/// An actor made with `@ObjectActor`: the compiler keeps its context on it.
@ObjectActor
actor MoodImporter {
    func add(_ text: String) throws -> ObjectID {
        let mood = Mood(text: text)
        objectContext.insert(mood)
        try objectContext.save()
        return mood.objectID
    }

    /// The context cannot leave the actor (it is not `Sendable`); its name can.
    func contextName() -> String? { objectContext.name }

    func count() throws -> Int {
        try objectContext.fetchCount(FetchDescriptor<Mood>())
    }

    func rename(_ id: ObjectID, to text: String) throws {
        let mood: Mood = try existingObject(with: id)
        mood.text = text
        try objectContext.save()
    }
}

@Suite struct ObjectActorTests {
    @Test func anObjectActorOwnsABackgroundContextNamedAfterIt() async throws {
        let container = try makeContainer()
        let importer = MoodImporter(objectContainer: container)
        #expect(importer.objectContainer === container)
        let name = await importer.contextName()
        #expect(name == "MoodImporter")
        let id = try await importer.add("Calm")
        let history = try container.fetchHistory()
        #expect(history.last?.author == "MoodImporter")
        #expect(try container.newBackgroundContext().existingObject(with: id, as: Mood.self).text == "Calm")
    }

    @Test func callsFromManyTasksRunOneAtATimeOnTheActorsContext() async throws {
        let container = try makeContainer()
        let importer = MoodImporter(objectContainer: container)
        try await withThrowingTaskGroup(of: ObjectID.self) { group in
            for index in 0..<100 { group.addTask { try await importer.add("mood \(index)") } }
            for try await _ in group {}
        }
        #expect(try await importer.count() == 100)
        #expect(try container.newBackgroundContext().fetchCount(FetchDescriptor<Mood>()) == 100)
    }

    @MainActor @Test func theViewContextHearsTheActorsSaves() async throws {
        let container = try makeContainer()
        let view = container.viewContext
        let mood = Mood(text: "Calm")
        view.insert(mood)
        try view.save()
        let importer = MoodImporter(objectContainer: container)
        try await importer.rename(mood.objectID, to: "Busy")
        view.processPendingChanges()
        #expect(mood.text == "Busy")
    }
}
