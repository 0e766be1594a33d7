import Foundation
import MoodyModel
import ObjectGraph
import ObjectGraphSync
import ObjectGraphSyncProtocol
import Testing

@Suite("Sync client: objects travel between devices through a real server", .timeLimit(.minutes(5)))
struct SyncClientTests {
    @Test(
        "A mood made on one device reaches another with its country; its edit and its deletion follow",
        arguments: Backend.available)
    func moodsTravel(_ backend: Backend) async throws {
        let server = try await SyncTestServer(backend)
        let token = try await server.addUser("alice")
        try await server.run { client in
            let phone = try SyncDevice(port: client.port, token: token)
            let laptop = try SyncDevice(port: client.port, token: token)
            let context = phone.container.newBackgroundContext()
            let france = Country(name: "France")
            // A date finer than a Double of seconds since 1970 holds (its last bit): what the wire
            // carries (see "What travels" in the sync docs).
            let date = Date(timeIntervalSinceReferenceDate: 800_000_000 + 0x1p-23)
            let mood = Mood(text: "Croissant", rating: 4, date: date, country: france)
            context.insert(mood)
            try context.save()
            try await phone.sync.syncNow()
            try await laptop.sync.syncNow()

            let reader = laptop.container.newBackgroundContext()
            let copy = try #require(try reader.object(withGlobalID: mood.objectGlobalID, as: Mood.self))
            #expect(copy.text == "Croissant" && copy.rating == 4)
            #expect(copy.date.timeIntervalSince1970 == mood.date.timeIntervalSince1970, "the seconds since 1970 sent")
            #expect(copy.country?.name == "France" && copy.country?.objectGlobalID == france.objectGlobalID)

            mood.rating = 5
            try context.save()
            try await phone.sync.syncNow()
            try await laptop.sync.syncNow()
            reader.processPendingChanges()
            #expect(copy.rating == 5)

            context.delete(mood)  // Moody's rule takes France with its last mood
            try context.save()
            try await phone.sync.syncNow()
            try await laptop.sync.syncNow()
            reader.processPendingChanges()
            #expect(copy.isDeleted)
            #expect(try reader.fetchCount(FetchDescriptor<Country>()) == 0)
        }
    }

    @Test(
        "An image kept in a file reaches another device through the server as a field; one larger than the server's record limit is held back with the server's reason, and the rest goes on",
        arguments: Backend.available)
    func largeValues(_ backend: Backend) async throws {
        let server = try await SyncTestServer(backend)
        let token = try await server.addUser("alice")
        try await server.run { client in
            let phone = try SyncDevice(port: client.port, token: token, types: [Photo.self])
            let laptop = try SyncDevice(port: client.port, token: token, types: [Photo.self])
            let image = Data((0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            let huge = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
            let context = phone.container.newBackgroundContext()
            context.insert(Photo(caption: "beach", image: image))
            let panorama = Photo(caption: "panorama", image: huge)
            context.insert(panorama)
            try context.save()
            try await phone.sync.syncNow()
            try await laptop.sync.syncNow()

            let reader = laptop.container.newBackgroundContext()
            let photos = try reader.fetch(FetchDescriptor<Photo>())
            #expect(photos.map(\.caption) == ["beach"])
            #expect(photos.first?.image == image)
            let files = try FileManager.default.contentsOfDirectory(atPath: laptop.path + "-external").filter { $0 != "incoming" }
            #expect(files.count == 1)
            let heldBack = try await phone.sync.heldBackRecords()
            #expect(heldBack.map(\.id) == [panorama.objectGlobalID])
            #expect(heldBack.first?.reason.contains("limit") == true, "\(heldBack)")
            #expect(phone.sync.status.current.heldBackRecords == 1)
            #expect(phone.sync.status.current.lastError == nil)
        }
    }

    @Test(
        "Started coordinators follow the app's saves and the live route: another device's list shows the new mood, and its detail screen closes when the mood is deleted there"
    )
    func liveDevices() async throws {
        let server = try await SyncTestServer(.sqlite)
        let token = try await server.addUser("alice")
        try await server.run { client in
            let phone = try SyncDevice(port: client.port, token: token)
            let laptop = try SyncDevice(port: client.port, token: token)
            await phone.sync.start()
            await laptop.sync.start()
            let screen = laptop.container.newBackgroundContext()  // the app's own context on the laptop
            let list = try screen.monitorList(Mood.self, sortBy: [SortDescriptor(\.text)])

            var arrivals = laptop.syncSaves()
            let context = phone.container.newBackgroundContext()
            let mood = Mood(text: "Sunny")
            context.insert(mood)
            try context.save()  // nothing else: the phone's coordinator hears the save
            let id = mood.objectGlobalID
            _ = try await firstSave(of: arrivals) { $0.insertedObjectIDs.contains { $0.entityName == "Mood" } }
            screen.processPendingChanges()
            #expect(list.objects.map(\.text) == ["Sunny"])
            #expect(list.objects.first?.objectGlobalID == id)

            let shown = try #require(list.objects.first)
            nonisolated(unsafe) var heard: [ObjectObserver<Mood>.Change] = []
            let detail = ObjectObserver(shown) { heard.append($0) }
            arrivals = laptop.syncSaves()
            context.delete(mood)
            try context.save()
            _ = try await firstSave(of: arrivals) { $0.deletedObjectIDs.contains { $0.entityName == "Mood" } }
            screen.processPendingChanges()
            #expect(heard == [.delete], "the detail screen closes")
            #expect(list.objects.isEmpty)
            withExtendedLifetime(detail) {}

            await phone.sync.stop()
            await laptop.sync.stop()
            #expect(phone.sync.status.current.activity == .stopped)
        }
    }

    @Test(
        "A change announced by the live route is read without sending the app's saves at once: those wait for the app to pause, so a device's own pushes do not wake it again and again while the app saves"
    )
    func liveWakeOnlyPulls() async throws {
        let server = try await SyncTestServer(.sqlite)
        let token = try await server.addUser("alice")
        try await server.run { client in
            let phone = try SyncDevice(port: client.port, token: token)
            // The laptop's app saves are gathered for longer than the test lasts.
            let laptop = try SyncDevice(port: client.port, token: token, gatheringDelay: .seconds(600))
            try await laptop.sync.syncNow()
            // The cycle `start()` begins pushes before it reads the feed: once it asked for a page,
            // only the live route and the app's saves (gathered for 600 s) wake the coordinator.
            let pagesBefore = laptop.remote.pages
            await laptop.sync.start()
            let deadline = ContinuousClock.now + .seconds(60)
            while laptop.remote.pages == pagesBefore, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            let pushesBefore = laptop.remote.pushes

            let laptopApp = laptop.container.newBackgroundContext()
            laptopApp.insert(Mood(text: "Written on the laptop"))
            try laptopApp.save()
            let arrivals = laptop.syncSaves()
            let phoneApp = phone.container.newBackgroundContext()
            phoneApp.insert(Mood(text: "Written on the phone"))
            try phoneApp.save()
            try await phone.sync.syncNow()
            _ = try await firstSave(of: arrivals) { $0.insertedObjectIDs.contains { $0.entityName == "Mood" } }
            #expect(laptop.remote.pushes == pushesBefore, "the live route's cycle read the feed and sent nothing")

            try await laptop.sync.syncNow()
            #expect(laptop.remote.pushes == pushesBefore + 1)
            await laptop.sync.stop()
        }
    }

    /// Uploads only the moods rated 4 or more (issue 27, point 2: a processor of the app's own).
    struct WellRatedMoodUploader: ChangeProcessor {
        var predicate: Predicate<Mood>? { #Predicate { $0.rating >= 4 } }

        func processChangedLocalObjects(_ objects: [Mood], in sync: isolated SyncCoordinator) async throws {
            try await sync.upload(objects)
        }
    }

    @Test("A processor of the app's own selects what it uploads by its predicate")
    func customProcessor() async throws {
        let server = try await SyncTestServer(.sqlite)
        let token = try await server.addUser("alice")
        try await server.run { client in
            let phone = try SyncDevice(port: client.port, token: token, processors: [WellRatedMoodUploader(), Downloader()])
            let laptop = try SyncDevice(port: client.port, token: token)
            let context = phone.container.newBackgroundContext()
            for (text, rating) in [("meh", 2), ("great", 5), ("good", 4)] { context.insert(Mood(text: text, rating: rating)) }
            try context.save()
            try await phone.sync.syncNow()
            try await laptop.sync.syncNow()
            let onLaptop = laptop.container.newBackgroundContext()
            let moods = try onLaptop.fetch(FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.text)]))
            #expect(moods.map(\.text) == ["good", "great"])
        }
    }

    @Test(
        "A mood marked for deletion is deleted on the server by the RemoteDeleter, then here; until the server knows, it stays, hidden, even across a restart"
    )
    func remoteDeleter() async throws {
        let server = try await SyncTestServer(.sqlite)
        let token = try await server.addUser("alice")
        try await server.run { client in
            let processors: [any ChangeProcessor] = [Uploader(), RemoteDeleter<Mood>(), Downloader()]
            let phone = try SyncDevice(port: client.port, token: token, processors: processors)
            let laptop = try SyncDevice(port: client.port, token: token)
            let context = phone.container.newBackgroundContext()
            let kept = Mood(text: "Kept", rating: 3)
            let marked = Mood(text: "Marked", rating: 4)
            context.insert(kept)
            context.insert(marked)
            try context.save()
            try await phone.sync.syncNow()
            try await laptop.sync.syncNow()

            // A mark made while the coordinator runs reaches the deleter (the mark is a local-only
            // attribute: nothing else about the mood changed).
            marked.markForLocalDeletion()
            try context.save()
            try await phone.sync.syncNow()
            let (feed, _) = try await client.allChanges("moods", token: token)
            #expect(feed.last?.record.id == marked.objectGlobalID && feed.last?.record.deleted == true)
            let onPhone = phone.container.newBackgroundContext()
            #expect(try onPhone.fetch(FetchDescriptor<Mood>(includesMarkedForDeletion: true)).map(\.text) == ["Kept"])
            try await laptop.sync.syncNow()
            let onLaptop = laptop.container.newBackgroundContext()
            #expect(try onLaptop.fetch(FetchDescriptor<Mood>()).map(\.text) == ["Kept"])

            // A mark the app made while nothing synced is found by the predicate at the next
            // start, by a new coordinator on the same store.
            kept.markForLocalDeletion()
            try context.save()
            #expect(try onPhone.fetch(FetchDescriptor<Mood>()).isEmpty, "hidden at once")
            #expect(try onPhone.fetchCount(FetchDescriptor<Mood>(includesMarkedForDeletion: true)) == 1, "kept until the server knows")
            let restarted = try SyncDevice(port: client.port, token: token, path: phone.path, processors: processors)
            try await restarted.sync.syncNow()
            let onRestarted = restarted.container.newBackgroundContext()
            #expect(try onRestarted.fetchCount(FetchDescriptor<Mood>(includesMarkedForDeletion: true)) == 0)
            try await laptop.sync.syncNow()
            onLaptop.processPendingChanges()
            #expect(try onLaptop.fetch(FetchDescriptor<Mood>()).isEmpty)
        }
    }

    @Test("Field names and local-only properties follow the entity's configuration")
    func configuredFields() async throws {
        let server = try await SyncTestServer(.sqlite)
        let token = try await server.addUser("alice")
        try await server.run { client in
            let types: [any Syncable.Type] = [MappedNote.self]
            let phone = try SyncDevice(port: client.port, token: token, types: types)
            let laptop = try SyncDevice(port: client.port, token: token, types: types)
            let context = phone.container.newBackgroundContext()
            let note = MappedNote(title: "Plans")
            note.body = "a trip"
            note.draft = "not for other devices"
            context.insert(note)
            try context.save()
            try await phone.sync.syncNow()
            let (changes, _) = try await client.allChanges("moods", token: token)
            #expect(changes.map(\.record.entity) == ["Memo"])
            #expect(Set(changes.first?.record.fields.keys ?? [:].keys) == ["title", "text"])
            #expect(changes.first?.record.fields["text"] == .string("a trip"))

            try await laptop.sync.syncNow()
            let onLaptop = laptop.container.newBackgroundContext()
            let copy = try #require(try onLaptop.object(withGlobalID: note.objectGlobalID, as: MappedNote.self))
            #expect(copy.body == "a trip" && copy.draft == "")
        }
    }

    @Test("A child that arrives before its parent neither fails nor crashes, and links up when the parent arrives")
    func childBeforeParent() async throws {
        let server = try await SyncTestServer(.sqlite)
        let token = try await server.addUser("alice")
        try await server.run { client in
            let device = try SyncDevice(port: client.port, token: token)
            let writer = UUID()
            let moodID = UUID(), countryID = UUID()
            try await client.pushApplied(
                "moods",
                PushRequest(
                    writer,
                    .upsert(
                        1, entity: "Mood", id: moodID,
                        fields: [
                            "text": .string("Paella"), "rating": .integer(5), "date": .double(1_000),
                            "country": .string(countryID.uuidString)
                        ])), token: token)
            try await device.sync.syncNow()
            let context = device.container.newBackgroundContext()
            let mood = try #require(try context.object(withGlobalID: moodID, as: Mood.self))
            #expect(mood.text == "Paella" && mood.country == nil)

            try await client.pushApplied(
                "moods",
                PushRequest(
                    writer,
                    .upsert(
                        2, entity: "Country", id: countryID,
                        fields: [
                            "name": .string("Spain")
                        ])), token: token)
            try await device.sync.syncNow()
            context.processPendingChanges()
            #expect(mood.country?.name == "Spain")
            #expect(mood.country?.objectGlobalID == countryID)
        }
    }

    @Test("What a device applies from the feed is never pushed back")
    func noEcho() async throws {
        let server = try await SyncTestServer(.sqlite)
        let token = try await server.addUser("alice")
        try await server.run { client in
            let phone = try SyncDevice(port: client.port, token: token)
            let laptop = try SyncDevice(port: client.port, token: token)
            let context = phone.container.newBackgroundContext()
            for index in 0..<20 { context.insert(Mood(text: "mood \(index)", country: Country(name: "Country \(index)"))) }
            try context.save()
            try await phone.sync.syncNow()
            #expect(phone.remote.mutations == 40)
            try await laptop.sync.syncNow()
            try await laptop.sync.syncNow()
            try await phone.sync.syncNow()
            #expect(laptop.remote.pushes == 0, "the laptop applied 40 records and pushed none")
            #expect(phone.remote.mutations == 40, "the phone's own changes came back from the feed and went nowhere")
            #expect(try laptop.container.newBackgroundContext().fetchCount(FetchDescriptor<Mood>()) == 20)
        }
    }

    @Test(
        "What a device's delete rules do to a deletion from the feed reaches the server like any local change: a mood added to a country another device deleted goes everywhere"
    )
    func deleteRulesOfAppliedDeletions() async throws {
        let server = try await SyncTestServer(.sqlite)
        let token = try await server.addUser("alice")
        try await server.run { client in
            let phone = try SyncDevice(port: client.port, token: token)
            let laptop = try SyncDevice(port: client.port, token: token)
            let onPhone = phone.container.newBackgroundContext()
            let onLaptop = laptop.container.newBackgroundContext()
            let france = Country(name: "France")
            onPhone.insert(Mood(text: "Croissant", country: france))
            try onPhone.save()
            try await phone.sync.syncNow()
            try await laptop.sync.syncNow()

            // The laptop adds a mood to France; the phone, not having heard of it, deletes France.
            let laptopFrance = try #require(try onLaptop.object(withGlobalID: france.objectGlobalID, as: Country.self))
            let added = Mood(text: "Baguette", country: laptopFrance)
            onLaptop.insert(added)
            try onLaptop.save()
            try await laptop.sync.syncNow()
            onPhone.delete(france)
            try onPhone.save()
            try await phone.sync.syncNow()

            // The laptop applies France's deletion, and its cascade takes the Baguette: the server,
            // then the phone, are told.
            try await laptop.sync.syncNow()
            try await phone.sync.syncNow()
            for context in [onPhone, onLaptop] {
                context.processPendingChanges()
                #expect(try context.fetchCount(FetchDescriptor<Mood>()) == 0)
                #expect(try context.fetchCount(FetchDescriptor<Country>()) == 0)
            }
            let feed = try await HTTPSyncClient(port: client.port).allChanges("moods", token: token)
            let latest = Dictionary(feed.map { ($0.record.id, $0.record) }, uniquingKeysWith: { $1 })
            #expect(latest[added.objectGlobalID]?.deleted == true, "the server deleted the Baguette too")
            #expect(laptop.sync.status.current.pendingChanges == 0)
        }
    }

    @Test(
        "A page of the feed holding a record that does not fit is applied without it, once, however often the sync runs: the app's own changes are still sent, and the record stays set aside"
    )
    func unfitRecordIsSetAsideOnce() async throws {
        let server = try await SyncTestServer(.sqlite)
        let token = try await server.addUser("alice")
        try await server.run { client in
            // Another client's transaction: a fine mood, then one whose rating is text.
            let (fine, unfit) = (UUID(), UUID())
            try await client.pushApplied(
                "moods",
                PushRequest(
                    UUID(),
                    .upsert(1, entity: "Mood", id: fine, fields: ["text": .string("fine"), "rating": .integer(3), "date": .double(0)]),
                    .upsert(
                        2, entity: "Mood", id: unfit, fields: ["text": .string("unfit"), "rating": .string("three"), "date": .double(0)])),
                token: token)
            let phone = try SyncDevice(port: client.port, token: token)
            let context = phone.container.newBackgroundContext()
            for _ in 0..<2 {
                try await phone.sync.syncNow()
                context.insert(Mood(text: "made here"))  // a save of the app's, and the sync's next one
                try context.save()
            }
            try await phone.sync.syncNow()
            #expect(try context.fetch(FetchDescriptor<Mood>()).map(\.text).sorted() == ["fine", "made here", "made here"])
            #expect(try await phone.sync.setAsideRecords().map(\.id) == [unfit])
            #expect(phone.sync.status.current.lastError == nil && phone.sync.status.current.setAsideRecords == 1)
            #expect(phone.remote.mutations == 2, "the app's own moods were sent all the same")
        }
    }

    @Test("Many-to-many memberships sync member by member: two devices adding different members both keep theirs, and removals follow")
    func manyToMany() async throws {
        let server = try await SyncTestServer(.sqlite)
        let token = try await server.addUser("alice")
        try await server.run { client in
            let types: [any Syncable.Type] = [Playlist.self, Track.self]
            let phone = try SyncDevice(port: client.port, token: token, types: types)
            let laptop = try SyncDevice(port: client.port, token: token, types: types)
            let onPhone = phone.container.newBackgroundContext()
            let onLaptop = laptop.container.newBackgroundContext()
            let morning = Playlist(name: "Morning")
            let (one, two, three) = (Track(title: "one"), Track(title: "two"), Track(title: "three"))
            for object in [one, two, three] { onPhone.insert(object) }
            onPhone.insert(morning)
            morning.tracks = [one]
            try onPhone.save()
            try await phone.sync.syncNow()
            try await laptop.sync.syncNow()
            let laptopMorning = try #require(try onLaptop.object(withGlobalID: morning.objectGlobalID, as: Playlist.self))
            #expect(laptopMorning.tracks.map(\.title) == ["one"])

            // Each device adds a different track, neither having heard of the other's.
            morning.tracks.insert(two)
            try onPhone.save()
            let laptopThree = try #require(try onLaptop.object(withGlobalID: three.objectGlobalID, as: Track.self))
            laptopMorning.tracks.insert(laptopThree)
            try onLaptop.save()
            try await phone.sync.syncNow()
            try await laptop.sync.syncNow()
            try await phone.sync.syncNow()
            onPhone.processPendingChanges()
            onLaptop.processPendingChanges()
            #expect(Set(morning.tracks.map(\.title)) == ["one", "two", "three"])
            #expect(Set(laptopMorning.tracks.map(\.title)) == ["one", "two", "three"])
            #expect(Set(laptopThree.playlists.map(\.name)) == ["Morning"], "the inverse follows")

            // A removal on one device reaches the other.
            morning.tracks.remove(one)
            try onPhone.save()
            try await phone.sync.syncNow()
            try await laptop.sync.syncNow()
            onLaptop.processPendingChanges()
            #expect(Set(laptopMorning.tracks.map(\.title)) == ["two", "three"])
        }
    }
}
