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
}
