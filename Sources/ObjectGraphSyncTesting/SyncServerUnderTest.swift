import Foundation
public import ObjectGraphSync
public import ObjectGraphSyncFeed

/// A sync server that ``SyncRemoteContract`` checks: the in-memory server, or a real one reached
/// over HTTP.
public protocol SyncServerUnderTest: Sendable {
    /// The server's limits.
    var limits: ServerLimits { get }
    /// A remote that reaches the server as a user of its own, whose zones no other check sees.
    func newUser() async throws -> any SyncRemote
    /// Drops every tombstone and superseded entry committed until now, as a purge past the
    /// tombstone horizon does.
    func purgeAll() async throws
}

extension InMemorySyncServer: SyncServerUnderTest {
    public func newUser() async throws -> any SyncRemote {
        remote(user: "user-\(UUID().uuidString)")
    }

    public func purgeAll() async throws {
        purge()
    }
}
