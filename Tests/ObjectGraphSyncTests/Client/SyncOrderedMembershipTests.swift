import Foundation
import ObjectGraph
import ObjectGraphSync
import ObjectGraphSyncProtocol
import ObjectGraphSyncTesting
import Testing

/// A setlist's songs, in the order they are played: an ordered many-to-many relationship whose
/// owning side (the one whose links sync) is the ordered one.
@Entity final class Setlist: Syncable {
    var name: String
    @Relationship(inverse: \Song.setlists) var songs: [Song] = []
    init(name: String) { self.name = name }
}

@Entity final class Song: Syncable {
    var title: String
    var setlists: Set<Setlist> = []
    init(title: String) { self.title = title }
}

/// A zine's articles, in print order: ordered on the side that does not own the links
/// ("Article.zines" sorts before "Zine.articles").
@Entity final class Zine: Syncable {
    var name: String
    @Relationship(inverse: \Article.zines) var articles: [Article] = []
    init(name: String) { self.name = name }
}

@Entity final class Article: Syncable {
    var title: String
    var zines: Set<Zine> = []
    init(title: String) { self.title = title }
}

@Suite("Sync client: ordered many-to-many relationships sync with their order, on either side, and concurrent edits converge")
struct SyncOrderedMembershipTests {
    static let types: [any Syncable.Type] = [Setlist.self, Song.self, Zine.self, Article.self]

    /// Three devices of one user.
    static func devices(on server: InMemorySyncServer) throws -> [SyncDevice] {
        try (0..<3).map { _ in try SyncDevice(server: server, types: types) }
    }

    /// The titles of the members of `owner`'s ordered relationship `key`, as a fresh context reads them.
    static func titles<Owner: Entity>(_ owner: UUID, _: Owner.Type, key: String, on device: SyncDevice) throws -> [String] {
        let context = device.container.newBackgroundContext()
        let object = try #require(try context.object(withGlobalID: owner, as: Owner.self))
        return try object.relatedObjects(forKey: key).map { member in
            guard case .text(let title) = try member.storedValue(forKey: "title") else { return "?" }
            return title
        }
    }

    @Test(
        "Concurrent edits of a setlist's order on three devices converge: a move on one, an insertion on another and a removal on the third all survive"
    )
    func ownerSideOrderConverges() async throws {
        let server = InMemorySyncServer()
        let devices = try Self.devices(on: server)
        let (phone, laptop, tablet) = (devices[0], devices[1], devices[2])
        let context = phone.container.newBackgroundContext()
        let setlist = Setlist(name: "Friday")
        context.insert(setlist)
        setlist.songs = ["A", "B", "C", "D"].map(Song.init(title:))
        try context.save()
        for device in devices { try await device.sync.syncNow() }
        let id = setlist.objectGlobalID
        for device in devices { #expect(try Self.titles(id, Setlist.self, key: "songs", on: device) == ["A", "B", "C", "D"]) }

        // Offline: the phone moves D to the front, the laptop inserts E after B, the tablet drops B.
        setlist.songs.insert(setlist.songs.removeLast(), at: 0)
        try context.save()
        let onLaptop = laptop.container.newBackgroundContext()
        let laptopList = try #require(try onLaptop.object(withGlobalID: id, as: Setlist.self))
        laptopList.songs.insert(Song(title: "E"), at: 2)
        try onLaptop.save()
        let onTablet = tablet.container.newBackgroundContext()
        let tabletList = try #require(try onTablet.object(withGlobalID: id, as: Setlist.self))
        tabletList.songs.remove(at: 1)
        try onTablet.save()

        for device in [phone, laptop, tablet, phone, laptop] { try await device.sync.syncNow() }
        for device in devices { #expect(try Self.titles(id, Setlist.self, key: "songs", on: device) == ["D", "A", "E", "C"]) }
    }

    @Test(
        "A zine's print order, on the side that does not own the links, reaches the other devices, and a reversal on one reaches the others"
    )
    func inverseSideOrderTravels() async throws {
        let server = InMemorySyncServer()
        let devices = try Self.devices(on: server)
        // Made once the devices sync: recorded from the history (the setlist was adopted at the first sync).
        for device in devices { try await device.sync.syncNow() }
        let context = devices[0].container.newBackgroundContext()
        let zine = Zine(name: "Spring")
        context.insert(zine)
        zine.articles = ["one", "two", "three"].map(Article.init(title:))
        try context.save()
        for device in devices { try await device.sync.syncNow() }
        let id = zine.objectGlobalID
        for device in devices { #expect(try Self.titles(id, Zine.self, key: "articles", on: device) == ["one", "two", "three"]) }

        let onLaptop = devices[1].container.newBackgroundContext()
        try #require(try onLaptop.object(withGlobalID: id, as: Zine.self)).articles.reverse()
        try onLaptop.save()
        for device in [devices[1], devices[0], devices[2]] { try await device.sync.syncNow() }
        for device in devices { #expect(try Self.titles(id, Zine.self, key: "articles", on: device) == ["three", "two", "one"]) }
    }

    @Test(
        "A song moved on one device while another removes it from the setlist: the devices converge on the change sent last, and no link is left without its ends",
        arguments: [true, false])
    func moveAgainstRemovalConverges(moverSyncsFirst: Bool) async throws {
        let server = InMemorySyncServer()
        let devices = try Self.devices(on: server)
        let (phone, laptop) = (devices[0], devices[1])
        let context = phone.container.newBackgroundContext()
        let setlist = Setlist(name: "Saturday")
        context.insert(setlist)
        setlist.songs = ["A", "B", "C"].map(Song.init(title:))
        try context.save()
        for device in devices { try await device.sync.syncNow() }
        let id = setlist.objectGlobalID

        // Offline: the phone moves C to the front, the laptop removes C.
        setlist.songs.insert(setlist.songs.removeLast(), at: 0)
        try context.save()
        let onLaptop = laptop.container.newBackgroundContext()
        try #require(try onLaptop.object(withGlobalID: id, as: Setlist.self)).songs.removeLast()
        try onLaptop.save()

        let order = moverSyncsFirst ? [phone, laptop, phone, devices[2]] : [laptop, phone, laptop, devices[2]]
        for device in order { try await device.sync.syncNow() }
        let expected = moverSyncsFirst ? ["A", "B"] : ["C", "A", "B"]
        for device in devices {
            #expect(try Self.titles(id, Setlist.self, key: "songs", on: device) == expected)
            #expect(try await device.sync.setAsideRecords().isEmpty)
        }
    }
}
