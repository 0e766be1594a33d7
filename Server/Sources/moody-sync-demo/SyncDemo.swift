import Foundation
import Hummingbird
import Logging
import MoodyModel
import ObjectGraph
import ObjectGraphSync
import ObjectGraphSyncProtocol
import ServiceLifecycle
import SyncServer

/// `moody-sync-demo`: a sync server on a temporary SQLite file and two devices, each with a store
/// of its own and a sync coordinator following the server's live route. A mood added on the phone
/// appears in the laptop's list, an edit reaches the other's detail view, a conflicting edit made
/// offline is settled by the entity's policy, a deletion closes the other's detail view, a country
/// made on both offline converges on one, and an older client's mood that breaks a rule is set
/// aside. Then alice shares a country with bob, who sees its moods live, edits one as a writer, is
/// made a reader and refused, and is removed: the moods leave his store.
@main
enum SyncDemo {
    static func main() async {
        do {
            try await run()
        } catch {
            print("The sync demo failed: \(error)")
            exit(1)
        }
    }

    static func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("moody-sync-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var logger = Logger(label: "moody-sync-demo")
        logger.logLevel = .warning
        let database = directory.appendingPathComponent("server.sqlite").path
        let configuration = SyncServerConfiguration(database: .sqlite(path: database), port: 0)
        let administration = try SyncServer(configuration: configuration, logger: logger)
        let token = try await administration.addUser(named: "alice").text
        let bobToken = try await administration.addUser(named: "bob").text
        let (ports, listening) = AsyncStream.makeStream(of: Int.self)
        let application = try SyncServer(configuration: configuration, logger: logger).application { port in
            listening.yield(port)
            listening.finish()
        }
        let services = ServiceGroup(configuration: .init(services: [application], logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await services.run() }
            var port = 0
            for await listened in ports { port = listened }
            print("Sync demo: a sync server, alice's phone and laptop, and bob's phone, each with a store of its own.")
            print("  server: http://127.0.0.1:\(port), on \(database), with users alice and bob")
            try await DemoScript(directory: directory, port: port, token: token, bobToken: bobToken).play()
            await services.triggerGracefulShutdown()
            try await group.waitForAll()
        }
    }
}

/// The scenes of the demo, played on the main actor where the devices' view contexts live.
@MainActor struct DemoScript {
    let phone: Device
    let laptop: Device
    /// Another user's device, which alice shares a country with.
    let bob: Device
    /// Another client of the zone, of an older version of the app.
    let olderClient: HTTPSyncRemote

    init(directory: URL, port: Int, token: String, bobToken: String) throws {
        phone = try Device(name: "phone", directory: directory, port: port, token: token)
        laptop = try Device(name: "laptop", directory: directory, port: port, token: token)
        bob = try Device(name: "bob's phone", directory: directory, port: port, token: bobToken)
        guard let url = URL(string: "http://127.0.0.1:\(port)") else { throw DemoError("no URL for port \(port)") }
        olderClient = HTTPSyncRemote(url: url, token: token)
    }

    func play() async throws {
        await phone.sync.start()
        await laptop.sync.start()
        let laptopList = try laptop.showList()

        print("\n1. The phone records a mood; it appears in the laptop's list.")
        let mood = Mood(text: "Sunny morning", rating: 4, country: Country(name: "France"))
        phone.context.insert(mood)
        try phone.context.save()
        print("  phone: adds 'Sunny morning' (France, 4★) and saves")
        try await laptop.waitUntil("the laptop lists the mood") { laptopList.count == 1 }

        print("\n2. An edit on the laptop redraws the phone's detail view.")
        let phoneDetail = phone.openDetail(mood)
        let onLaptop = try laptop.mood(like: mood)
        onLaptop.rating = 5
        try laptop.context.save()
        print("  laptop: rates it 5★ and saves")
        try await phone.waitUntil("the phone shows 5★") { mood.rating == 5 }

        print("\n3. A conflict: both change the text, the laptop offline; the server's value wins for moods.")
        await laptop.sync.stop()
        onLaptop.text = "Sunny morning, coffee"
        try laptop.context.save()
        print("  laptop (offline): 'Sunny morning, coffee'")
        mood.text = "Sunny morning in Paris"
        try phone.context.save()
        print("  phone: 'Sunny morning in Paris', sent first")
        try await phone.waitUntil("the phone's edit reaches the server") { phone.sync.status.current.pendingChanges == 0 }
        try await phone.sync.syncNow()
        print("  laptop: back online")
        await laptop.sync.start()
        try await laptop.waitUntil("the laptop settles the conflict") { onLaptop.text == "Sunny morning in Paris" }
        print("  laptop: settled by Mood's policy (the server's value wins): '\(onLaptop.text)'")
        try await Device.waitUntil("the laptop's settled state reaches the phone", watching: [phone, laptop]) {
            laptop.sync.status.current.pendingChanges == 0 && mood.text == onLaptop.text
        }
        print("  both show '\(mood.text)'")

        print("\n4. The phone deletes the mood; the laptop's detail view closes.")
        let laptopDetail = laptop.openDetail(onLaptop)
        phone.context.delete(mood)
        try phone.context.save()
        print("  phone: deletes 'Sunny morning in Paris' (and France with its last mood) and saves")
        try await laptop.waitUntil("the laptop's detail view closes") { !laptopDetail.isOpen }
        try await laptop.waitUntil("the laptop's list is empty") { laptopList.count == 0 }
        withExtendedLifetime((laptopList, phoneDetail)) {}

        print("\n5. Both make Iceland while offline: a unique name converges on one country with both moods.")
        for device in [phone, laptop] { await device.sync.stop() }
        for (device, text) in [(phone, "Geysers"), (laptop, "Northern lights")] {
            device.context.insert(Mood(text: text, rating: 5, country: Country(name: "Iceland")))
            try device.context.save()
            print("  \(device.name) (offline): '\(text)' in a new Iceland")
        }
        for device in [phone, laptop] { await device.sync.start() }
        try await Device.waitUntil("both devices show one Iceland with both moods", watching: [phone, laptop]) {
            [phone, laptop].allSatisfy { device in
                // A fetch that fails reads as not yet; the wait's time limit reports it.
                let icelands = try? Array(device.context.fetch(FetchDescriptor<Country>(predicate: #Predicate { $0.name == "Iceland" })))
                return icelands?.count == 1 && icelands?.first?.moods.count == 2
            }
        }
        for device in [phone, laptop] {
            let iceland = try device.context.fetch(FetchDescriptor<Country>(predicate: #Predicate { $0.name == "Iceland" }))[0]
            print(
                "  \(device.name): one Iceland (\(iceland.objectGlobalID.uuidString.prefix(8))…), moods \(iceland.moods.map(\.text).sorted())"
            )
        }

        print("\n6. An older client pushes a mood rated 9 with no text: each device sets it aside, the rest goes on.")
        _ = try await olderClient.push(
            PushRequest(
                clientID: UUID(),
                mutations: [
                    .upsert(1, entity: "Mood", id: UUID(), fields: ["text": .string(""), "rating": .integer(9), "date": .double(0)])
                ]), zone: "moods")
        try await Device.waitUntil("both devices set it aside", watching: [phone, laptop]) {
            phone.sync.status.current.setAsideRecords == 1 && laptop.sync.status.current.setAsideRecords == 1
        }
        for device in [phone, laptop] {
            print("  \(device.name): set aside: \(device.sync.status.current.lastSetAsideReason ?? "")")
        }
        try await share()
    }

    /// Alice shares Iceland with bob: invited as a writer, he sees its moods and edits one; made a
    /// reader, his edit is refused at save; removed, the moods leave his store.
    func share() async throws {
        print("\n7. The phone shares Iceland with bob as a writer: the country and its moods move into a zone of their own.")
        let iceland = try phone.context.fetch(FetchDescriptor<Country>(predicate: #Predicate { $0.name == "Iceland" }))[0]
        let zone = try await phone.sync.share(iceland.objectID)
        let invitation = try await phone.sync.invite("bob", as: .writer, to: zone)
        print("  phone: shared Iceland in the zone \(zone), invited bob (invitation \(invitation.id))")
        await bob.sync.start()
        let bobList = try bob.showList()
        let waiting = try await bob.sync.invitations()
        print("  \(bob.name): invitations waiting: \(waiting.map { "\($0.id) from \($0.owner) as \($0.role.rawValue)" })")
        let joined = try await bob.sync.accept(InvitationAcceptance(id: invitation.id))
        try await bob.waitUntil("bob lists Iceland's moods") { bobList.count == 2 }
        print("  \(bob.name): joined \(joined) as \(await bob.sync.role(in: joined)?.rawValue ?? "?")")
        try await laptop.waitUntil("the laptop still lists both moods") { (try? laptop.context.fetchCount(FetchDescriptor<Mood>())) == 2 }
        print("  laptop: its Iceland followed into the zone, nothing deleted")

        print("\n8. Bob, a writer, rates a mood 1★; the phone sees it, and the feed names bob as its author.")
        let geysers = try bob.context.fetch(FetchDescriptor<Mood>(predicate: #Predicate { $0.text == "Geysers" }))[0]
        geysers.rating = 1
        try bob.context.save()
        let onPhone = try phone.context.fetch(FetchDescriptor<Mood>(predicate: #Predicate { $0.text == "Geysers" }))[0]
        try await phone.waitUntil("the phone shows 1★") { onPhone.rating == 1 }
        var cursor = FeedCursor.start, authors: [String] = []
        while true {
            let page = try await olderClient.changes(zone: zone, since: cursor, limit: 100)
            authors += page.changes.compactMap(\.author)
            cursor = page.cursor
            if !page.hasMore { break }
        }
        print("  phone: 'Geysers' is 1★ now; the zone's last change is by \(authors.last ?? "?")")

        print("\n9. The phone makes bob a reader: his next edit is refused at save.")
        try await phone.sync.setRole(.reader, of: "bob", in: zone)
        try await bob.sync.syncNow()
        geysers.rating = 2
        do {
            try bob.context.save()
            throw DemoError("a reader's edit was saved")
        } catch let error as ObjectGraphError where error.code == .validationFailed {
            print("  \(bob.name): refused: \(error.validationFailures.map(\.description).joined(separator: "; "))")
            bob.context.rollback()
        }

        print("\n10. The phone removes bob from the zone: the moods leave his store.")
        try await phone.sync.removeMember("bob", from: zone)
        try await bob.sync.syncNow()
        try await bob.waitUntil("bob's list is empty") { bobList.count == 0 }
        print("  \(bob.name): zones now \(await bob.sync.zones.keys.map(\.description).sorted())")

        for device in [phone, laptop, bob] {
            await device.sync.stop()
            let status = device.sync.status.current
            print(
                "  \(device.name): \(status.pendingChanges) changes waiting, last sync \(status.lastSuccessfulSync.map { "\($0)" } ?? "never")"
            )
        }
        withExtendedLifetime(bobList) {}
        print("Done: every change travelled through the server's HTTP API and its live route.")
    }
}

/// One device: a store file, its view context, and a sync coordinator.
@MainActor struct Device {
    let name: String
    let container: ObjectContainer
    let sync: SyncCoordinator
    var context: ObjectContext { container.viewContext }

    init(name: String, directory: URL, port: Int, token: String) throws {
        self.name = name
        let path = directory.appendingPathComponent("\(name).sqlite").path
        container = try ObjectContainer(schema: MoodyStore.schema(), configuration: .file(path))
        guard let url = URL(string: "http://127.0.0.1:\(port)") else { throw DemoError("no URL for port \(port)") }
        sync = try SyncCoordinator(
            container: container, remote: HTTPSyncRemote(url: url, token: token), zone: "moods",
            syncing: MoodyStore.syncedTypes, processors: MoodyStore.syncProcessors)
        print("  \(name): \(path), syncing live")
    }

    /// The device's list screen of moods.
    func showList() throws -> ListScreen { try ListScreen(device: name, context: context) }

    func openDetail(_ mood: Mood) -> DetailView { DetailView(device: name, showing: mood) }

    /// The device's own object for the same mood.
    func mood(like mood: Mood) throws -> Mood {
        guard let copy = try context.object(withGlobalID: mood.objectGlobalID, as: Mood.self) else {
            throw DemoError("the \(name) does not have '\(mood.text)'")
        }
        return copy
    }

    /// Waits until `condition` holds, checked at each change this device's view context merges and
    /// each change of its sync's status (see ``waitUntil(_:watching:_:)``).
    func waitUntil(_ what: String, _ condition: @escaping @MainActor () -> Bool) async throws {
        try await Self.waitUntil(what, watching: [self], condition)
    }

    /// Waits until `condition` holds, checked at each change the devices' view contexts merge and
    /// each change of their syncs' status; fails after 30 seconds rather than hang. Every device
    /// the condition reads must be watched: a change on one that is not would wake nobody.
    static func waitUntil(
        _ what: String, watching devices: [Device], _ condition: @escaping @MainActor () -> Bool
    ) async throws {
        // Subscribed before the first check, so that no change between the two is missed.
        let changes = devices.map(\.context.objectsDidChangeNotifications)
        let statuses = devices.map(\.sync.status.updates)
        if condition() { return }
        let (events, event) = AsyncStream<Void>.makeStream()
        var watchers: [Task<Void, Never>] = []
        for stream in changes { watchers.append(Task { @MainActor in for await _ in stream { event.yield() } }) }
        for stream in statuses { watchers.append(Task { for await _ in stream { event.yield() } }) }
        watchers.append(
            Task {
                try? await Task.sleep(for: .seconds(30))
                event.finish()
            })
        defer { for watcher in watchers { watcher.cancel() } }
        for await _ in events where condition() { return }
        throw DemoError("\(what) did not happen within 30 seconds")
    }
}

/// A detail screen: shows one mood, redraws when it changes, closes when it is deleted.
@MainActor final class DetailView {
    private(set) var isOpen = true
    private var observer: ObjectObserver<Mood>?

    init(device: String, showing mood: Mood) {
        print("  \(device) detail view: showing '\(mood.text)'")
        observer = ObjectObserver(mood) { [weak self] change in
            switch change {
            case .update(let keys):
                print("  \(device) detail view: redrawn (\(keys.sorted().joined(separator: ", "))): '\(mood.text)' \(mood.rating)★")
            case .delete:
                print("  \(device) detail view: its mood was deleted, closing")
                self?.isOpen = false
                self?.observer = nil
            }
        }
    }
}

/// A list screen: the device's moods, kept by a list monitor, each change it is told of printed.
@MainActor final class ListScreen: @MainActor ListObjectObserver {
    typealias ListEntityType = Mood
    let device: String
    let monitor: ListMonitor<Mood>
    var count: Int { monitor.count }

    init(device: String, context: ObjectContext) throws {
        self.device = device
        monitor = try context.monitorList(Mood.self, sortBy: [SortDescriptor(\.text)])
        monitor.addObserver(self)
    }

    func listMonitor(_ monitor: ListMonitor<Mood>, didInsertObject object: Mood, toIndexPath indexPath: IndexPath) {
        print("  \(device) list: insert '\(object.text)' at row \(indexPath[1])")
    }

    func listMonitor(_ monitor: ListMonitor<Mood>, didDeleteObject object: Mood, fromIndexPath indexPath: IndexPath) {
        print("  \(device) list: delete '\(object.text)' from row \(indexPath[1])")
    }

    func listMonitor(_ monitor: ListMonitor<Mood>, didUpdateObject object: Mood, atIndexPath indexPath: IndexPath) {
        print("  \(device) list: update '\(object.text)' at row \(indexPath[1])")
    }
}

struct DemoError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
