import HTTPTypes
import ObjectGraphSyncProtocol

/// The server's routes (the protocol's ``Endpoint``s, which the client's requests are built from
/// too) and the methods each takes. The router is built from them, and a request to one of their
/// paths with another method gets 405 with `Allow` naming the methods that path takes
/// (Hummingbird's router answers 404 for it); a route that takes GET takes HEAD.
typealias Route = Endpoint

extension Endpoint {
    /// The method the route is registered for.
    var requestMethod: HTTPRequest.Method { HTTPRequest.Method(method) ?? .get }

    /// The methods a path takes, as `Allow` says them, and the pattern it matched; nil when no
    /// route has the path.
    static func allowed(on path: String) -> (pattern: String, methods: String)? {
        let components = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        var pattern: String?
        var methods: [String] = []
        for route in allCases {
            for candidate in route.pathPatterns {
                let expected = candidate.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
                let matches =
                    expected.count == components.count
                    && zip(expected, components).allSatisfy { expected, found in
                        expected.hasPrefix(":") ? !found.isEmpty : expected == found
                    }
                guard matches else { continue }
                pattern = pattern ?? candidate
                methods.append(route.method)
                if route.method == "GET" { methods.append("HEAD") }
            }
        }
        return pattern.map { ($0, methods.joined(separator: ", ")) }
    }
}
