import ArgumentParser
import Foundation
import MoodyModel
import ObjectGraph
import ObjectGraphSync
import ObjectGraphSyncProtocol
import Synchronization

/// `moody sync`: the store in step with a sync server a user runs (`objectgraph-sync-server`).
///
/// Two terminals, two stores, one server:
///
/// ```sh
/// moody sync run --store phone.sqlite --server http://127.0.0.1:8080 --token $TOKEN
/// moody add "Sunny" --country France --store laptop.sqlite
/// moody sync now --store laptop.sqlite --server http://127.0.0.1:8080 --token $TOKEN
/// ```
struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sync the store with a sync server (objectgraph-sync-server).",
        discussion: """
            Start a server (swift run --package-path Server --scratch-path .build objectgraph-sync-server), give a user a \
            token (objectgraph-sync-server user add alice), then sync each store with --server and \
            --token (or OBJECTGRAPH_SYNC_TOKEN). Stopping with Ctrl-C at any moment loses nothing: \
            what was not acknowledged is sent again, exactly once.
            """,
        subcommands: [Now.self, Run.self, Status.self])

    struct Now: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send the local changes and apply the server's, once, then print the status.")
        @OptionGroup var store: StoreOption
        @OptionGroup var server: SyncServerOptions

        func run() async throws {
            let container = try store.open()
            let sync = try server.coordinator(for: container)
            let received = ReceivedChanges(container)
            do {
                try await sync.syncNow()
            } catch {
                print(SyncStatusText.lines(sync.status.current).joined(separator: "\n"))
                throw ExitCode.failure
            }
            print("Received from \(server.server): \(received.summary)")
            print(SyncStatusText.lines(sync.status.current).joined(separator: "\n"))
        }
    }

    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Keep syncing, live: the moods by country, redrawn as changes arrive, with the status.",
            discussion: "Changes made meanwhile (moody add in another terminal) are sent as soon as the saves pause. Ctrl-C stops.")
        @OptionGroup var store: StoreOption
        @OptionGroup var server: SyncServerOptions

        @MainActor func run() async throws {
            let container = try store.open()
            let sync = try server.coordinator(for: container)
            let clears = isatty(STDOUT_FILENO) != 0
            let screen = MoodListScreen(try MoodListScreen.monitor(in: container.viewContext), style: .live(clearsScreen: clears))
            await sync.start()
            for await status in sync.status.updates {
                screen.statusLines = SyncStatusText.lines(status)
                screen.draw(clearsScreen: clears, footer: [])
            }
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print what waits to be sent, when the store last synced, and whether the server answers and has changes to read.")
        @OptionGroup var store: StoreOption
        @OptionGroup var server: SyncServerOptions

        func run() async throws {
            let container = try store.open()
            let sync = try server.coordinator(for: container)
            let status = await sync.checkStatus()
            print("Store \(store.store), zone '\(server.zone)' on \(server.server):")
            print(SyncStatusText.lines(status).joined(separator: "\n"))
            if status.lastError != nil { throw ExitCode.failure }
        }
    }
}

/// Where the server is and who the user is.
struct SyncServerOptions: ParsableArguments {
    @Option(help: "The sync server's URL.") var server = "http://127.0.0.1:8080"
    @Option(help: "A bearer token of the server's (objectgraph-sync-server user add NAME); OBJECTGRAPH_SYNC_TOKEN otherwise.")
    var token: String?
    @Option(help: "The zone of the server the store syncs with.") var zone = "moods"

    func coordinator(for container: ObjectContainer) throws -> SyncCoordinator {
        guard let url = URL(string: server), url.scheme == "http" || url.scheme == "https" else {
            throw ValidationError("--server \(server) is not an http(s) URL.")
        }
        guard let token = token ?? ProcessInfo.processInfo.environment["OBJECTGRAPH_SYNC_TOKEN"], !token.isEmpty else {
            throw ValidationError("Give the user's token with --token or OBJECTGRAPH_SYNC_TOKEN.")
        }
        return try SyncCoordinator(
            container: container, remote: HTTPSyncRemote(url: url, token: token), zone: ZoneID(zone),
            syncing: MoodyStore.syncedTypes, processors: MoodyStore.syncProcessors)
    }
}

/// The moods the sync saved in a store while it is alive, counted.
final class ReceivedChanges: Sendable {
    private final class Counts: Sendable {
        let value = Mutex((inserted: 0, updated: 0, deleted: 0))
    }

    private let counts = Counts()
    private let observation: ObservationToken

    init(_ container: ObjectContainer) {
        let counts = self.counts
        observation = container.observeCommits { save in
            guard save.author == SyncCoordinator.author else { return }
            let isMood = { (id: ObjectID) in id.entityName == Mood.entityName }
            counts.value.withLock { counts in
                counts.inserted += save.insertedObjectIDs.count(where: isMood)
                counts.updated += save.updatedObjectIDs.keys.count(where: isMood)
                counts.deleted += save.deletedObjectIDs.count(where: isMood)
            }
        }
    }

    var summary: String {
        counts.value.withLock { "\($0.inserted) new moods, \($0.updated) changed, \($0.deleted) deleted" }
    }

    deinit { observation.cancel() }
}

/// A sync status in words.
enum SyncStatusText {
    static func lines(_ status: SyncStatus) -> [String] {
        var lines: [String] = []
        let activity: String =
            switch status.activity {
            case .stopped: "not running"
            case .idle: "up to date"
            case .pushing: "sending changes"
            case .pulling: "reading the server's changes"
            case .offline: "offline"
            case .failing: "failing"
            case .unauthorized: "stopped: the server refused the token"
            }
        lines.append("  sync: \(activity)")
        if let error = status.lastError { lines.append("  last error: \(error)") }
        if let retry = status.nextRetry { lines.append("  next attempt: \(retry.formatted(date: .omitted, time: .standard))") }
        lines.append("  changes waiting to be sent: \(status.pendingChanges)")
        if status.heldBackRecords > 0 { lines.append("  held back, too large for the server: \(status.heldBackRecords)") }
        if status.setAsideRecords > 0 { lines.append("  set aside, refused by this device's rules: \(status.setAsideRecords)") }
        if let unread = status.hasUnreadServerChanges {
            lines.append("  server changes not read yet: \(unread ? "yes" : "none")")
        }
        lines.append(
            "  last successful sync: \(status.lastSuccessfulSync.map { $0.formatted(date: .abbreviated, time: .standard) } ?? "never")")
        return lines
    }
}
