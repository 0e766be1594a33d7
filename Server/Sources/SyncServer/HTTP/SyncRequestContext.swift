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
        let allowed = name.utf8.allSatisfy {
            ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A)
                || $0 == 0x2E || $0 == 0x5F || $0 == 0x2D
        }
        guard !name.isEmpty, name.utf8.count <= 100, allowed else {
            throw SyncRequestError.badRequest(
                "\"\(name.prefix(100))\" is not a zone name: use 1 to 100 letters, digits, '.', '_' or '-'.")
        }
        return name
    }
}
