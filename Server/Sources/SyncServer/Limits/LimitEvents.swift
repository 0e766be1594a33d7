import Logging
import Synchronization

/// The times a protective limit was hit (a timeout, the connection limit, a rate limit), counted
/// and logged without letting an attack write a line per connection: the first of a kind is
/// logged at once, the others of the next `interval` in one line with their count.
final class LimitEvents: Sendable {
    enum Kind: String, CaseIterable, Sendable {
        case idleTimeout = "idle timeout"
        case headerTimeout = "request header timeout"
        case bodyTimeout = "request body timeout"
        case connectionLimit = "connection limit"
        case rateLimit = "request rate limit"
        case concurrentPushes = "concurrent pushes limit"
        case pushCost = "push budget"
        case liveStreams = "live streams limit"

        /// The `limit` label of `objectgraph_limit_events_total`.
        var metricLabel: String { rawValue.replacingOccurrences(of: " ", with: "_") }

        /// Idle connections closing is the normal end of a kept-alive connection.
        var level: Logger.Level { self == .idleTimeout ? .debug : .notice }

        var message: Logger.Message {
            switch self {
            case .idleTimeout: "Closed a connection that sent nothing within the idle timeout"
            case .headerTimeout: "Closed a connection whose request headers did not arrive within the timeout"
            case .bodyTimeout: "Closed a connection whose request body did not arrive within the timeout"
            case .connectionLimit: "Stopped accepting connections: the connection limit is reached"
            case .rateLimit: "Refused a request over the user's request rate (429)"
            case .concurrentPushes: "Refused a push over the user's concurrent pushes (429)"
            case .pushCost: "Refused a push of a user whose pushes spent their budget (429)"
            case .liveStreams: "Refused a live stream over its user's, its token's or the server's open streams (429)"
            }
        }
    }

    private let logger: Logger
    private let metrics: ServerMetrics
    private let sampler: EventSampler<Kind>

    init(logger: Logger, metrics: ServerMetrics, interval: Duration = .seconds(10)) {
        self.logger = logger
        self.metrics = metrics
        self.sampler = EventSampler(interval: interval)
    }

    /// A connection opened, or closed: the `objectgraph_connections` gauge.
    func connectionOpened() { metrics.connections.increment() }
    func connectionClosed() { metrics.connections.decrement() }

    func record(_ kind: Kind) {
        metrics.limitHit(kind)
        let report = sampler.count(kind)
        guard let report else { return }
        logger.log(level: kind.level, kind.message, metadata: ["limit": .string(kind.rawValue), "count": .stringConvertible(report)])
    }
}
