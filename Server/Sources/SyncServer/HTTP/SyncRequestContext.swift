import Foundation
import Hummingbird
import HummingbirdAuth
import NIOCore
import ObjectGraphSyncFeed
import Synchronization

/// What a request carries through the middleware to its route: Hummingbird's own context (with
/// its logger, which holds the request's ID) and the user its token authenticated.
struct SyncRequestContext: AuthRequestContext, RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    /// The connected client's address (a proxy's, behind one).
    let remoteAddress: SocketAddress?
    var identity: SyncUser? {
        didSet { notes.user = identity }
    }
    /// What the outer middleware learns once the request was handled (a context is a value: what
    /// the inner ones set in their copies does not come back out).
    let notes = RequestNotes()

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
        self.identity = nil
    }

    /// The authenticated user (the `RequireUser` middleware ran before every route that asks).
    func user() throws -> SyncUser {
        guard let identity else {
            throw SyncRequestError(.unauthorized, .unauthorized, "This request needs a valid bearer token.")
        }
        return identity
    }

    /// The `{owner}` of the path, percent-decoded: the owner of the zone it names; nil on the
    /// routes of the caller's own zones.
    func owner() throws -> String? {
        try parameters.get("owner").map { try Self.decoded($0, "owner") }
    }

    /// The `{user}` of a member's path, percent-decoded.
    func member() throws -> String {
        try Self.decoded(parameters.get("user") ?? "", "user")
    }

    /// A path segment as the name it encodes (`Zo%C3%AB` is `Zoë`).
    private static func decoded(_ segment: String, _ name: String) throws -> String {
        guard let decoded = segment.removingPercentEncoding, !decoded.isEmpty else {
            throw SyncRequestError.badRequest("The path's {\(name)} is not a percent-encoded name.")
        }
        return decoded
    }

    /// The `{zone}` of the path, checked: 1 to 100 letters, digits, `.`, `_` or `-`.
    func zone() throws -> String {
        let name = parameters.get("zone") ?? ""
        try ZoneName.check(name)
        return name
    }
}

/// What a request's handling found out, for the access log and the metrics.
final class RequestNotes: Sendable {
    private let state = Mutex<SyncUser?>(nil)

    /// The user the request's token authenticated, if any.
    var user: SyncUser? {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }
}
