import Foundation
import ObjectGraph
import ObjectGraphSync
import ObjectGraphSyncProtocol
import ObjectGraphSyncTesting
import Testing

/// A photo whose image is kept in a file beside the store when it is large.
@Entity final class Photo: Syncable {
    var caption: String
    @Attribute(.externalStorage) var image: Data?
    init(caption: String, image: Data? = nil) {
        self.caption = caption
        self.image = image
    }
}

@Suite("Sync client: values stored in files travel as fields; a record larger than the server takes is held back, not a stall")
struct SyncLargeValueTests {
    /// Bytes of a size, every value NUL included, different for each seed.
    static func bytes(_ size: Int, seed: UInt8) -> Data {
        Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
    }

    static func devices(_ count: Int, server: InMemorySyncServer) throws -> [(
        path: String, container: ObjectContainer, sync: SyncCoordinator
    )] {
        try (0..<count).map { _ in
            let path = SyncDevice.newStorePath()
            let container = try ObjectContainer(
                schema: Schema([Photo.self] + SyncCoordinator.entities), configuration: .file(path))
            return (path, container, try SyncCoordinator(container: container, remote: server.remote(user: "alice"), syncing: [Photo.self]))
        }
    }

    /// The captions and images of a device's photos.
    static func photos(_ container: ObjectContainer) throws -> [String: Data?] {
        let context = container.newBackgroundContext()
        return Dictionary(uniqueKeysWithValues: try context.fetch(FetchDescriptor<Photo>()).map { ($0.caption, $0.image) })
    }

    static func files(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path + "-external")) ?? []).filter { $0 != "incoming" }
    }

    @Test("An image kept in a file reaches another device, kept there in a file too; its replacement and its deletion follow")
    func imageInAFileSyncs() async throws {
        let server = InMemorySyncServer()
        let devices = try Self.devices(2, server: server)
        let image = Self.bytes(150_000, seed: 1)
        do {
            let context = devices[0].container.newBackgroundContext()
            context.insert(Photo(caption: "beach", image: image))
            try context.save()
        }
        for index in [0, 1] { try await devices[index].sync.syncNow() }
        #expect(try Self.photos(devices[1].container) == ["beach": image])
        #expect(Self.files(devices[1].path).count == 1)

        let replaced = Self.bytes(180_000, seed: 2)
        do {
            let context = devices[1].container.newBackgroundContext()
            try context.fetch(FetchDescriptor<Photo>()).first?.image = replaced
            try context.save()
        }
        for index in [1, 0] { try await devices[index].sync.syncNow() }
        #expect(try Self.photos(devices[0].container) == ["beach": replaced])

        do {
            let context = devices[0].container.newBackgroundContext()
            for photo in try context.fetch(FetchDescriptor<Photo>()) { context.delete(photo) }
            try context.save()
        }
        for index in [0, 1, 0, 1] { try await devices[index].sync.syncNow() }
        for device in devices {
            #expect(try Self.photos(device.container).isEmpty)
            #expect(Self.files(device.path).isEmpty)
        }
    }

    @Test(
        "A record larger than the server takes is held back and reported, the other records sync; a smaller value sends it"
    )
    func tooLargeRecordIsHeldBack() async throws {
        let server = InMemorySyncServer()
        let devices = try Self.devices(2, server: server)
        let huge = Self.bytes(server.limits.maxRecordBytes, seed: 3)  // larger once in base64
        let heldID: UUID
        do {
            let context = devices[0].container.newBackgroundContext()
            let held = Photo(caption: "panorama", image: huge)
            context.insert(held)
            for index in 0..<3 { context.insert(Photo(caption: "small \(index)", image: Self.bytes(1_000, seed: UInt8(index)))) }
            try context.save()
            heldID = held.objectGlobalID
        }
        try await devices[0].sync.syncNow()
        #expect(devices[0].sync.status.current.heldBackRecords == 1)
        let heldBack = try await devices[0].sync.heldBackRecords()
        #expect(heldBack.map(\.id) == [heldID])
        #expect(heldBack.first?.entity == "Photo")
        #expect(heldBack.first?.reason.contains("\(server.limits.maxRecordBytes)") == true, "\(heldBack)")

        try await devices[1].sync.syncNow()
        #expect(try Set(Self.photos(devices[1].container).keys) == ["small 0", "small 1", "small 2"])

        // The next sync does not send it again, and does not fail.
        try await devices[0].sync.syncNow()
        #expect(devices[0].sync.status.current.lastError == nil)

        let smaller = Self.bytes(120_000, seed: 4)
        do {
            let context = devices[0].container.newBackgroundContext()
            try context.object(withGlobalID: heldID, as: Photo.self)?.image = smaller
            try context.save()
        }
        try await devices[0].sync.syncNow()
        #expect(devices[0].sync.status.current.heldBackRecords == 0)
        #expect(try await devices[0].sync.heldBackRecords().isEmpty)
        try await devices[1].sync.syncNow()
        #expect(try Self.photos(devices[1].container)["panorama"] == smaller)
    }
}
