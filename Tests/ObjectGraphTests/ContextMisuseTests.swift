import Foundation
import MoodyModel
import ObjectGraph
import Testing

/// Using an object with a context it does not belong to is an error, not a silent no-op (issue 10,
/// point 3). Core Data refuses the same; the object must be looked up in the other context by ID.
@Suite struct ContextMisuseTests {
    /// A saved mood and country in a first context, and a second context of the same container.
    private func twoContexts() throws -> (first: ObjectContext, second: ObjectContext, mood: Mood, france: Country) {
        let container = try makeContainer()
        let first = container.newBackgroundContext()
        let france = Country(name: "France")
        let mood = Mood(text: "Sunny", country: france)
        first.insert(mood)
        try first.save()
        return (first, container.newBackgroundContext(), mood, france)
    }

    private func expectWrongContext(
        _ object: any Entity, _ body: () throws -> Void,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let error = #expect(throws: ObjectGraphError.self, sourceLocation: sourceLocation) { try body() }
        guard let thrown = error, thrown.code == .wrongContext, let id = thrown.objectID else {
            Issue.record("expected wrongContext, got \(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
        #expect(id == object.objectID, sourceLocation: sourceLocation)
        #expect(error?.description.contains(object.objectID.description) == true, sourceLocation: sourceLocation)
    }

    @Test func insertingAnObjectOfAnotherContextFailsTheNextSave() throws {
        let (first, second, mood, _) = try twoContexts()
        second.insert(mood)
        expectWrongContext(mood) { try second.save() }
        #expect(mood.objectContext === first)
        #expect(second.insertedObjects.isEmpty)
    }

    @Test func aMisuseInAWillSaveHookFailsThatSaveAndWritesNothing() throws {
        let container = try ObjectContainer(for: HookedNote.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let note = HookedNote(text: "Draft")
        context.insert(note)
        note.onWillSave = { context.insert(Sample()) }  // not an entity of this container
        let error = #expect(throws: ObjectGraphError.self) { try context.save() }
        #expect(error?.code == .unknownEntity)
        #expect(try container.newBackgroundContext().fetchCount(FetchDescriptor<HookedNote>()) == 0)

        note.onWillSave = nil
        try context.save()
        #expect(try container.newBackgroundContext().fetchCount(FetchDescriptor<HookedNote>()) == 1)
    }

    @Test func deletingAnObjectOfAnotherContextFailsAndDeletesNothing() throws {
        let (first, second, mood, _) = try twoContexts()
        second.delete(mood)
        expectWrongContext(mood) { try second.save() }
        #expect(!mood.isDeleted)
        #expect(try first.fetchCount(FetchDescriptor<Mood>()) == 1)
    }

    @Test func relatingObjectsOfTwoContextsFailsAndLinksNothing() throws {
        let (first, second, mood, france) = try twoContexts()
        let spain = Country(name: "Spain")
        let rainy = Mood(text: "Rainy", country: spain)
        second.insert(rainy)
        rainy.country = france  // france belongs to the first context
        expectWrongContext(france) { try second.save() }
        #expect(rainy.country === spain)

        spain.moods = [rainy, mood]  // so does the mood
        expectWrongContext(mood) { try second.save() }
        #expect(spain.moods == [rainy])
        try second.save()  // what was refused is not saved later either
        #expect(mood.country === france)
        withExtendedLifetime(first) {}
    }

    @Test func anObjectOfAnotherContextGivenToAnInitializerIsRefusedAtInsertion() throws {
        let (first, second, _, france) = try twoContexts()
        let cloudy = Mood(text: "Cloudy", country: france)
        second.insert(cloudy)
        expectWrongContext(france) { try second.save() }
        #expect(cloudy.country == nil)
        withExtendedLifetime(first) {}
    }
}
