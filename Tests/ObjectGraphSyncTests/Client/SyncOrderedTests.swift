import Foundation
import ObjectGraph
import ObjectGraphSync
import ObjectGraphSyncProtocol
import ObjectGraphSyncTesting
import Testing

/// A trip whose stops are in the order the traveller chose.
@Entity final class Trip: Syncable {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []
    init(name: String) { self.name = name }
}

@Entity final class Stop: Syncable {
    var name: String
    var trip: Trip?
    init(name: String) { self.name = name }
}

@Suite("Sync client: ordered to-many relationships sync with their order, and concurrent edits of it converge")
struct SyncOrderedTests {
    /// A device syncing trips, and a context of its own.
    struct TripDevice {
        let container: ObjectContainer
        let sync: SyncCoordinator
        let context: ObjectContext

        init(server: InMemorySyncServer) throws {
            container = try ObjectContainer(
                schema: Schema([Trip.self, Stop.self] + SyncCoordinator.entities), configuration: .file(SyncDevice.newStorePath()))
            sync = try SyncCoordinator(
                container: container, remote: server.remote(user: "alice"), syncing: [Trip.self, Stop.self])
            context = container.newBackgroundContext()
        }

        /// The trip's stops, as a fresh context reads them.
        func stops(of trip: UUID) throws -> [String] {
            let reader = container.newBackgroundContext()
            return try #require(try reader.object(withGlobalID: trip, as: Trip.self)).stops.map(\.name)
        }

        func trip(_ id: UUID) throws -> Trip { try #require(try context.object(withGlobalID: id, as: Trip.self)) }
    }

    /// Three devices with the trip `stops` made on the first and synced to all.
    static func devicesWithTrip(_ stops: [String], server: InMemorySyncServer) async throws -> ([TripDevice], UUID) {
        let devices = try (0..<3).map { _ in try TripDevice(server: server) }
        let trip = Trip(name: "Rome")
        devices[0].context.insert(trip)
        trip.stops = stops.map(Stop.init(name:))
        try devices[0].context.save()
        for device in devices { try await device.sync.syncNow() }
        return (devices, trip.objectGlobalID)
    }

    @Test("A trip's stops reach the other devices in their order, and a reversal on one reaches the others")
    func orderTravels() async throws {
        let server = InMemorySyncServer()
        do {
            let stops = ["Vespa", "Pasta", "Aperitivo", "Espresso"]
            let (devices, trip) = try await Self.devicesWithTrip(stops, server: server)
            for device in devices { #expect(try device.stops(of: trip) == stops) }

            let laptop = devices[1]
            try laptop.trip(trip).stops.reverse()
            try laptop.context.save()
            for device in [devices[1], devices[0], devices[2]] { try await device.sync.syncNow() }
            for device in devices { #expect(try device.stops(of: trip) == stops.reversed()) }
        }
    }

    @Test(
        "Concurrent edits of one order converge on every device: insertions at different places both kept, a move on one device and an insertion on another both survive"
    )
    func concurrentEditsConverge() async throws {
        let server = InMemorySyncServer()
        do {
            let (devices, trip) = try await Self.devicesWithTrip(["A", "B", "C", "D"], server: server)
            let (phone, laptop, tablet) = (devices[0], devices[1], devices[2])
            // Offline, the phone inserts X after A and moves D to the front; the laptop inserts Y after C.
            let onPhone = try phone.trip(trip)
            onPhone.stops.insert(Stop(name: "X"), at: 1)
            onPhone.stops.insert(onPhone.stops.removeLast(), at: 0)
            try phone.context.save()
            let onLaptop = try laptop.trip(trip)
            onLaptop.stops.insert(Stop(name: "Y"), at: 3)
            try laptop.context.save()

            for device in [phone, laptop, phone, tablet] { try await device.sync.syncNow() }
            for device in devices { #expect(try device.stops(of: trip) == ["D", "A", "X", "B", "C", "Y"]) }
        }
    }
}
