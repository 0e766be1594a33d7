import HTTPTypes
import ObjectGraphSyncProtocol

/// The server's routes (the protocol's ``Endpoint``s, which the client's requests are built from
/// too) and the methods each takes. The router is built from them, and a request to one of their
/// paths with another method gets 405 with `Allow` naming these (Hummingbird's router answers 404
/// for it); a route that takes GET takes HEAD.
typealias Route = Endpoint

extension Endpoint {
    /// The path as Hummingbird's router matches it.
    var path: String { pathPattern }

    /// The method the route is registered for.
    var requestMethod: HTTPRequest.Method { self == .push ? .post : .get }

    /// What `Allow` says.
    var allowed: String { requestMethod == .get ? "GET, HEAD" : requestMethod.rawValue }

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
