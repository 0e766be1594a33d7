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
    /// The last ping's outcome, which `/ready` answers from.
    let readiness = LastPing()
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

    /// Whether the database answers, as `/ready` tells it: the last ping's outcome when it is
    /// younger than the interval, else that of one ping, which every request asking meanwhile
    /// waits for. However many ask, the database sees a ping per interval at most.
    func isReady() async -> Bool {
        await readiness.outcome(maxAge: interval) { await check() }
    }

    /// Pings once and notes the outcome; true when the database answered.
    @discardableResult
    func check() async -> Bool {
        metrics.databasePings.increment()
        let answered = await ping()
        await readiness.note(answered)
        return answered
    }

    private func ping() async -> Bool {
        do {
            try await withDeadline(timeout) { try await storage.ping() }
            outage.noteAnswer()
            if outage.end() { logger.notice("The database answers again") }
            return true
        } catch is DeadlineExceeded where outage.answered(within: timeout + interval) {
            return false  // slow, yet answering requests: busy, not away
        } catch is CancellationError {
            return false  // the server stops: the ping was cut off, the database is not away
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

/// The outcome of the database's last ping, and the ping under way: what `/ready` answers from.
actor LastPing {
    private var last: (answered: Bool, at: ContinuousClock.Instant)?
    private var underWay: Task<Bool, Never>?

    /// Notes a ping's outcome.
    func note(_ answered: Bool) {
        last = (answered, .now)
    }

    /// The last outcome when younger than `maxAge`; else the outcome of `ping`, run once for all
    /// the callers that ask while it runs.
    func outcome(maxAge: Duration, ping: @escaping @Sendable () async -> Bool) async -> Bool {
        if let last, ContinuousClock.now - last.at < maxAge { return last.answered }
        if let underWay { return await underWay.value }
        let task = Task { await ping() }
        underWay = task
        defer { underWay = nil }
        return await task.value
    }
}
