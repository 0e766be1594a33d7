import Foundation
import ObjectGraph
import ObjectGraphSync
import ObjectGraphSyncProtocol
import ObjectGraphSyncTesting
import Testing

/// A gig, and a paid one: a hierarchy that syncs, each class as its own record type.
@Entity class Gig: Syncable {
    var title: String
    var day = 1
    init(title: String) { self.title = title }
}

@Entity final class PaidGig: Gig {
    var fee: Int
    init(title: String, fee: Int) {
        self.fee = fee
        super.init(title: title)
    }
}

@Suite("Sync client: entity hierarchies, each class as its own record type")
struct SyncHierarchyTests {
    static func devices(_ count: Int, server: InMemorySyncServer) throws -> [(container: ObjectContainer, sync: SyncCoordinator)] {
        try (0..<count).map { _ in
            let container = try ObjectContainer(
                schema: Schema([Gig.self, PaidGig.self] + SyncCoordinator.entities), configuration: .file(SyncDevice.newStorePath()))
            return (
                container,
                try SyncCoordinator(container: container, remote: server.remote(user: "alice"), syncing: [Gig.self, PaidGig.self])
            )
        }
    }

    static func gigs(_ container: ObjectContainer) throws -> [String] {
        try container.newBackgroundContext().fetch(FetchDescriptor<Gig>()).map { gig in
            "\(type(of: gig)) \(gig.title) \(gig.day)" + ((gig as? PaidGig).map { " \($0.fee)" } ?? "")
        }.sorted()
    }

    @Test("Objects of a hierarchy reach another device as their own classes; edits and deletions follow")
    func hierarchySyncs() async throws {
        let server = InMemorySyncServer()
        let devices = try Self.devices(2, server: server)
        do {
            let context = devices[0].container.newBackgroundContext()
            context.insert(Gig(title: "Open mic"))
            context.insert(PaidGig(title: "Wedding", fee: 500))
            try context.save()
        }
        // Never synced: every object waits, counted once (a PaidGig is a Gig too).
        #expect(await devices[0].sync.checkStatus().pendingChanges == 2)
        for index in [0, 1] { try await devices[index].sync.syncNow() }
        let records = try await server.allChanges(ZoneID("default", owner: "alice")).map(\.record.entity).sorted()
        #expect(records == ["Gig", "PaidGig"])
        #expect(try Self.gigs(devices[1].container) == ["Gig Open mic 1", "PaidGig Wedding 1 500"])

        do {
            let context = devices[1].container.newBackgroundContext()
            let wedding = try #require(try context.fetch(FetchDescriptor<PaidGig>()).first)
            wedding.fee = 650
            wedding.day = 6
            try context.save()
        }
        for index in [1, 0] { try await devices[index].sync.syncNow() }
        #expect(try Self.gigs(devices[0].container) == ["Gig Open mic 1", "PaidGig Wedding 6 650"])

        do {
            let context = devices[0].container.newBackgroundContext()
            for gig in try context.fetch(FetchDescriptor<Gig>()) { context.delete(gig) }
            try context.save()
        }
        for index in [0, 1, 0, 1] { try await devices[index].sync.syncNow() }
        for device in devices { #expect(try Self.gigs(device.container).isEmpty) }
    }
}
