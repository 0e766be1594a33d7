import HTTPTypes

/// The server's routes and the methods each takes. The router is built from them, and a request
/// to one of their paths with another method gets 405 with `Allow` naming these (Hummingbird's
/// router answers 404 for it); a route that takes GET takes HEAD.
enum Route: CaseIterable {
    case health, ready, metrics, push, changes, live

    /// The path as Hummingbird's router matches it.
    var path: String {
        switch self {
        case .health: "/health"
        case .ready: "/ready"
        case .metrics: "/metrics"
        case .push: "/v1/zones/:zone/push"
        case .changes: "/v1/zones/:zone/changes"
        case .live: "/v1/zones/:zone/live"
        }
    }

    /// The method the route is registered for.
    var method: HTTPRequest.Method {
        switch self {
        case .push: .post
        case .health, .ready, .metrics, .changes, .live: .get
        }
    }

    /// What `Allow` says.
    var allowed: String { method == .get ? "GET, HEAD" : method.rawValue }

    /// The route whose path `path` is, whatever the method.
    static func matching(_ path: String) -> Route? {
        let components = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        return allCases.first { route in
            let pattern = route.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
            return pattern.count == components.count
                && zip(pattern, components).allSatisfy { expected, found in
                    expected.hasPrefix(":") ? !found.isEmpty : expected == found
                }
        }
    }
}
