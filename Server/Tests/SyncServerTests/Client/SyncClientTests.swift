import Foundation
import MoodyModel
import ObjectGraph
import ObjectGraphSync
import ObjectGraphSyncProtocol
import Testing

@Suite("Sync client: objects travel between devices through a real server")
struct SyncClientTests {
    @Test("A mood made on one device reaches another with its country; its edit and its deletion follow",
          arguments: Backend.available)
    func moodsTravel(_ backend: Backend) async throws {
        let server = try await SyncTestServer(backend)
        let token = try await server.addUser("alice")
        try await server.run { client in
            let phone = try SyncDevice(port: client.port, token: token)
            let laptop = try SyncDevice(port: client.port, token: token)
            let context = phone.container.newBackgroundContext()
            let france = Country(name: "France")
            let mood = Mood(text: "Croissant", rating: 4, country: france)
            context.insert(mood)
            try context.save()
            try await phone.sync.syncNow()
            try await laptop.sync.syncNow()

            let reader = laptop.container.newBackgroundContext()
            let copy = try #require(try reader.object(withGlobalID: mood.objectGlobalID, as: Mood.self))
            #expect(copy.text == "Croissant" && copy.rating == 4 && copy.date == mood.date)
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

    @Test("Started coordinators follow the app's saves and the live route: another device's list shows the new mood, and its detail screen closes when the mood is deleted there")
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
}
