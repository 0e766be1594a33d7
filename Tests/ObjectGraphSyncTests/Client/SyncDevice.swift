import Foundation
import Logging
import MoodyModel
import ObjectGraph
import ObjectGraphSync
import ObjectGraphSyncProtocol
import ObjectGraphSyncTesting
import Synchronization
import Testing

/// A device for the sync client's tests: a store file of its own, with Moody's model and a sync
/// coordinator talking to an in-memory server as the user "alice".
struct SyncDevice {
    static let types: [any Syncable.Type] = [Mood.self, Country.self, Continent.self]

    let path: String
    let container: ObjectContainer
    let sync: SyncCoordinator

    /// A device of `server`, syncing `types`; a new store unless `path` names an existing one.
    init(
        server: InMemorySyncServer, path: String? = nil, types: [any Syncable.Type] = Self.types,
        processors: [any ChangeProcessor]? = nil, remote: (any SyncRemote)? = nil, logger: Logger? = nil
    ) throws {
        let path = path ?? Self.newStorePath()
        self.path = path
        container = try ObjectContainer(schema: Schema(types + SyncCoordinator.entities), configuration: .file(path))
        sync = try SyncCoordinator(
            container: container, remote: remote ?? server.remote(user: "alice"), zone: "moods", syncing: types,
            processors: processors, logger: logger ?? Logger(label: "ObjectGraphSync"))
    }

    static func newStorePath() -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("objectgraph-sync-client-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("store.sqlite").path
    }
}

extension InMemorySyncServer {
    /// Pushes as "alice" would from another client (an older one, any HTTP client), and expects
    /// the batch to be applied.
    @discardableResult
    func pushApplied(_ zone: ZoneID, _ request: PushRequest) async throws -> PushResult {
        guard case .applied(let result) = try await remote(user: "alice").push(request, zone: zone) else {
            throw TestFailure("the push was refused: \(request)")
        }
        return result
    }

    /// The whole feed of one of alice's zones, from the start.
    func allChanges(_ zone: ZoneID) async throws -> [FeedChange] {
        let remote = remote(user: "alice")
        var cursor = FeedCursor.start
        var changes: [FeedChange] = []
        while true {
            let page = try await remote.changes(zone: zone, since: cursor, limit: 100)
            changes += page.changes
            cursor = page.cursor
            if !page.hasMore { return changes }
        }
    }
}

/// Helpers to write mutations briefly.
extension PushRequest {
    init(_ clientID: UUID, _ mutations: Mutation...) {
        self.init(clientID: clientID, mutations: mutations)
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Every message a logger was given, for tests that check what the sync logs.
final class LogRecord: Sendable {
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata
    }

    private let kept = Mutex<[Entry]>([])

    /// The messages so far.
    var entries: [Entry] { kept.withLock { $0 } }

    /// A logger whose messages this record keeps.
    var logger: Logger { Logger(label: "test") { _ in Handler(record: self) } }

    private struct Handler: LogHandler {
        let record: LogRecord
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let entry = Entry(level: event.level, message: "\(event.message)", metadata: event.metadata ?? [:])
            record.kept.withLock { $0.append(entry) }
        }
    }
}
