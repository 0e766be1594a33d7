import Foundation
import MoodyModel
import ObjectGraph
import Testing

/// Object IDs as values: encoded and decoded, and used in predicates (issue 11).
@Suite struct ObjectIDTests {
    @Test func aPermanentIDEncodesAsItsStringAndDecodesToTheSameID() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let mood = Mood(text: "Sunny")
        context.insert(mood)
        try context.save()
        let data = try JSONEncoder().encode([mood.objectID])
        #expect(
            String(decoding: data, as: UTF8.self) == "[\"\(mood.objectID.uriRepresentation.replacingOccurrences(of: "/", with: "\\/"))\"]")
        let decoded = try JSONDecoder().decode([ObjectID].self, from: data)
        #expect(decoded == [mood.objectID])
        #expect(try container.newBackgroundContext().existingObject(with: decoded[0], as: Mood.self).text == "Sunny")
    }

    @Test func aTemporaryIDIsNotEncoded() throws {
        let context = try makeContainer().newBackgroundContext()
        let mood = Mood(text: "Unsaved")
        context.insert(mood)
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(mood.objectID) }
    }

    @Test func stringsThatAreNotIDsOfAnOpenedStoreAreNotDecoded() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let mood = Mood(text: "Sunny")
        context.insert(mood)
        try context.save()
        let valid = mood.objectID.uriRepresentation
        let unknownStore = valid.replacingOccurrences(of: valid.dropFirst(16).prefix(36), with: UUID().uuidString)
        for string in [
            "mood 1", valid.replacingOccurrences(of: "/p", with: "/t"), unknownStore,
            valid.replacingOccurrences(of: "/Mood/", with: "/Nothing/")
        ] {
            #expect(throws: DecodingError.self, "\(string)") {
                try JSONDecoder().decode(ObjectID.self, from: JSONEncoder().encode(string))
            }
        }
    }

    /// `contains` and `==` over IDs, saved and unsaved, checked against Swift's own evaluation.
    @Test func predicatesOverIDsAgreeWithSwiftsEvaluation() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let (_, france, spain) = try makeEurope(in: context)
        let moods = (0..<10).map { Mood(text: "mood \($0)", country: $0.isMultiple(of: 2) ? france : nil) }
        moods.forEach(context.insert)
        try context.save()
        let extra = Mood(text: "unsaved", country: spain)
        context.insert(extra)
        let picked = [
            moods[1].objectID, moods[4].objectID, moods[7].objectID, extra.objectID,
            france.objectID
        ]  // an ID of another entity matches no mood
        let one = moods[4].objectID, countryID = france.objectID
        let predicates: [(String, Predicate<Mood>)] = [
            ("contains", #Predicate { picked.contains($0.objectID) }),
            ("not contains", #Predicate { !picked.contains($0.objectID) }),
            ("==", #Predicate { $0.objectID == one }),
            ("!=", #Predicate { $0.objectID != one }),
            ("== another entity's ID", #Predicate { $0.objectID == countryID }),
            ("to-one ==", #Predicate { $0.country?.objectID == countryID }),
            ("to-one !=", #Predicate { $0.country?.objectID != countryID }),
            ("to-one == nil", #Predicate { $0.country?.objectID == nil })
        ]
        let all = moods + [extra]
        for (name, predicate) in predicates {
            let expected = try Set(all.filter { try predicate.evaluate($0) }.map(\.text))
            let fetched = try Set(context.fetch(FetchDescriptor(predicate: predicate)).map(\.text))
            #expect(fetched == expected, "\(name)")
            // The saved objects alone, through SQL only, from a context that has none of them.
            let fresh = try container.newBackgroundContext().fetch(FetchDescriptor(predicate: predicate)).map(\.text)
            #expect(Set(fresh) == expected.subtracting(["unsaved"]), "\(name), from the store")
        }
        #expect(try context.fetch(FetchDescriptor(predicate: #Predicate<Mood> { picked.contains($0.objectID) })).count == 4)
    }

    @Test func idsCompareOnlyWithEqualityAndContains() throws {
        let context = try makeContainer().newBackgroundContext()
        let ids: [ObjectID] = []
        let error = #expect(throws: ObjectGraphError.self) {
            try context.fetch(FetchDescriptor<Mood>(predicate: #Predicate { ids.isEmpty && $0.objectID.isTemporary }))
        }
        guard let thrown = error, thrown.code == .unsupportedPredicate, thrown.entity == "Mood" else {
            Issue.record("expected unsupportedPredicate, got \(String(describing: error))")
            return
        }
    }
}
