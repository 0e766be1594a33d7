import Foundation
import MoodyModel
import ObjectGraph
import Testing

@Suite struct ContextTests {
    @Test func insertSaveAndFetchInAnotherContext() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let france = Country(name: "France")
        let mood = Mood(text: "Happy", rating: 5, country: france)
        context.insert(mood)
        #expect(context.hasChanges)
        #expect(mood.objectID.isTemporary)
        #expect(france.objectContext === context, "related objects are inserted with the object")
        try context.save()
        #expect(!context.hasChanges)
        #expect(!mood.objectID.isTemporary)
        #expect(mood.objectVersion == 1)

        let other = container.newBackgroundContext()
        let fetched = try other.fetch(FetchDescriptor<Mood>())
        #expect(fetched.count == 1)
        let copy = try #require(fetched.first)
        #expect(copy !== mood)
        #expect(copy.objectID == mood.objectID)
        #expect(copy.objectGlobalID == mood.objectGlobalID)
        #expect(copy.text == "Happy")
        #expect(copy.rating == 5)
        #expect(copy.country?.name == "France")
        #expect(copy.country?.moods == [copy])
    }

    @Test func uniquingGivesOneObjectPerID() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        context.insert(Mood(text: "a", country: Country(name: "France")))
        try context.save()
        let reader = container.newBackgroundContext()
        let first = try reader.fetch(FetchDescriptor<Mood>())[0]
        let second = try reader.fetch(FetchDescriptor<Mood>())[0]
        #expect(first === second)
        #expect(first.country === reader.object(with: try #require(first.country).objectID))
    }

    @Test func defaultValuesAndAllAttributeKinds() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let mood = Mood(text: "plain", date: Date(timeIntervalSince1970: 1_000))
        #expect(mood.rating == 3, "declared default before insertion")
        context.insert(mood)
        try context.save()
        let copy = try container.newBackgroundContext().existingObject(with: mood.objectID, as: Mood.self)
        #expect(copy.rating == 3)
        #expect(copy.date == Date(timeIntervalSince1970: 1_000))
        #expect(copy.remoteIdentifier == nil)
        #expect(copy.markedForDeletionDate == nil)
    }

    @Test func relationshipInverseIsUpdatedOnBothSides() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let france = Country(name: "France")
        let spain = Country(name: "Spain")
        let mood = Mood(text: "x")
        context.insert(france)
        context.insert(spain)
        context.insert(mood)
        mood.country = france
        #expect(france.moods == [mood])
        mood.country = spain
        #expect(france.moods.isEmpty)
        #expect(spain.moods == [mood])
        spain.moods = []
        #expect(mood.country == nil)
        france.moods.insert(mood)
        #expect(mood.country === france)
        try context.save()

        let reader = container.newBackgroundContext()  // objects hold their context weakly: keep it
        let copy = try reader.existingObject(with: france.objectID, as: Country.self)
        #expect(copy.moods.map(\.text) == ["x"])
    }

    @Test func objectIDStringSurvivesReopening() throws {
        let path = temporaryStorePath()
        var uri = ""
        do {
            let container = try ObjectContainer(for: Mood.self, configuration: .file(path))
            let context = container.newBackgroundContext()
            let mood = Mood(text: "persisted")
            context.insert(mood)
            try context.save()
            uri = mood.objectID.uriRepresentation
        }
        let reopened = try ObjectContainer(for: Mood.self, configuration: .file(path))
        let id = try reopened.objectID(forURIRepresentation: uri)
        let mood = try reopened.newBackgroundContext().existingObject(with: id, as: Mood.self)
        #expect(mood.text == "persisted")
        #expect(throws: ObjectGraphError.invalidObjectIDString("nonsense")) {
            try reopened.objectID(forURIRepresentation: "nonsense")
        }
    }

    @Test func rollbackRestoresSavedValuesAndForgetsInserts() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let mood = Mood(text: "before", country: Country(name: "France"))
        context.insert(mood)
        try context.save()
        mood.text = "after"
        let extra = Mood(text: "new")
        context.insert(extra)
        #expect(mood.changedPersistentKeys == ["text"])
        context.rollback()
        #expect(mood.text == "before")
        #expect(!context.hasChanges)
        #expect(try context.fetchCount(FetchDescriptor<Mood>()) == 1)
    }

    @Test func refreshDiscardsOrMergesChanges() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let mood = Mood(text: "saved", rating: 1)
        context.insert(mood)
        try context.save()
        mood.text = "local"
        context.refresh(mood, mergeChanges: false)
        #expect(mood.isFault)
        #expect(mood.text == "saved")

        let other = container.newBackgroundContext()
        let copy = try other.existingObject(with: mood.objectID, as: Mood.self)
        copy.rating = 5
        try other.save()
        mood.text = "mine"
        context.refresh(mood, mergeChanges: true)
        #expect(mood.text == "mine", "unsaved local change kept")
        #expect(mood.rating == 5, "store value merged")
    }

    @Test func deletedObjectIsGoneAfterSave() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let (_, france, spain) = try makeEurope(in: context)
        context.delete(france)
        #expect(france.isDeleted)
        #expect(spain.continent?.countries.map(\.name) == ["Spain"])
        try context.save()
        let reader = container.newBackgroundContext()
        #expect(try reader.fetchCount(FetchDescriptor<Country>()) == 1)
        #expect(throws: ObjectGraphError.objectNotFound(france.objectID)) {
            try reader.existingObject(with: france.objectID)
        }
    }

    @Test func faultsLoadWhenRead() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let mood = Mood(text: "fault me", country: Country(name: "France"))
        context.insert(mood)
        try context.save()
        let reader = container.newBackgroundContext()
        let fault = try #require(reader.object(with: mood.objectID, as: Mood.self))
        #expect(fault.isFault)
        #expect(fault.text == "fault me")
        #expect(!fault.isFault)
    }

    @Test func readingAFaultWhoseRowWasDeletedDoesNotTrap() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let mood = Mood(text: "doomed", rating: 4)
        context.insert(mood)
        try context.save()
        let reader = container.newBackgroundContext()
        let fault = try #require(reader.object(with: mood.objectID, as: Mood.self))
        context.delete(mood)
        try context.save()
        #expect(fault.text == "")
        #expect(fault.rating == 3, "the declared default")
        #expect(fault.isDeleted)
    }
}

@Suite struct ChangeTrackingTests {
    @Test func aContextReportsItsInsertedUpdatedAndDeletedObjects() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let (europe, france, spain) = try makeEurope(in: context)
        #expect(!context.hasChanges)

        let italy = Country(name: "Italy")
        context.insert(italy)
        france.name = "République française"
        context.delete(spain)
        #expect(context.hasChanges)
        #expect(context.insertedObjects.map(\.objectID) == [italy.objectID])
        #expect(Set(context.updatedObjects.map(\.objectID)).contains(france.objectID))
        #expect(!context.updatedObjects.contains { $0.objectID == italy.objectID }, "inserted objects are not updated ones")
        #expect(context.deletedObjects.map(\.objectID) == [spain.objectID])
        #expect(italy.isInserted && france.isUpdated && spain.isDeleted)
        #expect(france.changedPersistentKeys == ["name"])
        #expect(france.committedValue(forKey: "name") == .text("France"))
        #expect(!europe.countries.contains(spain), "nullify ran at delete")

        try context.save()
        #expect(!context.hasChanges)
        #expect(context.insertedObjects.isEmpty && context.updatedObjects.isEmpty && context.deletedObjects.isEmpty)
        #expect(!italy.objectID.isTemporary)
        #expect(!france.isUpdated && france.changedPersistentKeys.isEmpty)
    }
}

@Suite struct IdentityTests {
    @Test func aFaultKnowsItsGlobalIDAndVersionOnceRead() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let (_, france, _) = try makeEurope(in: context)
        let reader = container.newBackgroundContext()
        let fault = try #require(reader.object(with: france.objectID, as: Country.self))
        #expect(fault.isFault)
        #expect(fault.objectGlobalID == france.objectGlobalID)
        #expect(fault.objectVersion == 1)
        #expect(!fault.isFault)
    }

    @Test func fetchedObjectsReadTheirGlobalIDWhenAsked() throws {
        let container = try makeContainer()
        let writer = container.newBackgroundContext()
        let (_, france, spain) = try makeEurope(in: writer)
        let reader = container.newBackgroundContext()
        let countries = try reader.fetch(FetchDescriptor<Country>(sortBy: [SortDescriptor(\.name)])).map { $0 }
        #expect(countries[0].objectGlobalID == france.objectGlobalID)
        // A row deleted before its ID was read leaves the all-zero UUID.
        writer.delete(spain)
        try writer.save()
        #expect(countries[1].objectGlobalID == UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
    }

    @Test func globalIDsAreTimeOrderedVersion7UUIDs() throws {
        let moods = (0..<5_000).map { Mood(text: "m\($0)") }
        let ids = moods.map(\.objectGlobalID)
        #expect(Set(ids).count == ids.count)
        // Each one sorts after the one made before it, as bytes (and so in the store's index).
        let bytes = ids.map { id in withUnsafeBytes(of: id.uuid) { Array($0) } }
        #expect(zip(bytes, bytes.dropFirst()).allSatisfy { $0.lexicographicallyPrecedes($1) })
        #expect(ids.allSatisfy { $0.uuid.6 >> 4 == 7 && $0.uuid.8 >> 6 == 0b10 })
        // The first 48 bits are the creation time in milliseconds.
        let milliseconds = bytes[0].prefix(6).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        #expect(abs(Double(milliseconds) / 1000 - Date().timeIntervalSince1970) < 60)
    }
}
