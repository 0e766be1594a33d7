import Foundation
import MoodyModel
import ObjectGraph
import ObjectGraphSync
import ObjectGraphSyncProtocol
import ObjectGraphSyncTesting
import Synchronization
import Testing

/// A coordinator syncs the zones shared with its user beside its own: their objects reach the
/// member's store, a writer's edits reach the owner, a reader's edits are refused at save, and a
/// member taken out loses the zone's objects.
@Suite("Sync client: zones shared between users")
struct SyncSharedZoneTests {
    /// Alice's device with France and a mood of it, pushed; Bob's device, a member of alice's
    /// "moods" with `role`, synced.
    struct Sharing {
        let server = InMemorySyncServer()
        let alice: SyncDevice
        let bob: SyncDevice
        let shared = ZoneID("moods", owner: "alice")

        init(bobAs role: ZoneRole) async throws {
            alice = try SyncDevice(server: server)
            bob = try SyncDevice(server: server, remote: server.remote(user: "bob"))
            let context = alice.container.newBackgroundContext()
            let france = Country(name: "France")
            context.insert(france)
            context.insert(Mood(text: "bonjour", country: france))
            try context.save()
            try await alice.sync.syncNow()
            let invitation = try await server.remote(user: "alice").invite(InvitationRequest(user: "bob", role: role), to: "moods")
            #expect(try await bob.sync.invitations().map(\.id) == [invitation.id])
            #expect(try await bob.sync.accept(InvitationAcceptance(id: invitation.id)) == shared)
        }

        func texts(on device: SyncDevice) throws -> [String] {
            try device.container.newBackgroundContext().fetch(FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.text)])).map(\.text)
        }
    }

    @Test("A zone shared with a user reaches their store with their role, and a writer's edit reaches the owner named as theirs")
    func writerEditReachesOwner() async throws {
        let sharing = try await Sharing(bobAs: .writer)
        #expect(try sharing.texts(on: sharing.bob) == ["bonjour"])
        #expect(await sharing.bob.sync.zones == [ZoneID("moods"): .owner, sharing.shared: .writer])
        let context = sharing.bob.container.newBackgroundContext()
        let mood = try #require(try context.fetch(FetchDescriptor<Mood>()).first)
        #expect(try await sharing.bob.sync.zone(of: mood.objectID) == sharing.shared)
        mood.text = "bonjour de Bob"
        try context.save()
        try await sharing.bob.sync.syncNow()
        try await sharing.alice.sync.syncNow()
        #expect(try sharing.texts(on: sharing.alice) == ["bonjour de Bob"])
        let authors = try await sharing.server.allChanges("moods").map(\.author)
        #expect(authors.last == "bob")
    }

    @Test("An object a writer makes under a shared parent joins the parent's zone and reaches the owner; their private ones stay theirs")
    func newChildJoinsParentsZone() async throws {
        let sharing = try await Sharing(bobAs: .writer)
        let context = sharing.bob.container.newBackgroundContext()
        let france = try #require(try context.fetch(FetchDescriptor<Country>()).first)
        context.insert(Mood(text: "salut", country: france))
        context.insert(Mood(text: "private"))
        try context.save()
        try await sharing.bob.sync.syncNow()
        try await sharing.alice.sync.syncNow()
        #expect(try sharing.texts(on: sharing.alice) == ["bonjour", "salut"])
        #expect(try sharing.texts(on: sharing.bob) == ["bonjour", "private", "salut"])
        #expect(sharing.server.records(zone: "moods", user: "bob").count == 1)
    }

    @Test("A writer's own mood given a shared country joins the country's zone, reaches the owner, and leaves the writer's zone")
    func reparentedObjectJoinsTheParentsZone() async throws {
        let sharing = try await Sharing(bobAs: .writer)
        let context = sharing.bob.container.newBackgroundContext()
        let own = Mood(text: "bob's own")
        context.insert(own)
        try context.save()
        try await sharing.bob.sync.syncNow()
        #expect(sharing.server.records(zone: "moods", user: "bob").filter { !$0.deleted }.count == 1)
        let country = try #require(try context.fetch(FetchDescriptor<Country>()).first)
        own.country = country
        try context.save()
        try await sharing.bob.sync.syncNow()
        #expect(try await sharing.bob.sync.zone(of: own.objectID) == sharing.shared)
        try await sharing.alice.sync.syncNow()
        #expect(try sharing.texts(on: sharing.alice) == ["bob's own", "bonjour"])
        let bobsZone = sharing.server.records(zone: "moods", user: "bob")
        #expect(bobsZone.allSatisfy { $0.forwardedTo == ZoneID("moods", owner: "alice") }, "\(bobsZone)")
    }

    @Test("A reader's own mood given a country of a zone they may only read is refused at save")
    func readerCannotReparentIntoTheZone() async throws {
        let sharing = try await Sharing(bobAs: .reader)
        let context = sharing.bob.container.newBackgroundContext()
        let own = Mood(text: "bob's own")
        context.insert(own)
        try context.save()
        let country = try #require(try context.fetch(FetchDescriptor<Country>()).first)
        own.country = country
        let error = #expect(throws: ObjectGraphError.self) { try context.save() }
        #expect(error?.validationFailures.contains { $0.objectID == own.objectID } == true, "\(String(describing: error))")
    }

    @Test(
        "A reader's edit, deletion or new child of a shared object is refused at save, naming the object and the zone, and nothing is queued"
    )
    func readerEditsAreRefusedAtSave() async throws {
        let sharing = try await Sharing(bobAs: .reader)
        let context = sharing.bob.container.newBackgroundContext()
        let mood = try #require(try context.fetch(FetchDescriptor<Mood>()).first)
        let france = try #require(try context.fetch(FetchDescriptor<Country>()).first)
        let attempts: [(String, () -> Void)] = [
            ("an edit", { mood.text = "changed" }),
            ("a deletion", { context.delete(mood) }),
            ("a new child", { context.insert(Mood(text: "mine", country: france)) })
        ]
        for (what, change) in attempts {
            change()
            let error = #expect(throws: ObjectGraphError.self, "\(what)") { try context.save() }
            let failure = try #require(error?.validationFailures.first, "\(what)")
            guard case .refused(let rule, let message) = failure.reason else {
                Issue.record("\(what): refused as \(failure.reason)")
                continue
            }
            #expect(rule == SyncCoordinator.readOnlyZoneRule)
            #expect(message.contains("alice's zone \"moods\""), "\(message)")
            context.rollback()
        }
        #expect(sharing.bob.sync.status.current.pendingChanges == 0)
        try await sharing.bob.sync.syncNow()
        #expect(try sharing.texts(on: sharing.alice) == ["bonjour"])
    }

    @Test("A writer made a reader loses the edits not sent yet: the objects read the server's values again and a deletion comes back")
    func downgradeTakesBackUnsentEdits() async throws {
        let sharing = try await Sharing(bobAs: .writer)
        let aliceContext = sharing.alice.container.newBackgroundContext()
        let aliceFrance = try #require(try aliceContext.fetch(FetchDescriptor<Country>()).first)
        aliceContext.insert(Mood(text: "ça va", country: aliceFrance))
        try aliceContext.save()
        try await sharing.alice.sync.syncNow()
        try await sharing.bob.sync.syncNow()
        let context = sharing.bob.container.newBackgroundContext()
        let mood = try #require(try context.fetch(FetchDescriptor<Mood>(predicate: #Predicate { $0.text == "bonjour" })).first)
        let france = try #require(try context.fetch(FetchDescriptor<Country>()).first)
        france.name = "Frankreich"
        context.delete(mood)
        context.insert(Mood(text: "new offline", country: france))
        try context.save()
        try await sharing.server.remote(user: "alice").setRole(.reader, of: "bob", in: "moods")
        try await sharing.bob.sync.syncNow()
        #expect(try sharing.texts(on: sharing.bob) == ["bonjour", "ça va"])
        let countries = try sharing.bob.container.newBackgroundContext().fetch(FetchDescriptor<Country>()).map(\.name)
        #expect(countries == ["France"])
        #expect(await sharing.bob.sync.zones[sharing.shared] == .reader)
        #expect(sharing.bob.sync.status.current.pendingChanges == 0)
        try await sharing.alice.sync.syncNow()
        #expect(try sharing.texts(on: sharing.alice) == ["bonjour", "ça va"])
    }

    @Test(
        "A reader's edit made where no coordinator runs (another container on the store) is taken back at the next sync, not left waiting")
    func readerEditWithoutCoordinatorIsTakenBack() async throws {
        let sharing = try await Sharing(bobAs: .reader)
        let elsewhere = try ObjectContainer(
            schema: Schema(SyncDevice.types + SyncCoordinator.entities), configuration: .file(sharing.bob.path))
        let context = elsewhere.newBackgroundContext()
        let mood = try #require(try context.fetch(FetchDescriptor<Mood>()).first)
        mood.text = "changed behind the sync's back"
        try context.save()
        try await sharing.bob.sync.syncNow()
        #expect(try sharing.texts(on: sharing.bob) == ["bonjour"])
        #expect(sharing.bob.sync.status.current.pendingChanges == 0)
        try await sharing.bob.sync.syncNow()
        #expect(sharing.bob.sync.status.current.pendingChanges == 0)
    }

    @Test("A member taken out of a zone loses its objects, as deletions its contexts see; its own objects stay")
    func removedMemberLosesTheZone() async throws {
        let sharing = try await Sharing(bobAs: .writer)
        let context = sharing.bob.container.newBackgroundContext()
        context.insert(Mood(text: "bob's own"))
        try context.save()
        try await sharing.bob.sync.syncNow()
        let deleted = Mutex<Set<ObjectID>>([])
        let commits = sharing.bob.container.observeCommits { save in
            if save.author == SyncCoordinator.author { deleted.withLock { $0.formUnion(save.deletedObjectIDs) } }
        }
        try await sharing.server.remote(user: "alice").removeMember("bob", from: "moods")
        try await sharing.bob.sync.syncNow()
        withExtendedLifetime(commits) {}
        let moody = deleted.withLock { $0.map(\.entityName).filter { !$0.hasPrefix("ObjectGraphSync") }.sorted() }
        #expect(moody == ["Country", "Mood"], "the removal was saved as the sync's deletions")
        #expect(try sharing.texts(on: sharing.bob) == ["bob's own"])
        #expect(try sharing.bob.container.newBackgroundContext().fetchCount(FetchDescriptor<Country>()) == 0)
        #expect(await sharing.bob.sync.zones == [ZoneID("moods"): .owner])
        #expect(sharing.server.records(zone: "moods", user: "alice").count == 2, "the removal deleted nothing on the server")
        try await sharing.alice.sync.syncNow()
        #expect(try sharing.texts(on: sharing.alice) == ["bonjour"])
    }

    @Test("A member who leaves a zone loses its objects, and the owner's are untouched")
    func memberLeaves() async throws {
        let sharing = try await Sharing(bobAs: .reader)
        try await sharing.bob.sync.leave(sharing.shared)
        #expect(try sharing.texts(on: sharing.bob).isEmpty)
        #expect(try await sharing.server.remote(user: "alice").members(of: "moods").members.map(\.user) == ["alice"])
        await #expect(throws: SyncError.self) { try await sharing.bob.sync.leave("moods") }
    }
}

/// Sharing moves a root object and what belongs to it into a zone of its own: on the owner's
/// other devices the objects follow without ever being deleted, a member sees that zone alone,
/// and a move interrupted before it was sent goes out whole at the next sync.
@Suite("Sync client: sharing an object moves it and what belongs to it into a zone of its own")
struct SyncShareTests {
    /// Europe, with France and two moods of it, and a mood of no country, saved and synced from
    /// alice's first device; her second device synced too.
    struct Owner {
        let server = InMemorySyncServer()
        let phone: SyncDevice
        let laptop: SyncDevice
        let france: ObjectID

        init() async throws {
            phone = try SyncDevice(server: server)
            laptop = try SyncDevice(server: server)
            let context = phone.container.newBackgroundContext()
            let europe = Continent(name: "Europe")
            let country = Country(name: "France", continent: europe)
            for object in [europe, country] as [any Entity] { context.insert(object) }
            context.insert(Mood(text: "bonjour", country: country))
            context.insert(Mood(text: "ça va", country: country))
            context.insert(Mood(text: "anywhere"))
            try context.save()
            france = country.objectID
            try await phone.sync.syncNow()
            try await laptop.sync.syncNow()
        }
    }

    static func fields(_ records: [SyncedRecord], _ name: String) -> [String] {
        records.filter { !$0.deleted }.compactMap { record in
            if case .string(let text)? = record.fields[name] { text } else { nil }
        }.sorted()
    }

    @Test("Sharing a country moves it and its moods into a new zone; the old zone keeps only forwards, and the continent stays")
    func shareMovesTheRootAndItsBelongings() async throws {
        let owner = try await Owner()
        let zone = try await owner.phone.sync.share(owner.france)
        #expect(zone.owner == nil && zone.name.hasPrefix("moods."))
        #expect(await owner.phone.sync.zones[zone] == .owner)
        let shared = owner.server.records(zone: zone.name, user: "alice")
        #expect(Self.fields(shared, "text") == ["bonjour", "ça va"])
        #expect(Self.fields(shared, "name") == ["France"])
        let home = owner.server.records(zone: "moods", user: "alice")
        #expect(Self.fields(home, "text") == ["anywhere"], "the old zone keeps nothing of the moved records")
        #expect(Self.fields(home, "name") == ["Europe"])
        #expect(Self.fields(home, SyncedRecord.forwardField).count == 3)
        #expect(try await owner.phone.sync.share(owner.france) == zone, "sharing it again returns its zone")
    }

    @Test("The owner's other device moves the objects into the shared zone without deleting them, and edits there reach the first")
    func otherDeviceFollowsWithoutDeleting() async throws {
        let owner = try await Owner()
        let deleted = Mutex(0)
        let commits = owner.laptop.container.observeCommits { save in
            let moody = save.deletedObjectIDs.filter { !$0.entityName.hasPrefix("ObjectGraphSync") }
            deleted.withLock { $0 += moody.count }
        }
        let zone = try await owner.phone.sync.share(owner.france)
        try await owner.laptop.sync.syncNow()
        withExtendedLifetime(commits) {}
        #expect(deleted.withLock { $0 } == 0, "a moved object was deleted on the other device")
        let context = owner.laptop.container.newBackgroundContext()
        let moods = try context.fetch(FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.text)]))
        #expect(moods.map(\.text) == ["anywhere", "bonjour", "ça va"])
        #expect(try await owner.laptop.sync.zone(of: moods[1].objectID) == zone)
        #expect(try await owner.laptop.sync.zone(of: moods[0].objectID) == ZoneID("moods"))
        moods[1].text = "bonsoir"
        try context.save()
        try await owner.laptop.sync.syncNow()
        try await owner.phone.sync.syncNow()
        let texts = try owner.phone.container.newBackgroundContext().fetch(FetchDescriptor<Mood>()).map(\.text).sorted()
        #expect(texts == ["anywhere", "bonsoir", "ça va"])
    }

    @Test("A running device of the owner, woken by the live route, follows a share made elsewhere without deleting anything")
    func runningDeviceFollowsAShareLive() async throws {
        let owner = try await Owner()
        let deleted = Mutex(0)
        let commits = owner.laptop.container.observeCommits { save in
            deleted.withLock { $0 += save.deletedObjectIDs.filter { !$0.entityName.hasPrefix("ObjectGraphSync") }.count }
        }
        await owner.laptop.sync.start()
        try await owner.laptop.sync.syncNow()  // its zones listed before the share
        let zone = try await owner.phone.sync.share(owner.france)
        let deadline = ContinuousClock.now + .seconds(60)
        let context = owner.laptop.container.newBackgroundContext()
        while ContinuousClock.now < deadline {
            let moods = try context.fetch(FetchDescriptor<Mood>(predicate: #Predicate { $0.text == "bonjour" }))
            if let mood = moods.first, try await owner.laptop.sync.zone(of: mood.objectID) == zone { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        await owner.laptop.sync.stop()
        withExtendedLifetime(commits) {}
        #expect(await owner.laptop.sync.zones[zone] == .owner)
        #expect(deleted.withLock { $0 } == 0, "a moved object was deleted on the running device")
        #expect(try context.fetch(FetchDescriptor<Mood>()).map(\.text).sorted() == ["anywhere", "bonjour", "ça va"])
    }

    @Test("A member invited to a shared country gets the country and its moods alone; its continent stays the owner's")
    func memberSeesTheSharedZoneAlone() async throws {
        let owner = try await Owner()
        let zone = try await owner.phone.sync.share(owner.france)
        let bob = try SyncDevice(server: owner.server, remote: owner.server.remote(user: "bob"))
        let invitation = try await owner.phone.sync.invite("bob", as: .writer, to: zone)
        let joined = try await bob.sync.accept(InvitationAcceptance(id: invitation.id))
        #expect(joined == ZoneID(zone.name, owner: "alice"))
        let context = bob.container.newBackgroundContext()
        #expect(try context.fetch(FetchDescriptor<Mood>()).map(\.text).sorted() == ["bonjour", "ça va"])
        let france = try #require(try context.fetch(FetchDescriptor<Country>()).first)
        #expect(france.continent == nil, "the continent lives in the owner's own zone, out of the member's reach")
        #expect(try context.fetchCount(FetchDescriptor<Continent>()) == 0)
        context.insert(Mood(text: "salut", country: france))
        try context.save()
        try await bob.sync.syncNow()
        try await owner.phone.sync.syncNow()
        let texts = try owner.phone.container.newBackgroundContext().fetch(FetchDescriptor<Mood>()).map(\.text).sorted()
        #expect(texts == ["anywhere", "bonjour", "salut", "ça va"])
        let members = try await owner.phone.sync.members(of: zone)
        #expect(members == [ZoneMember(user: "alice", role: .owner), ZoneMember(user: "bob", role: .writer)])
    }

    @Test("A share made offline is kept; after a restart the records reach the new zone, then the old zone's forwards, once")
    func shareMadeOfflineGoesOutAfterARestart() async throws {
        let owner = try await Owner()
        owner.server.isOnline = false
        let error = await #expect(throws: SyncError.self) { try await owner.phone.sync.share(owner.france) }
        #expect(error?.code == .unreachable)
        owner.server.isOnline = true
        let restarted = try SyncDevice(server: owner.server, path: owner.phone.path)
        try await restarted.sync.syncNow()
        let zones = await restarted.sync.zones.keys.filter { $0 != "moods" }
        let zone = try #require(zones.first)
        #expect(Self.fields(owner.server.records(zone: zone.name, user: "alice"), "text") == ["bonjour", "ça va"])
        #expect(Self.fields(owner.server.records(zone: "moods", user: "alice"), "text") == ["anywhere"])
        try await owner.laptop.sync.syncNow()
        let texts = try owner.laptop.container.newBackgroundContext().fetch(FetchDescriptor<Mood>()).map(\.text).sorted()
        #expect(texts == ["anywhere", "bonjour", "ça va"])
    }

    @Test("A shared record whose unique value a member's own object holds is set aside, and neither object is merged or deleted")
    func uniqueClashAcrossZonesIsSetAside() async throws {
        let owner = try await Owner()
        let zone = try await owner.phone.sync.share(owner.france)
        let bob = try SyncDevice(server: owner.server, remote: owner.server.remote(user: "bob"))
        let bobs = bob.container.newBackgroundContext()
        bobs.insert(Country(name: "France"))
        try bobs.save()
        try await bob.sync.syncNow()
        let invitation = try await owner.phone.sync.invite("bob", as: .writer, to: zone)
        try await bob.sync.accept(InvitationAcceptance(id: invitation.id))
        let aside = try await bob.sync.setAsideRecords()
        #expect(aside.map(\.record.entity) == ["Country"])
        #expect(aside.first?.reason.contains("not merged") == true, "\(aside)")
        let context = bob.container.newBackgroundContext()
        #expect(try context.fetch(FetchDescriptor<Country>()).count == 1)
        #expect(try context.fetch(FetchDescriptor<Mood>()).map(\.text).sorted() == ["bonjour", "ça va"])
        try await owner.phone.sync.syncNow()
        #expect(Self.fields(owner.server.records(zone: zone.name, user: "alice"), "name") == ["France"], "nothing was deleted")
        #expect(Self.fields(owner.server.records(zone: "moods", user: "bob"), "name") == ["France"])

        // Bob renames his own: the set-aside record applies, in the zone whose feed brought it.
        let own = try #require(try context.fetch(FetchDescriptor<Country>()).first)
        own.name = "Francia"
        try context.save()
        try await bob.sync.syncNow()
        try await bob.sync.retrySetAsideRecords()
        #expect(try await bob.sync.setAsideRecords().isEmpty)
        let shared = try #require(try context.fetch(FetchDescriptor<Country>(predicate: #Predicate { $0.name == "France" })).first)
        #expect(try await bob.sync.zone(of: shared.objectID) == ZoneID(zone.name, owner: "alice"))
        #expect(shared.moods.map(\.text).sorted() == ["bonjour", "ça va"])
        try await bob.sync.syncNow()
        #expect(Self.fields(owner.server.records(zone: "moods", user: "bob"), "name") == ["Francia"], "nothing went to bob's zone")
    }
}

/// Sharing with ordered relationships and many-to-many links: positions travel with the moved
/// records, and the links an object owns move with it.
@Suite("Sync client: sharing keeps an object's order and the links it owns")
struct SyncShareLinksTests {
    static let types: [any Syncable.Type] = [Trip.self, Stop.self, Setlist.self, Song.self]

    @Test("A shared trip reaches a member with its stops in order, and a writer's reordering reaches the owner")
    func orderTravelsWithTheShare() async throws {
        let server = InMemorySyncServer()
        let phone = try SyncDevice(server: server, types: Self.types)
        let bob = try SyncDevice(server: server, types: Self.types, remote: server.remote(user: "bob"))
        let context = phone.container.newBackgroundContext()
        let trip = Trip(name: "Italy")
        context.insert(trip)
        trip.stops = ["Rome", "Florence", "Venice"].map { Stop(name: $0) }
        try context.save()
        try await phone.sync.syncNow()
        let zone = try await phone.sync.share(trip.objectID)
        try await bob.sync.accept(InvitationAcceptance(id: try await phone.sync.invite("bob", as: .writer, to: zone).id))
        let bobs = bob.container.newBackgroundContext()
        let bobsTrip = try #require(try bobs.fetch(FetchDescriptor<Trip>()).first)
        #expect(bobsTrip.stops.map(\.name) == ["Rome", "Florence", "Venice"])
        bobsTrip.stops.reverse()
        try bobs.save()
        try await bob.sync.syncNow()
        try await phone.sync.syncNow()
        let phones = phone.container.newBackgroundContext()
        #expect(try phones.fetch(FetchDescriptor<Trip>()).first?.stops.map(\.name) == ["Venice", "Florence", "Rome"])
    }

    @Test(
        "A shared setlist's links move with it: the owner's other device keeps its songs in order, and the old zone keeps only forwards of them"
    )
    func ownedLinksMoveWithTheObject() async throws {
        let server = InMemorySyncServer()
        let phone = try SyncDevice(server: server, types: Self.types)
        let laptop = try SyncDevice(server: server, types: Self.types)
        let context = phone.container.newBackgroundContext()
        let setlist = Setlist(name: "Road")
        context.insert(setlist)
        setlist.songs = ["Alpha", "Beta"].map { Song(title: $0) }
        try context.save()
        try await phone.sync.syncNow()
        try await laptop.sync.syncNow()
        let zone = try await phone.sync.share(setlist.objectID)
        try await laptop.sync.syncNow()
        let shared = server.records(zone: zone.name, user: "alice").filter { !$0.deleted }
        #expect(shared.filter { $0.entity == "Setlist.songs" }.count == 2, "\(shared.map(\.entity))")
        let home = server.records(zone: "moods", user: "alice").filter { !$0.deleted }
        #expect(home.filter { $0.entity == "Setlist.songs" }.allSatisfy { $0.forwardedTo != nil })
        #expect(home.filter { $0.entity == "Song" }.count == 2, "the songs do not belong to the setlist: they stay")
        let laptops = laptop.container.newBackgroundContext()
        let copy = try #require(try laptops.fetch(FetchDescriptor<Setlist>()).first)
        #expect(copy.songs.map(\.title) == ["Alpha", "Beta"])
        #expect(try await laptop.sync.zone(of: copy.objectID) == zone)
    }
}
