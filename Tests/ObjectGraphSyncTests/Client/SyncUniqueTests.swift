import Foundation
import MoodyModel
import ObjectGraph
import ObjectGraphSync
import ObjectGraphSyncProtocol
import ObjectGraphSyncTesting
import Testing

/// A tag whose name is unique, kept twice when two devices make the same one.
@Entity final class Tag: Syncable {
    @Attribute(.unique) var name: String
    init(name: String) { self.name = name }
    static var syncConfiguration: SyncConfiguration { SyncConfiguration(uniqueClashPolicy: .keepBoth) }
}

/// A bookcase, and its slots: one slot per shelf of a bookcase and position (a `#Unique` group with
/// a reference).
@Entity final class Bookcase: Syncable {
    @Attribute(.unique) var name: String
    var slots: Set<Slot> = []
    init(name: String) { self.name = name }
}

@Entity final class Slot: Syncable {
    #Unique<Slot>([\.shelf, \.position])
    var position: Int
    var note: String = ""
    @Relationship(inverse: \Bookcase.slots) var shelf: Bookcase?
    init(position: Int) { self.position = position }
}

/// A sticker: one per text and color, kept both when two devices make the same one.
@Entity final class Sticker: Syncable {
    #Unique<Sticker>([\.text, \.color])
    var text: String
    var color: Int
    init(text: String, color: Int) {
        self.text = text
        self.color = color
    }
    static var syncConfiguration: SyncConfiguration { SyncConfiguration(uniqueClashPolicy: .keepBoth) }
}

/// A postcard whose text is searchable.
@Entity final class Postcard: Syncable {
    @Attribute(.searchable) var text: String
    init(text: String) { self.text = text }
}

@Suite("Sync client: unique attributes under sync; a value made on two devices converges on one object")
struct SyncUniqueTests {
    /// A country named `name` under `id`, with a mood, saved on `device`.
    static func countryWithMood(_ name: String, id: UUID, mood: String, on device: SyncDevice) throws {
        let context = device.container.newBackgroundContext()
        let country = Country(name: name)
        try context.insert(country, globalID: id)
        let made = Mood(text: mood)
        context.insert(made)
        made.country = country
        try context.save()
    }

    /// The countries of `device` by name, with the texts of their moods.
    static func countries(on device: SyncDevice) throws -> [String: (id: UUID, moods: [String])] {
        let context = device.container.newBackgroundContext()
        var found: [String: (id: UUID, moods: [String])] = [:]
        for country in try context.fetch(FetchDescriptor<Country>()) {
            found[country.name] = (country.objectGlobalID, country.moods.map(\.text).sorted())
        }
        return found
    }

    @Test(
        "Two devices that make the same unique value offline converge, with a third, on one object: the smallest ID survives, the other's references re-pointed to it, and later changes flow both ways",
        arguments: [true, false])
    func uniqueClashConverges(survivorSyncsFirst: Bool) async throws {
        let server = InMemorySyncServer()
        do {
            let phone = try SyncDevice(server: server)
            let laptop = try SyncDevice(server: server)
            let tablet = try SyncDevice(server: server)
            let low = try #require(UUID(uuidString: "00000000-0000-4000-8000-000000000001"))
            let high = try #require(UUID(uuidString: "FFFFFFFF-0000-4000-8000-000000000001"))
            // Offline, each device makes France.
            try Self.countryWithMood("France", id: survivorSyncsFirst ? low : high, mood: "phone's", on: phone)
            try Self.countryWithMood("France", id: survivorSyncsFirst ? high : low, mood: "laptop's", on: laptop)

            for device in [phone, laptop, phone, laptop, tablet] { try await device.sync.syncNow() }
            for device in [phone, laptop, tablet] {
                let countries = try Self.countries(on: device)
                #expect(countries.count == 1 && countries["France"]?.id == low, "\(countries)")
                #expect(countries["France"]?.moods == ["laptop's", "phone's"], "\(countries)")
            }
            // Later changes flow both ways.
            for (device, text) in [(phone, "later on the phone"), (laptop, "later on the laptop")] {
                let context = device.container.newBackgroundContext()
                let france = try #require(try context.object(withGlobalID: low, as: Country.self))
                let mood = Mood(text: text)
                context.insert(mood)
                mood.country = france
                try context.save()
            }
            for device in [phone, laptop, phone, tablet] { try await device.sync.syncNow() }
            for device in [phone, laptop, tablet] {
                #expect(
                    try Self.countries(on: device)["France"]?.moods == ["laptop's", "later on the laptop", "later on the phone", "phone's"])
                #expect(device.sync.status.current.setAsideRecords == 0)
            }
        }
    }

    @Test(
        "With the keep-both policy, two devices that make the same unique value keep both records everywhere, the one with the larger ID renamed alike on every device",
        arguments: [true, false])
    func uniqueClashKeepsBoth(survivorSyncsFirst: Bool) async throws {
        let server = InMemorySyncServer()
        do {
            let devices = try (0..<3).map { _ in
                let container = try ObjectContainer(
                    schema: Schema([Tag.self] + SyncCoordinator.entities), configuration: .file(SyncDevice.newStorePath()))
                return (
                    container,
                    try SyncCoordinator(container: container, remote: server.remote(user: "alice"), syncing: [Tag.self])
                )
            }
            let low = try #require(UUID(uuidString: "00000000-0000-4000-8000-000000000002"))
            let high = try #require(UUID(uuidString: "FFFFFFFF-0000-4000-8000-000000000002"))
            for (index, id) in zip(0..., survivorSyncsFirst ? [low, high] : [high, low]) {
                let context = devices[index].0.newBackgroundContext()
                try context.insert(Tag(name: "urgent"), globalID: id)
                try context.save()
            }
            for index in [0, 1, 0, 1, 2] { try await devices[index].1.syncNow() }
            for (container, sync) in devices {
                let context = container.newBackgroundContext()
                let tags = Dictionary(uniqueKeysWithValues: try context.fetch(FetchDescriptor<Tag>()).map { ($0.objectGlobalID, $0.name) })
                #expect(tags == [low: "urgent", high: "urgent (FFFFFFFF)"], "\(tags)")
                #expect(sync.status.current.setAsideRecords == 0)
            }
            let feed = try await server.allChanges("default")
            let latest = Dictionary(feed.map { ($0.record.id, $0.record) }, uniquingKeysWith: { $1 })
            #expect(latest[high]?.fields["name"] == .string("urgent (FFFFFFFF)"), "the device that made it sent the new name")
        }
    }

    /// Devices syncing `types` alone with `server` as alice.
    static func devices(_ count: Int, syncing types: [any Syncable.Type], server: InMemorySyncServer) throws -> [(
        ObjectContainer, SyncCoordinator
    )] {
        try (0..<count).map { _ in
            let container = try ObjectContainer(
                schema: Schema(types + SyncCoordinator.entities), configuration: .file(SyncDevice.newStorePath()))
            return (container, try SyncCoordinator(container: container, remote: server.remote(user: "alice"), syncing: types))
        }
    }

    @Test(
        "Two devices that make objects with the same values of a #Unique group that holds a reference converge on one object, the smallest ID",
        arguments: [true, false])
    func groupClashConverges(survivorSyncsFirst: Bool) async throws {
        let server = InMemorySyncServer()
        do {
            let devices = try Self.devices(3, syncing: [Bookcase.self, Slot.self], server: server)
            let bookcaseID = UUID()
            do {
                let context = devices[0].0.newBackgroundContext()
                try context.insert(Bookcase(name: "Top"), globalID: bookcaseID)
                try context.save()
            }
            for index in [0, 1] { try await devices[index].1.syncNow() }
            let low = try #require(UUID(uuidString: "00000000-0000-4000-8000-000000000003"))
            let high = try #require(UUID(uuidString: "FFFFFFFF-0000-4000-8000-000000000003"))
            // Offline, each device fills position 1 of the shelf, and position 2 only on one.
            for (index, id) in zip(0..., survivorSyncsFirst ? [low, high] : [high, low]) {
                let context = devices[index].0.newBackgroundContext()
                let shelf = try #require(try context.object(withGlobalID: bookcaseID, as: Bookcase.self))
                let slot = Slot(position: 1)
                slot.note = "device \(index)"
                try context.insert(slot, globalID: id)
                slot.shelf = shelf
                if index == 0 {
                    let other = Slot(position: 2)
                    context.insert(other)
                    other.shelf = shelf
                }
                try context.save()
            }
            for index in [0, 1, 0, 1, 2] { try await devices[index].1.syncNow() }
            for (container, sync) in devices {
                let context = container.newBackgroundContext()
                let slots = try context.fetch(FetchDescriptor<Slot>(sortBy: [SortDescriptor(\.position)]))
                #expect(slots.map(\.position) == [1, 2], "\(slots.map(\.position))")
                #expect(slots.first?.objectGlobalID == low)
                #expect(slots.allSatisfy { $0.shelf?.objectGlobalID == bookcaseID })
                #expect(sync.status.current.setAsideRecords == 0)
            }
        }
    }

    @Test("Text that arrives through the sync is searchable at once, and so is an edit of it, on every device")
    func syncedTextIsSearchable() async throws {
        let server = InMemorySyncServer()
        do {
            let devices = try Self.devices(2, syncing: [Postcard.self], server: server)
            do {
                let context = devices[0].0.newBackgroundContext()
                context.insert(Postcard(text: "Greetings from sunny Lisbon"))
                try context.save()
            }
            for index in [0, 1] { try await devices[index].1.syncNow() }
            let reader = devices[1].0.newBackgroundContext()
            let found = try reader.search(Postcard.self, matching: "lisbon")
            #expect(found.map(\.object.text) == ["Greetings from sunny Lisbon"])
            let card = try #require(found.first?.object)
            card.text = "Greetings from rainy Porto"
            try reader.save()
            for index in [1, 0] { try await devices[index].1.syncNow() }
            let first = devices[0].0.newBackgroundContext()
            #expect(try first.search(Postcard.self, matching: "porto").count == 1)
            #expect(try first.search(Postcard.self, matching: "lisbon").isEmpty)
        }
    }

    @Test(
        "With the keep-both policy, two devices that make the same values of a #Unique group keep both, the larger ID's text renamed alike everywhere"
    )
    func groupClashKeepsBoth() async throws {
        let server = InMemorySyncServer()
        do {
            let devices = try Self.devices(3, syncing: [Sticker.self], server: server)
            let low = try #require(UUID(uuidString: "00000000-0000-4000-8000-000000000004"))
            let high = try #require(UUID(uuidString: "FFFFFFFF-0000-4000-8000-000000000004"))
            for (index, id) in zip(0..., [high, low]) {
                let context = devices[index].0.newBackgroundContext()
                try context.insert(Sticker(text: "urgent", color: 1), globalID: id)
                // Same text, another color: no clash.
                context.insert(Sticker(text: "urgent", color: 2 + index))
                try context.save()
            }
            for index in [0, 1, 0, 1, 2] { try await devices[index].1.syncNow() }
            for (container, sync) in devices {
                let context = container.newBackgroundContext()
                let stickers = try context.fetch(FetchDescriptor<Sticker>(predicate: #Predicate { $0.color == 1 }))
                let byID = Dictionary(uniqueKeysWithValues: stickers.map { ($0.objectGlobalID, $0.text) })
                #expect(byID == [low: "urgent", high: "urgent (FFFFFFFF)"], "\(byID)")
                #expect(try context.fetchCount(FetchDescriptor<Sticker>()) == 4)
                #expect(sync.status.current.setAsideRecords == 0)
            }
        }
    }
}
