import Logging
import ServiceLifecycle

/// Watches whether the database answers, so that requests fail at once while it does not: a
/// ping every `interval` (on a connection of its own, see `SyncStorage.ping()`), within the
/// readiness timeout. A failed ping begins an outage (`DatabaseOutage`), a successful one ends
/// it. A ping that misses its deadline while the database answered requests within the last
/// interval and timeout does not: the machine or the database is busy, not away. A request that
/// meets an unreachable database begins an outage too, without waiting for the next ping.
struct DatabaseWatch: Service {
    let storage: any SyncStorage
    let outage: DatabaseOutage
    let timeout: Duration
    let interval: Duration
    let metrics: ServerMetrics
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await check()
                guard (try? await Task.sleep(for: interval)) != nil else { return }  // cancelled: the server stops
            }
        }
    }

    /// Pings once and notes the outcome; true when the database answered.
    @discardableResult
    func check() async -> Bool {
        metrics.databasePings.increment()
        do {
            try await withDeadline(timeout) { try await storage.ping() }
            outage.noteAnswer()
            if outage.end() { logger.notice("The database answers again") }
            return true
        } catch is DeadlineExceeded where outage.answered(within: timeout + interval) {
            return false  // slow, yet answering requests: busy, not away
        } catch {
            if outage.begin() {
                logger.error(
                    "The database does not answer; requests get 503 until it does",
                    metadata: ["error": .requestText(error is DeadlineExceeded ? "no answer within \(timeout)" : String(reflecting: error))]
                )
            }
            return false
        }
    }
}
