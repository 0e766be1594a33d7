import Foundation
import MoodyModel
import ObjectGraph
import Testing

/// Properties named at run time (Core Data's `value(forKey:)`): attributes in their stored form,
/// relationships as objects, through the same paths as the accessors.
@Suite struct PropertiesByNameTests {
    @Test func attributesAreReadAndWrittenByNameAsStoredValues() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let mood = Mood(text: "Sunny", rating: 4)
        context.insert(mood)
        try context.save()

        let reader = container.newBackgroundContext()
        let copy = try reader.existingObject(with: mood.objectID, as: Mood.self)
        reader.refresh(copy, mergeChanges: false)  // a fault: read by name, it loads
        #expect(try copy.storedValue(forKey: "rating") == .integer(4))
        #expect(try copy.storedValue(forKey: "text") == .text("Sunny"))
        #expect(try copy.storedValue(forKey: "remoteIdentifier") == .null)

        try copy.setStoredValue(.integer(2), forKey: "rating")
        try copy.setStoredValue(.text("r-1"), forKey: "remoteIdentifier")
        #expect(copy.rating == 2 && copy.remoteIdentifier == "r-1")
        #expect(copy.changedPersistentKeys == ["rating", "remoteIdentifier"])
        try reader.save()
        let stored = try container.newBackgroundContext().existingObject(with: mood.objectID, as: Mood.self)
        #expect(stored.rating == 2 && stored.remoteIdentifier == "r-1")
    }

    @Test func aWrongNameOrAValueOfAnotherKindIsRefusedAndChangesNothing() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let mood = Mood(text: "Sunny")
        context.insert(mood)
        try context.save()

        func reason(_ body: () throws -> Void) -> String? {
            let error = #expect(throws: ObjectGraphError.self) { try body() }
            guard let thrown = error, thrown.code == .invalidPropertyAccess, let entity = thrown.entity, let reason = thrown.reason,
                entity == "Mood"
            else { return nil }
            return reason
        }
        #expect(reason { _ = try mood.storedValue(forKey: "colour") }?.contains("no property") == true)
        #expect(reason { _ = try mood.storedValue(forKey: "country") }?.contains("relationship") == true)
        #expect(reason { try mood.setStoredValue(.text("high"), forKey: "rating") }?.contains("Int") == true)
        #expect(reason { try mood.setStoredValue(.null, forKey: "text") }?.contains("required") == true)
        #expect(reason { _ = try mood.relatedObjects(forKey: "text") }?.contains("attribute") == true)
        #expect(!mood.hasChanges)
    }

    @Test func relationshipsAreReadAndSetByNameWithTheirInverses() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let (europe, france, spain) = try makeEurope(in: context)
        let mood = Mood(text: "Sunny", country: france)
        context.insert(mood)
        try context.save()

        #expect(try mood.relatedObjects(forKey: "country").map(\.objectID) == [france.objectID])
        #expect(Set(try europe.relatedObjects(forKey: "countries").map(\.objectID)) == [france.objectID, spain.objectID])

        try mood.setRelatedObjects([spain], forKey: "country")
        #expect(mood.country === spain && spain.moods.contains(mood) && !france.moods.contains(mood))
        try spain.setRelatedObjects([], forKey: "moods")
        #expect(mood.country == nil)

        let error = #expect(throws: ObjectGraphError.self) { try mood.setRelatedObjects([europe], forKey: "country") }
        guard let thrown = error, thrown.code == .invalidPropertyAccess, thrown.property == "country", let reason = thrown.reason else {
            Issue.record("expected invalidPropertyAccess, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("Continent"))
        #expect(throws: ObjectGraphError.self) { try mood.setRelatedObjects([france, spain], forKey: "country") }
        #expect(mood.country == nil, "nothing changed")
    }
}
