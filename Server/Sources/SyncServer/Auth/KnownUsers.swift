import Synchronization

/// Users by name, each looked up once: a user is never renamed nor removed, so a name found
/// once names the same user for the process's life. Names not found are not kept (the user may
/// be added later), so the map holds no more than the users there are.
final class KnownUsers: Sendable {
    private let users = Mutex<[String: SyncUser]>([:])

    /// The user called `name`, from memory or from `lookUp`.
    func user(named name: String, lookUp: (String) async throws -> SyncUser?) async throws -> SyncUser? {
        if let known = users.withLock({ $0[name] }) { return known }
        guard let found = try await lookUp(name) else { return nil }
        users.withLock { $0[name] = found }
        return found
    }
}
