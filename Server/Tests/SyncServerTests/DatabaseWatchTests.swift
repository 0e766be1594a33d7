import Foundation
import Logging
import Testing

@testable import SyncServer

@Suite("Readiness: a busy database is not an unreachable one", .timeLimit(.minutes(5)))
struct DatabaseWatchTests {
    private func storage(in directory: URL) throws -> SQLiteSyncStorage {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return try SQLiteSyncStorage(
            path: directory.appendingPathComponent("sync.sqlite").path, notifier: FeedNotifier(tickInterval: .seconds(1)))
    }

    /// Runs `body` with a migrated storage whose ping connection another thread holds until
    /// `body` returns: every ping waits meanwhile.
    private func withPingHeld(_ body: (SQLiteSyncStorage) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sync-watch-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = try storage(in: directory)
        try await storage.migrate()
        let held = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? storage.pingConnection.read { _ in
                held.signal()
                release.wait()
            }
        }
        await Task.detached { held.wait() }.value
        defer { release.signal() }
        try await body(storage)
    }

    @Test("A ping that misses its deadline begins an outage only when the database answered nothing lately")
    func aSlowPingWhileOperationsAnswerIsNoOutage() async throws {
        // The ping's connection held, so that every ping misses its deadline.
        try await withPingHeld { storage in
            let busy = DatabaseOutage()
            busy.noteAnswer()  // a request the database answered just now
            let watch = DatabaseWatch(
                storage: storage, outage: busy, timeout: .milliseconds(100), interval: .seconds(600),
                metrics: ServerMetrics(databaseConnections: 1), logger: .init(label: "test"))
            #expect(await watch.check() == false)
            #expect(!busy.isOngoing, "a database answering requests is busy, not away")

            let silent = DatabaseOutage()
            let silentWatch = DatabaseWatch(
                storage: storage, outage: silent, timeout: .milliseconds(100), interval: .seconds(600),
                metrics: ServerMetrics(databaseConnections: 1), logger: .init(label: "test"))
            #expect(await silentWatch.check() == false)
            #expect(silent.isOngoing, "a database that answered nothing lately is away")
        }
    }

    @Test("A ping cut off by the server's shutdown is no outage: nothing is logged and requests are not refused")
    func aCancelledPingIsNoOutage() async throws {
        // The ping's connection held: the ping waits until the shutdown cancels it.
        try await withPingHeld { storage in
            let outage = DatabaseOutage()
            let watch = DatabaseWatch(
                storage: storage, outage: outage, timeout: .seconds(600), interval: .seconds(600),
                metrics: ServerMetrics(databaseConnections: 1), logger: .init(label: "test"))
            let check = Task { await watch.check() }
            check.cancel()
            #expect(await check.value == false)
            #expect(!outage.isOngoing, "a shutdown took the database for away")
        }
    }

    @Test("The SQLite database's ping has a connection of its own: with every reader of the pool busy, it still answers")
    func pingWhileEveryReaderIsBusy() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sync-watch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = try SQLiteSyncStorage(
            path: directory.appendingPathComponent("sync.sqlite").path, notifier: FeedNotifier(tickInterval: .seconds(1)))
        try await storage.migrate()

        // Every reader held, as by long feed reads under load.
        let readers = storage.maximumConnections - 1
        let held = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        for _ in 0..<readers {
            Thread.detachNewThread {
                try? storage.pool.read { _ in
                    held.signal()
                    release.wait()
                }
            }
        }
        await Task.detached { for _ in 0..<readers { held.wait() } }.value

        let ping = Task { try await storage.ping() }
        let answered = await withTaskGroup(of: Bool.self) { group in
            group.addTask { (try? await ping.value) != nil }
            group.addTask {  // only catches a hang
                try? await Task.sleep(for: .seconds(30))
                return false
            }
            let first = await group.next() ?? false
            for _ in 0..<readers { release.signal() }  // lets a ping queued behind the readers end
            group.cancelAll()
            return first
        }
        #expect(answered, "the ping waited for a reader of the pool")
    }
}
