import Foundation
import MoodyModel
import ObjectGraph
import Testing

/// Seed 001: context A holds a fault; context B deletes its row and saves; A has not merged (issue 4,
/// point 6).
@Suite struct InaccessibleFaultTests {
    /// A saved mood, a fault for it in a second context, and the mood deleted by the first context.
    private func deletedUnderAFault() throws -> (ObjectContext, Mood) {
        let container = try makeContainer()
        let writer = container.newBackgroundContext()
        let mood = Mood(text: "Sunny", rating: 5)
        writer.insert(mood)
        try writer.save()
        let reader = container.newBackgroundContext()
        reader.automaticallyMergesChanges = false
        let fault = try #require(reader.object(with: mood.objectID, as: Mood.self))
        #expect(fault.isFault)
        writer.delete(mood)
        try writer.save()
        return (reader, fault)
    }

    @Test func withDeletionOnTheFaultBecomesDeletedAndReadsDefaults() throws {
        let (reader, fault) = try deletedUnderAFault()
        var changes: [ObjectsDidChange] = []
        let token = reader.observeObjectsDidChange { changes.append($0) }
        #expect(fault.rating == 3)  // the declared default
        #expect(fault.text == "")  // the type's default: no default is declared
        #expect(fault.isDeleted)
        #expect(throws: ObjectGraphError.inaccessibleFault(fault.objectID)) { try fault.checkedValue(\.text) }
        reader.processPendingChanges()
        #expect(changes.first?.deletedObjects.first === fault)
        try reader.save()  // nothing to delete again
        withExtendedLifetime((reader, token)) {}
    }

    @Test func withDeletionOffTheThrowingAccessorReportsIt() throws {
        let (reader, fault) = try deletedUnderAFault()
        reader.shouldDeleteInaccessibleFaults = false
        #expect(throws: ObjectGraphError.inaccessibleFault(fault.objectID)) { try fault.checkedValue(\.text) }
        // The plain accessors still read the defaults, and the object is not marked deleted.
        #expect(fault.rating == 3 && fault.text == "")
        #expect(!fault.isDeleted)
        withExtendedLifetime(reader) {}
    }

    @Test func aToManyWhoseMembersWereDeletedReadsWhatIsLeft() throws {
        let container = try makeContainer()
        let writer = container.newBackgroundContext()
        let (_, france, _) = try makeEurope(in: writer)
        let moods = ["a", "b", "c"].map { Mood(text: $0, country: france) }
        for mood in moods { writer.insert(mood) }
        try writer.save()

        let reader = container.newBackgroundContext()
        reader.automaticallyMergesChanges = false
        let readFrance = try reader.existingObject(with: france.objectID, as: Country.self)
        let members = Array(readFrance.moods)  // faults for the three moods, held
        writer.delete(moods[0])
        writer.delete(moods[1])
        try writer.save()

        // Members already known read as deleted once read; the relationship itself still lists them
        // until the reader merges or refreshes France.
        let texts = members.map(\.text).sorted()
        #expect(texts == ["", "", "c"])
        #expect(members.filter(\.isDeleted).count == 2)
        #expect(readFrance.count(of: \.moods) == 1)
        // A fresh look at the relationship reads what is left.
        reader.refresh(readFrance, mergeChanges: false)
        #expect(readFrance.moods.map(\.text) == ["c"])
    }
}
