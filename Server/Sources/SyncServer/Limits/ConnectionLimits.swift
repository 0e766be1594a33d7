import HummingbirdCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How long a connection may make the server wait, and how many it serves at once.
///
/// The defaults let any honest client through (a phone on a slow network sends a 4 MiB push well
/// within a minute) and free what a client that stalls holds.
public struct ConnectionLimits: Sendable, Hashable {
    /// How long a connection may send nothing: after it opens, and between requests.
    public var idleTimeout: Duration
    /// How long a request's headers may take to arrive, from their first byte (a TLS handshake
    /// included).
    public var requestHeaderTimeout: Duration
    /// How long a request's body may take to arrive, from the end of its headers.
    public var requestBodyTimeout: Duration
    /// The most connections served at once; further clients wait in the system's queue until one
    /// closes. Live streams count: each holds a connection.
    public var maxConnections: Int
    /// The connections live streams never take, however many users hold streams: with every
    /// other connection held by a stream, `/health`, `/ready` and requests are still served.
    /// A quarter of ``maxConnections`` by default; less than ``maxConnections``.
    public var reservedConnections: Int

    /// The connections live streams may hold at once: ``maxConnections`` less the reserved ones.
    public var liveStreamConnections: Int { max(0, maxConnections - reservedConnections) }

    public init(
        idleTimeout: Duration = .seconds(60), requestHeaderTimeout: Duration = .seconds(10),
        requestBodyTimeout: Duration = .seconds(60), maxConnections: Int? = nil, reservedConnections: Int? = nil
    ) {
        self.idleTimeout = idleTimeout
        self.requestHeaderTimeout = requestHeaderTimeout
        self.requestBodyTimeout = requestBodyTimeout
        let maxConnections = maxConnections ?? Self.defaultMaxConnections
        self.maxConnections = maxConnections
        self.reservedConnections = min(max(0, reservedConnections ?? maxConnections / 4), max(0, maxConnections - 1))
    }

    /// What the process may open, less what the database, the logs and the listening socket need:
    /// at the limit the server stops accepting, instead of failing every `accept` and `open`.
    public static var defaultMaxConnections: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1000 }
        let files = Int(clamping: limit.rlim_cur)  // RLIM_INFINITY is the largest value: clamped
        return min(max(files - 256, 32), 100_000)
    }
}

/// Counts the open connections and stops accepting at the limit (Hummingbird waits for one to
/// close before it accepts again), noting each time the limit is reached.
struct ConnectionCount: AvailableConnectionsDelegate {
    let limit: Int
    let events: LimitEvents
    private var open = 0

    init(limit: Int, events: LimitEvents) {
        self.limit = limit
        self.events = events
    }

    mutating func connectionOpened() {
        open += 1
    }

    mutating func connectionClosed() {
        open -= 1
    }

    func isAcceptingNewConnections() -> Bool {
        guard open < limit else {
            events.record(.connectionLimit)
            return false
        }
        return true
    }
}
