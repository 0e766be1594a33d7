import Hummingbird
import HummingbirdAuth

/// What a request carries through the middleware to its route: Hummingbird's own context (with
/// its logger, which holds the request's ID) and the user its token authenticated.
struct SyncRequestContext: AuthRequestContext, RequestContext {
    var coreContext: CoreRequestContextStorage
    var identity: SyncUser?

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.identity = nil
    }

    /// The authenticated user (the `RequireUser` middleware ran before every route that asks).
    func user() throws -> SyncUser {
        guard let identity else {
            throw SyncRequestError(.unauthorized, .unauthorized, "This request needs a valid bearer token.")
        }
        return identity
    }

    /// The `{zone}` of the path, checked: 1 to 100 letters, digits, `.`, `_` or `-`.
    func zone() throws -> String {
        let name = parameters.get("zone") ?? ""
        try SyncServer.checkZoneName(name)
        return name
    }
}
