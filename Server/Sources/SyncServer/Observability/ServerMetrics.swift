import Metrics
import Prometheus
import Synchronization

/// The server's metrics, recorded through swift-metrics into a Prometheus registry of the
/// server's own (not the process's global one: a program may run several servers), and read at
/// `/metrics` in Prometheus's text format.
///
/// | metric | kind | what |
/// | --- | --- | --- |
/// | `objectgraph_http_requests_total{route,method,status}` | counter | answered requests |
/// | `objectgraph_http_request_duration_seconds{route,method}` | histogram | until the answer is written (a live stream's whole life) |
/// | `objectgraph_push_duration_seconds{outcome}` | histogram | pushes: `applied`, `replayed`, `conflict`, `refused` |
/// | `objectgraph_feed_read_duration_seconds` | histogram | pages of the feed read |
/// | `objectgraph_mutations_applied_total` | counter | mutations applied (replays not counted again) |
/// | `objectgraph_push_conflicts_total` | counter | mutations refused as conflicts |
/// | `objectgraph_live_streams` | gauge | live streams open |
/// | `objectgraph_connections` | gauge | connections open |
/// | `objectgraph_database_operations` | gauge | database operations running (the pool's use) |
/// | `objectgraph_database_connections_max` | gauge | the database pool's size |
/// | `objectgraph_database_pings_total` | counter | pings of the database, by the watch and `/ready` |
/// | `objectgraph_limit_events_total{limit}` | counter | protective limits hit (timeouts, connection limit, rates) |
final class ServerMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory

    /// A request's metrics, made once per route, method and status: making them is a lookup in
    /// the registry under its lock, on every request otherwise.
    private struct RequestKey: Hashable {
        var route: String, method: String, status: Int
    }
    private let requestMetrics = Mutex<[RequestKey: (count: Metrics.Counter, duration: Metrics.Timer)]>([:])

    let liveStreams: Meter
    let connections: Meter
    let databaseOperations: Meter
    let databasePings: Metrics.Counter
    private let mutationsApplied: Metrics.Counter
    private let conflicts: Metrics.Counter
    private let feedReads: Metrics.Timer

    init(databaseConnections: Int) {
        var factory = PrometheusMetricsFactory(registry: registry)
        // Pushes and pages take milliseconds; a request's histogram also holds live streams.
        let fast: [Duration] = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000].map { .milliseconds($0) }
        factory.durationHistogramBuckets = [
            "objectgraph_push_duration_seconds": fast, "objectgraph_feed_read_duration_seconds": fast,
            "objectgraph_http_request_duration_seconds": fast + [.seconds(60), .seconds(600)]
        ]
        self.factory = factory
        liveStreams = Meter(label: "objectgraph_live_streams", dimensions: [], factory: factory)
        connections = Meter(label: "objectgraph_connections", dimensions: [], factory: factory)
        databaseOperations = Meter(label: "objectgraph_database_operations", dimensions: [], factory: factory)
        databasePings = Metrics.Counter(label: "objectgraph_database_pings_total", dimensions: [], factory: factory)
        mutationsApplied = Metrics.Counter(label: "objectgraph_mutations_applied_total", dimensions: [], factory: factory)
        conflicts = Metrics.Counter(label: "objectgraph_push_conflicts_total", dimensions: [], factory: factory)
        feedReads = Metrics.Timer(label: "objectgraph_feed_read_duration_seconds", dimensions: [], factory: factory)
        Meter(label: "objectgraph_database_connections_max", dimensions: [], factory: factory).set(databaseConnections)
        for kind in LimitEvents.Kind.allCases { _ = limitCounter(kind) }  // listed at 0 from the start
    }

    /// An answered request.
    func request(route: String, method: String, status: Int, duration: Duration) {
        let key = RequestKey(route: route, method: method, status: status)
        let metrics = requestMetrics.withLock { cache in
            if let made = cache[key] { return made }
            let made = (
                count: Metrics.Counter(
                    label: "objectgraph_http_requests_total",
                    dimensions: [("route", route), ("method", method), ("status", String(status))], factory: factory),
                duration: Metrics.Timer(
                    label: "objectgraph_http_request_duration_seconds", dimensions: [("route", route), ("method", method)],
                    factory: factory)
            )
            cache[key] = made
            return made
        }
        metrics.count.increment()
        metrics.duration.record(duration: duration)
    }

    /// How a push ended.
    enum PushOutcome: String {
        case applied, replayed, conflict, refused
    }

    /// A push, its outcome, and how many mutations it applied or how many conflicted.
    func push(_ outcome: PushOutcome, mutations: Int, duration: Duration) {
        Metrics.Timer(label: "objectgraph_push_duration_seconds", dimensions: [("outcome", outcome.rawValue)], factory: factory)
            .record(duration: duration)
        switch outcome {
        case .applied: mutationsApplied.increment(by: mutations)
        case .conflict: conflicts.increment(by: mutations)
        case .replayed, .refused: break
        }
    }

    /// A page of the feed read.
    func feedRead(duration: Duration) {
        feedReads.record(duration: duration)
    }

    /// A protective limit hit.
    func limitHit(_ kind: LimitEvents.Kind) {
        limitCounter(kind).increment()
    }

    private func limitCounter(_ kind: LimitEvents.Kind) -> Metrics.Counter {
        Metrics.Counter(label: "objectgraph_limit_events_total", dimensions: [("limit", kind.metricLabel)], factory: factory)
    }

    /// Every metric, in Prometheus's text format.
    func text() -> String {
        registry.emitToString()
    }
}

extension Metrics.Timer {
    func record(duration: Duration) {
        let (seconds, attoseconds) = duration.components
        recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
