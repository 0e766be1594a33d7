import Foundation
import MoodyModel
import ObjectGraph
import Testing

/// WillSave and DidSave (issue 4, point 2), by callback and as async sequences.
@Suite struct SaveNotificationTests {
    @Test func didSaveNamesWhatTheTransactionWrote() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        context.name = "editor"
        var saves: [DidSave] = []
        let token = context.observeDidSave { saves.append($0) }
        let (europe, france, spain) = try makeEurope(in: context)

        #expect(saves.count == 1)
        #expect(saves[0].insertedObjectIDs == [europe.objectID, france.objectID, spain.objectID])
        #expect(saves[0].insertedObjectIDs.allSatisfy { !$0.isTemporary })
        #expect(saves[0].updatedObjectIDs.isEmpty && saves[0].deletedObjectIDs.isEmpty)
        #expect(saves[0].author == "editor")

        france.name = "République française"
        context.delete(spain)
        try context.save()
        #expect(saves.count == 2)
        // Spain left Europe's countries (nullify): Europe changed too.
        #expect(saves[1].updatedObjectIDs == [france.objectID: ["name"], europe.objectID: ["countries"]])
        #expect(saves[1].deletedObjectIDs == [spain.objectID])
        #expect(saves[1].sequence > saves[0].sequence)
        #expect(saves[1].date >= saves[0].date)
        withExtendedLifetime(token) {}
    }

    @Test func sequenceNumbersGrowAcrossContextsOfAStore() throws {
        let container = try makeContainer()
        let first = container.newBackgroundContext(), second = container.newBackgroundContext()
        var sequences: [Int64] = []
        let tokens = [first, second].map { $0.observeDidSave { sequences.append($0.sequence) } }
        for index in 0..<4 {
            let context = index.isMultiple(of: 2) ? first : second
            context.insert(Country(name: "Country \(index)"))
            try context.save()
        }
        #expect(sequences.count == 4)
        #expect(sequences == sequences.sorted() && Set(sequences).count == 4)
        withExtendedLifetime(tokens) {}
    }

    @Test func willSaveComesFirstAndAFailedSavePostsNoDidSave() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        var events: [String] = []
        let tokens = [
            context.observeWillSave { note in events.append("will \(note.insertedObjectIDs.count)") },
            context.observeDidSave { _ in events.append("did") }
        ]
        context.insert(Country(name: "France"))
        try context.save()
        context.insert(Country(name: "France"))  // not unique: the save fails
        #expect(throws: ObjectGraphError.self) { try context.save() }
        #expect(events == ["will 1", "did", "will 1"])
        // Nothing to save, nothing posted.
        context.rollback()
        try context.save()
        #expect(events.count == 3)
        withExtendedLifetime(tokens) {}
    }

    @Test func releasingTheTokenStopsDelivery() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        var count = 0
        var token: ObservationToken? = context.observeDidSave { _ in count += 1 }
        context.insert(Country(name: "France"))
        try context.save()
        token = nil
        context.insert(Country(name: "Spain"))
        try context.save()
        #expect(count == 1)
        #expect(token == nil)
    }

    @Test func didSaveAsAnAsyncSequence() async throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let saves = context.didSaveNotifications
        context.insert(Country(name: "France"))
        try context.save()
        context.insert(Country(name: "Spain"))
        try context.save()
        var received: [DidSave] = []
        for await save in saves {
            received.append(save)
            if received.count == 2 { break }
        }
        #expect(received.map(\.insertedObjectIDs.count) == [1, 1])
        #expect(received[0].sequence < received[1].sequence)
    }
}
