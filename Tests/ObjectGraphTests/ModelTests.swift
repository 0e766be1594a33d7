import Foundation
import MoodyModel
import ObjectGraph
import Testing

@Suite struct ModelTests {
    @Test func everyAttributeKindRoundTrips() throws {
        let container = try ObjectContainer(for: Sample.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let sample = Sample()
        let uuid = UUID()
        sample.string = "héllo"
        sample.int = -42
        sample.int64 = Int64.max
        sample.double = 0.1
        sample.bool = true
        sample.date = Date(timeIntervalSince1970: 1_234.5)
        sample.data = Data([0, 1, 255])
        sample.uuid = uuid
        sample.decimal = Decimal(string: "12345678901234567890.123456789")!
        sample.weather = .windy
        sample.location = Location(latitude: 48.85, longitude: 2.35)
        sample.optionalString = "set"
        sample.optionalDecimal = Decimal(string: "0.5")
        sample.optionalWeather = .rainy
        sample.optionalLocation = Location(latitude: 1, longitude: 2)
        sample.scratch = 7
        context.insert(sample)
        try context.save()

        let copy = try container.newBackgroundContext().existingObject(with: sample.objectID, as: Sample.self)
        #expect(copy.string == "héllo")
        #expect(copy.int == -42)
        #expect(copy.int64 == Int64.max)
        #expect(copy.double == 0.1)
        #expect(copy.bool)
        #expect(copy.date == Date(timeIntervalSince1970: 1_234.5))
        #expect(copy.data == Data([0, 1, 255]))
        #expect(copy.uuid == uuid)
        #expect(copy.decimal == Decimal(string: "12345678901234567890.123456789")!, "no digit lost")
        #expect(copy.weather == .windy)
        #expect(copy.location == Location(latitude: 48.85, longitude: 2.35))
        #expect(copy.optionalString == "set")
        #expect(copy.optionalInt == nil)
        #expect(copy.optionalDate == nil)
        #expect(copy.optionalDecimal == Decimal(string: "0.5"))
        #expect(copy.optionalWeather == .rainy)
        #expect(copy.optionalLocation == Location(latitude: 1, longitude: 2))
        #expect(copy.scratch == 0, "transient properties are not stored")
    }

    @Test func enumsAndDecimalsWorkInPredicatesAndSorts() throws {
        let container = try ObjectContainer(for: Sample.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        for (weather, decimal) in [(Weather.rainy, "10.5"), (.sunny, "9.75"), (.rainy, "100")] {
            let sample = Sample()
            sample.weather = weather
            sample.decimal = Decimal(string: decimal)!
            context.insert(sample)
        }
        try context.save()
        let rainy = Weather.rainy
        let request = FetchDescriptor<Sample>(predicate: #Predicate { $0.weather == rainy }, sortBy: [SortDescriptor(\.decimal)])
        // Decimals sort as numbers (9.75 < 10.5 < 100), not as the text they are stored as.
        #expect(try context.fetch(request).map(\.decimal) == [Decimal(string: "10.5")!, 100])
        #expect(
            try context.fetch(FetchDescriptor<Sample>(sortBy: [SortDescriptor(\.decimal)])).map(\.decimal).first == Decimal(string: "9.75"))
    }

    @Test func uniqueViolationIsTypedAndTheFailedSaveChangesNothing() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        context.insert(Country(name: "France"))
        try context.save()
        let duplicate = Country(name: "France")
        let other = Country(name: "Italy")
        context.insert(other)
        context.insert(duplicate)
        let error = try #require(throws: ObjectGraphError.self) { try context.save() }
        guard error.code == .validationFailed, case let failures = error.validationFailures else {
            Issue.record("expected a validation failure, got \(error)")
            return
        }
        #expect(failures.count == 1)
        #expect(failures.first?.entity == "Country")
        #expect(failures.first?.property == "name")
        #expect(failures.first?.reason == .notUnique(.text("France")))
        #expect(failures.first?.objectID == duplicate.objectID)
        // Nothing was written, and the context still holds its unsaved work.
        #expect(try container.newBackgroundContext().fetchCount(FetchDescriptor<Country>()) == 1)
        #expect(context.hasChanges)
        #expect(other.objectID.isTemporary)
        duplicate.name = "Spain"
        try context.save()
        #expect(try container.newBackgroundContext().fetchCount(FetchDescriptor<Country>()) == 3)
    }

    /// A unique value given up in a save can be taken in the same save: by a deletion and an
    /// insertion (replacing an object), or by a renaming and an insertion or another renaming.
    @Test func aUniqueValueGivenUpInASaveCanBeTakenInTheSameSave() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let (_, france, spain) = try makeEurope(in: context)
        let italy = Country(name: "Italy")
        context.insert(italy)
        try context.save()
        context.delete(france)
        let newFrance = Country(name: "France")
        context.insert(newFrance)
        spain.name = "España"
        let newSpain = Country(name: "Spain")
        context.insert(newSpain)
        try context.save()
        italy.name = "Italia"
        spain.name = "Italy"
        try context.save()
        let names = try container.newBackgroundContext().fetch(FetchDescriptor<Country>(sortBy: [SortDescriptor(\.name)]))
        #expect(names.map(\.name) == ["France", "Italia", "Italy", "Spain"])
    }

    /// An object related to one deleted in this context would point to a row that is gone: the save
    /// is refused, naming the object, the relationship and the deleted object, and writes nothing.
    @Test func aRelationshipToAnObjectDeletedHereIsRefusedAtSave() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let (_, france, _) = try makeEurope(in: context)
        context.delete(france)
        let mood = Mood(text: "late", country: france)
        context.insert(mood)
        let error = try #require(throws: ObjectGraphError.self) { try context.save() }
        guard error.code == .validationFailed, case let failures = error.validationFailures else {
            Issue.record("expected a validation failure, got \(error)")
            return
        }
        #expect(failures.map(\.reason) == [.relatedObjectDeleted(france.objectID)])
        #expect(failures.first?.property == "country" && failures.first?.objectID == mood.objectID)
        #expect("\(error)".contains("deleted"))
        let reader = container.newBackgroundContext()
        #expect(try reader.fetchCount(FetchDescriptor<Mood>()) == 0)
        #expect(try reader.fetchCount(FetchDescriptor<Country>()) == 2)
    }

    @Test func orderedOneToManyKeepsItsOrder() throws {
        let container = try ObjectContainer(for: Album.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let album = Album(title: "Blue")
        context.insert(album)
        let tracks = ["c", "a", "b"].map(Track.init(title:))
        album.tracks = tracks
        #expect(tracks.allSatisfy { $0.album === album }, "inverse set at once")
        try context.save()

        let reader = container.newBackgroundContext()
        let copy = try reader.existingObject(with: album.objectID, as: Album.self)
        #expect(copy.tracks.map(\.title) == ["c", "a", "b"])
        copy.tracks = copy.tracks.reversed()
        try reader.save()
        // Objects hold their context weakly, as in Core Data: keep the context while reading.
        let thirdContext = container.newBackgroundContext()
        let third = try thirdContext.existingObject(with: album.objectID, as: Album.self)
        #expect(third.tracks.map(\.title) == ["b", "a", "c"])
    }

    @Test func manyToManyIsMaintainedOnBothSides() throws {
        let container = try ObjectContainer(for: Playlist.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let morning = Playlist(name: "Morning"), evening = Playlist(name: "Evening")
        let song = Song(title: "Song")
        for object in [morning, evening] { context.insert(object) }
        morning.songs = [song]
        evening.songs = [song]
        #expect(song.playlists == [morning, evening])
        try context.save()

        let reader = container.newBackgroundContext()
        let copy = try reader.existingObject(with: song.objectID, as: Song.self)
        #expect(Set(copy.playlists.map(\.name)) == ["Morning", "Evening"])
        let eveningCopy = try reader.existingObject(with: evening.objectID, as: Playlist.self)
        eveningCopy.songs = [Song(title: "Other")]
        #expect(copy.playlists.map(\.name) == ["Morning"])
        try reader.save()
        let thirdContext = container.newBackgroundContext()
        let third = try thirdContext.existingObject(with: song.objectID, as: Song.self)
        #expect(third.playlists.map(\.name) == ["Morning"])
    }

    @Test func relationshipCountsAreValidatedAtSave() throws {
        let container = try ObjectContainer(for: Playlist.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let empty = Playlist(name: "Empty")
        context.insert(empty)
        let tooLong = Playlist(name: "Long")
        context.insert(tooLong)
        tooLong.songs = (1...4).map { Song(title: "\($0)") }
        let error = try #require(throws: ObjectGraphError.self) { try context.save() }
        guard error.code == .validationFailed, case let failures = error.validationFailures else {
            Issue.record("expected a validation failure, got \(error)")
            return
        }
        #expect(
            failures.contains {
                $0.objectID == empty.objectID && $0.property == "songs"
                    && $0.reason == .tooFewObjects(count: 0, minimum: 1)
            })
        #expect(
            failures.contains {
                $0.objectID == tooLong.objectID && $0.property == "songs"
                    && $0.reason == .tooManyObjects(count: 4, maximum: 3)
            })
        #expect(try container.newBackgroundContext().fetchCount(FetchDescriptor<Song>()) == 0)
    }

    @Test func everyChangedObjectGetsOneWillSaveASaveIncludingObjectsAHookChanged() throws {
        let container = try ObjectContainer(for: HookedNote.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let first = HookedNote(text: "first"), second = HookedNote(text: "second")
        context.insert(first)
        context.insert(second)
        var calls: [String] = []
        var added: HookedNote?
        first.onWillSave = { [unowned first] in
            calls.append("first")
            first.text += "!"  // a hook changing its own object does not call it again
            if added == nil {
                let note = HookedNote(text: "added by a hook")
                note.onWillSave = { calls.append("added") }
                context.insert(note)
                added = note
            }
        }
        second.onWillSave = { calls.append("second") }
        try context.save()
        #expect(calls.sorted() == ["added", "first", "second"])
        #expect(try container.newBackgroundContext().fetchCount(FetchDescriptor<HookedNote>()) == 3)

        calls = []
        second.text = "changed again"
        try context.save()
        #expect(calls == ["second"])
        calls = []
        first.text = "changed again"
        try context.save()
        #expect(calls == ["first"])
    }

    @Test func validationHooksAndSaveHooks() throws {
        let container = try ObjectContainer(for: Account.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let account = Account(owner: "ann", balance: -1)
        context.insert(account)
        #expect(throws: ObjectGraphError.self) { try context.save() }
        #expect(account.didSaveCalls == 0)
        account.balance = 10
        try context.save()
        #expect(account.willSaveCalls >= 1)
        #expect(account.didSaveCalls == 1)

        account.balance = -5
        let update = try #require(throws: ObjectGraphError.self) { try context.save() }
        guard update.code == .validationFailed, case let failures = update.validationFailures else { Issue.record("\(update)"); return }
        #expect(failures.first?.entity == "Account")
        #expect(failures.first?.objectID == account.objectID)
        account.balance = 5
        try context.save()

        let bank = Account(owner: "bank")
        context.insert(bank)
        try context.save()
        context.delete(bank)
        #expect(throws: ObjectGraphError.self) { try context.save() }
        context.rollback()
        #expect(!bank.isDeleted)
    }

    @Test func resetForgetsEveryObject() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let (_, france, _) = try makeEurope(in: context)
        let unsaved = Country(name: "Italy")
        context.insert(unsaved)
        context.reset()
        #expect(!context.hasChanges)
        #expect(context.registeredObjects.isEmpty)
        #expect(france.objectContext == nil)
        #expect(try context.fetch(FetchDescriptor<Country>()).map(\.name).sorted() == ["France", "Spain"])
    }

    @Test func anEntityMissingFromTheSchemaIsATypedErrorAtSave() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        context.insert(Sample())
        #expect(throws: ObjectGraphError.unknownEntity("Sample")) { try context.save() }
    }

    @Test func badObjectIDsAreTypedErrors() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let (_, france, _) = try makeEurope(in: context)
        let uri = france.objectID.uriRepresentation
        context.delete(france)
        try context.save()
        let id = try container.objectID(forURIRepresentation: uri)
        #expect(throws: ObjectGraphError.objectNotFound(id)) { try container.newBackgroundContext().existingObject(with: id) }
        #expect(throws: ObjectGraphError.self) { try container.objectID(forURIRepresentation: "x-objectgraph://nope/Country/p1") }
        #expect(throws: ObjectGraphError.self) {
            try container.objectID(forURIRepresentation: uri.replacingOccurrences(of: "/p", with: "/q"))
        }
        let other = try makeContainer()
        #expect(throws: ObjectGraphError.foreignObjectID(id)) { try other.newBackgroundContext().existingObject(with: id) }
    }

    @MainActor @Test func viewContextOnTheMainActorAndBackgroundTasks() async throws {
        let container = try makeContainer()
        let view = container.viewContext
        #expect(view === container.viewContext)
        view.insert(Country(name: "Peru"))
        try view.save()
        let names = try await container.performBackgroundTask { context in
            try context.fetch(FetchDescriptor<Country>()).map(\.name)
        }
        #expect(names == ["Peru"])
    }
}
