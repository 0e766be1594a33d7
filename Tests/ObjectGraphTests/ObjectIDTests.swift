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

    @Test func idsOfTheSameKeyInTwoStoresDifferAndTwoContainersOfOneFileShareThem() throws {
        func savedMoodID(in container: ObjectContainer) throws -> ObjectID {
            let context = container.newBackgroundContext()
            let mood = Mood(text: "First")
            context.insert(mood)
            try context.save()
            return mood.objectID
        }
        let first = try makeContainer()
        let second = try makeContainer()
        let firstID = try savedMoodID(in: first)
        let secondID = try savedMoodID(in: second)
        // The same entity and key; only the store differs.
        #expect(firstID.uriRepresentation.hasSuffix("/Mood/p1") && secondID.uriRepresentation.hasSuffix("/Mood/p1"))
        #expect(firstID != secondID)
        #expect(Set([firstID, secondID]).count == 2)
        #expect(firstID.uriRepresentation != secondID.uriRepresentation)
        #expect(try first.objectID(forURIRepresentation: firstID.uriRepresentation) == firstID)
        #expect(throws: ObjectGraphError.self) { try first.objectID(forURIRepresentation: secondID.uriRepresentation) }
        let decoded = try JSONDecoder().decode([ObjectID].self, from: JSONEncoder().encode([firstID, secondID]))
        #expect(decoded == [firstID, secondID])

        let path = temporaryStorePath()
        let writer = try ObjectContainer(for: Mood.self, configuration: .file(path))
        let fileID = try savedMoodID(in: writer)
        let reader = try ObjectContainer(for: Mood.self, configuration: .file(path))
        let read = try reader.newBackgroundContext().fetch(FetchDescriptor<Mood>())
        #expect(read.map(\.objectID) == [fileID])
        #expect(try reader.objectID(forURIRepresentation: fileID.uriRepresentation) == fileID)
        #expect(try reader.newBackgroundContext().existingObject(with: fileID, as: Mood.self).text == "First")
    }

    /// Every fetched object pays for its ID and its state's header, and every set of IDs for the
    /// ID: a field added to either shows here before it shows in the benchmark's memory line.
    @Test func anIDTakesTwentyBytesAndAStatesHeaderEightWords() {
        #expect(MemoryLayout<ObjectID>.size == 20)
        #expect(MemoryLayout<ObjectID>.stride == 24)
        #expect(MemoryLayout<_ObjectStateHeader>.size == 64)
    }
}
