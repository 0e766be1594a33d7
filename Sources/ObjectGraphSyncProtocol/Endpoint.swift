import Foundation

/// The sync server's routes, which the server's router and the client's requests are both built
/// from: a route is spelled once.
public enum Endpoint: String, Sendable, Hashable, CaseIterable {
    /// Whether the server process is up (no token).
    case health
    /// Whether the server can reach its database (no token).
    case ready
    /// The server's metrics, in Prometheus's text format.
    case metrics
    /// A batch of mutations for a zone (`POST`, a ``PushRequest``).
    case push
    /// A page of a zone's feed after a cursor (`since`, `limit`).
    case changes
    /// A zone's live route: server-sent events when its feed moves (`since`).
    case live

    /// The path, with `:zone` where a zone's name goes (the pattern a router matches).
    public var pathPattern: String {
        switch self {
        case .health: "/health"
        case .ready: "/ready"
        case .metrics: "/metrics"
        case .push: "/v1/zones/:zone/push"
        case .changes: "/v1/zones/:zone/changes"
        case .live: "/v1/zones/:zone/live"
        }
    }

    /// The path for `zone` (ignored by the routes that name none), the zone's name as given: the
    /// caller escapes it for a URL.
    public func path(zone: String = "") -> String {
        pathPattern.replacingOccurrences(of: ":zone", with: zone)
    }

    /// The HTTP method the route takes: `POST` for a push, `GET` for the others (which take `HEAD`
    /// too).
    public var method: String { self == .push ? "POST" : "GET" }
}
