import Foundation
import MoodyModel
import ObjectGraph
import Testing

/// Objects found and inserted by their global IDs, the identity that holds across stores (what a
/// sync layer or an importer names objects by).
@Suite struct GlobalIDTests {
    @Test func objectsAreFoundByTheirGlobalIDsSavedNewOrNot() throws {
        let container = try makeContainer()
        let writer = container.newBackgroundContext()
        let moods = (0..<1_200).map { Mood(text: "m\($0)") }  // more than one query's worth
        for mood in moods { writer.insert(mood) }
        try writer.save()
        let globalIDs = moods.map(\.objectGlobalID)

        let reader = container.newBackgroundContext()
        let found = try reader.objects(withGlobalIDs: globalIDs, as: Mood.self)
        #expect(found.count == 1_200)
        #expect(found[globalIDs[7]]?.text == "m7")
        #expect(found[globalIDs[7]]?.objectID == moods[7].objectID)

        // A new object of the context counts; one deleted here, an unknown ID and another entity do not.
        let new = Mood(text: "new")
        reader.insert(new)
        let gone = try #require(found[globalIDs[0]])
        reader.delete(gone)
        let unknown = UUID()
        let again = try reader.objects(withGlobalIDs: [new.objectGlobalID, globalIDs[0], unknown, globalIDs[1]], as: Mood.self)
        #expect(Set(again.keys) == [new.objectGlobalID, globalIDs[1]])
        #expect(again[new.objectGlobalID] === new)
        #expect(try reader.object(withGlobalID: globalIDs[1], as: Country.self) == nil)
    }

    @Test func objectsFoundByGlobalIDComeWithTheirValuesAndKeepThoseTheContextChanged() throws {
        let container = try makeContainer()
        let writer = container.newBackgroundContext()
        let moods = (0..<3).map { Mood(text: "m\($0)", rating: $0 + 1) }
        for mood in moods { writer.insert(mood) }
        try writer.save()

        let reader = container.newBackgroundContext()
        let edited = try #require(try reader.fetch(FetchDescriptor<Mood>(predicate: #Predicate { $0.rating == 2 })).first)
        edited.text = "edited here"
        let fault = try #require(reader.object(with: moods[2].objectID) as? Mood)
        #expect(fault.isFault)

        let found = try reader.objects(withGlobalIDs: moods.map(\.objectGlobalID), as: Mood.self)
        #expect(found.values.allSatisfy { !$0.isFault })  // read with the lookup, not a query each later
        #expect(found[moods[0].objectGlobalID]?.text == "m0")
        #expect(found[moods[1].objectGlobalID] === edited)
        #expect(edited.text == "edited here")  // an object the context holds keeps its values
        #expect(found[moods[2].objectGlobalID] === fault)
        #expect(fault.text == "m2")
    }

    @Test func aNewObjectKeepsTheGlobalIDItIsInsertedWith() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let globalID = UUID()
        let mood = Mood(text: "from another device")
        try context.insert(mood, globalID: globalID)
        #expect(mood.objectGlobalID == globalID)
        try context.save()

        let reader = container.newBackgroundContext()
        let copy = try #require(try reader.object(withGlobalID: globalID, as: Mood.self))
        #expect(copy.text == "from another device" && copy.objectGlobalID == globalID)

        // An object already inserted keeps its identity.
        #expect(throws: ObjectGraphError.self) { try context.insert(mood, globalID: UUID()) }
        #expect(mood.objectGlobalID == globalID)
    }

    @Test func anObjectOfATypeKnownAtRunTimeIsInsertedWithItsDefaultsAndFilledByName() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let globalID = UUID()
        let type: any Entity.Type = Mood.self
        func make<T: Entity>(_ type: T.Type) -> any Entity { context.insertNewObject(of: type, globalID: globalID) }
        let object = make(type)
        let mood = try #require(object as? Mood)
        #expect(mood.isInserted && mood.objectGlobalID == globalID)
        #expect(mood.rating == 3, "the declared default")
        #expect(throws: ObjectGraphError.self) { try context.save() }  // `text` and `date` are required
        try mood.setStoredValue(.text("made by name"), forKey: "text")
        try mood.setStoredValue(.real(0), forKey: "date")
        try context.save()
        let reader = container.newBackgroundContext()
        let copy = try #require(try reader.object(withGlobalID: globalID, as: Mood.self))
        #expect(copy.text == "made by name" && copy.rating == 3)
    }

    @Test func aGlobalIDGivenTwiceFailsTheSaveNamingIt() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let globalID = UUID()
        try context.insert(Mood(text: "first"), globalID: globalID)
        try context.save()
        let second = Mood(text: "second")
        try context.insert(second, globalID: globalID)
        let error = #expect(throws: ObjectGraphError.self) { try context.save() }
        guard let thrown = error, thrown.code == .validationFailed, case let failures = thrown.validationFailures else {
            Issue.record("expected validationFailed, got \(String(describing: error))")
            return
        }
        #expect(failures.map(\.property) == ["objectGlobalID"])
        #expect(failures.first?.reason == .notUnique(globalID.storedValue))
        #expect(try container.newBackgroundContext().fetchCount(FetchDescriptor<Mood>()) == 1, "nothing written")
    }
}
