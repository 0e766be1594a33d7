import Foundation
import MoodyModel
import ObjectGraph
import ObjectGraphSync
import ObjectGraphSyncProtocol
import ObjectGraphSyncTesting
import Synchronization
import Testing

/// A device for the sync client's tests: a store file of its own, with Moody's model and a sync
/// coordinator talking to a test server.
struct SyncDevice {
    static let types: [any Syncable.Type] = [Mood.self, Country.self, Continent.self]

    let path: String
    let container: ObjectContainer
    let sync: SyncCoordinator

    /// The remote the coordinator talks through, counting pushes.
    let remote: CountingRemote

    /// A device on `port` with `token`, syncing `types`; a new store unless `path` names an existing one.
    init(
        port: Int, token: String, path: String? = nil, types: [any Syncable.Type] = Self.types,
        processors: [any ChangeProcessor]? = nil, gatheringDelay: Duration = .milliseconds(50)
    ) throws {
        let path = path ?? Self.newStorePath()
        self.path = path
        container = try ObjectContainer(schema: Schema(types + SyncCoordinator.entities), configuration: .file(path))
        let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
        remote = CountingRemote(HTTPSyncRemote(url: url, token: token))
        sync = try SyncCoordinator(
            container: container, remote: remote, zone: "moods", syncing: types, processors: processors,
            gatheringDelay: gatheringDelay)
    }

    static func newStorePath() -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("objectgraph-sync-client-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("store.sqlite").path
    }
}

extension SyncDevice {
    /// The sync's saves on this device from now on: take it before causing the change awaited.
    func syncSaves() -> AsyncStream<DidSave> {
        let (stream, continuation) = AsyncStream<DidSave>.makeStream()
        let token = container.observeCommits { save in
            if save.author == SyncCoordinator.author { continuation.yield(save) }
        }
        continuation.onTermination = { _ in token.cancel() }
        return stream
    }
}

/// Waits for the first save of `saves` that `matches`; the timeout only catches a hang.
func firstSave(
    of saves: AsyncStream<DidSave>, within timeout: Duration = .seconds(60),
    where matches: @escaping @Sendable (DidSave) -> Bool
) async throws -> DidSave {
    try await withThrowingTaskGroup(of: DidSave?.self) { group in
        group.addTask {
            for await save in saves where matches(save) { return save }
            return nil
        }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let save = try await group.next() ?? nil else { throw TestFailure("no matching sync save within \(timeout)") }
        return save
    }
}

/// The server, through the real remote, counting the pushes that reach it.
final class CountingRemote: ForwardingSyncRemote {
    let base: any SyncRemote
    private let counts = Mutex<(pushes: Int, mutations: Int, pages: Int)>((0, 0, 0))

    init(_ remote: any SyncRemote) { self.base = remote }

    var pushes: Int { counts.withLock { $0.pushes } }
    var mutations: Int { counts.withLock { $0.mutations } }
    /// How many pages of the feed were asked for.
    var pages: Int { counts.withLock { $0.pages } }

    func changes(zone: ZoneID, since cursor: FeedCursor, limit: Int) async throws -> ChangesPage {
        counts.withLock { $0.pages += 1 }
        return try await base.changes(zone: zone, since: cursor, limit: limit)
    }

    func push(_ request: PushRequest, zone: ZoneID) async throws -> PushOutcome {
        counts.withLock {
            $0.pushes += 1; $0.mutations += request.mutations.count
        }
        return try await base.push(request, zone: zone)
    }
}

/// Waits until `status` satisfies `condition` and returns it; the timeout only catches a hang.
@discardableResult
func status(
    of status: ObservableSyncStatus, within timeout: Duration = .seconds(60),
    until condition: @escaping @Sendable (SyncStatus) -> Bool
) async throws -> SyncStatus {
    let updates = status.updates
    return try await withThrowingTaskGroup(of: SyncStatus?.self) { group in
        group.addTask {
            for await update in updates where condition(update) { return update }
            return nil
        }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let found = try await group.next() ?? nil else {
            throw TestFailure("the sync status never reached the state awaited within \(timeout): \(status.current)")
        }
        return found
    }
}
