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
