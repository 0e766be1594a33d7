public import Foundation
public import ObjectGraphSync
import ObjectGraphSyncFeed
public import ObjectGraphSyncProtocol

/// The sync client's way to an ``InMemorySyncServer``, as one of its users.
///
/// Requests and answers go through JSON, as over HTTP, and refusals become the `SyncError`s
/// that `HTTPSyncRemote` makes of the same answers: a coordinator behaves alike on either.
public struct InMemorySyncRemote: SyncRemote {
    /// The server reached.
    public let server: InMemorySyncServer
    /// The user whose zones are reached.
    public let user: String

    public func push(_ request: PushRequest, zone: ZoneID) async throws -> PushOutcome {
        let sent: PushRequest
        do {
            sent = try PushRequest(jsonBytes: Array(try JSONEncoder().encode(request)))
        } catch {
            throw SyncError.refusal(
                status: 400, body: SyncErrorBody(error: .badRequest, message: "The body is not a valid request: \(error)"))
        }
        switch try answer({ try server.push(sent, to: key(zone), by: user) }) {
        case .apply(let plan):
            return .applied(try Self.decode(PushResult.self, from: plan.resultJSON))
        case .replay(let json):
            return .applied(try Self.decode(PushResult.self, from: json))
        case .numberUsed(let last):
            throw Self.error(.mutationNumberUsed(lastApplied: last, clientID: sent.clientID, zone: zone.name))
        case .conflict(let conflicts):
            // Through JSON as the records would come back from a real server.
            let body = try JSONEncoder().encode(SyncRefusal.conflict(conflicts).body)
            return .conflicts(try JSONDecoder().decode(SyncErrorBody.self, from: body).conflicts ?? [])
        }
    }

    public func changes(zone: ZoneID, since cursor: FeedCursor, limit: Int) async throws -> ChangesPage {
        let page = try answer { try server.changes(of: key(zone), since: cursor, limit: limit, by: user) }
        return try Self.decode(ChangesPage.self, from: StoredJSON.encode(page))
    }

    public func live(zone: ZoneID, since cursor: FeedCursor) -> AsyncThrowingStream<Data, any Error> {
        AsyncThrowingStream { continuation in
            do {
                try answer { try server.listen(to: key(zone), since: cursor, by: user, on: continuation) }
            } catch {
                continuation.finish(throwing: error)
            }
        }
    }

    // MARK: Sharing

    public func zones() async throws -> ZoneList {
        try answer { try server.zones(of: user) }
    }

    public func members(of zone: ZoneID) async throws -> ZoneMembers {
        try answer { try server.members(of: key(zone), by: user) }
    }

    public func invite(_ invitation: InvitationRequest, to zone: ZoneID) async throws -> Invitation {
        try answer { try server.invite(invitation, to: key(zone), by: user) }
    }

    public func invitations() async throws -> Invitations {
        try answer { try server.invitations(for: user) }
    }

    public func accept(_ acceptance: InvitationAcceptance) async throws -> Invitation {
        try answer { try server.accept(acceptance, by: user) }
    }

    public func withdrawInvitation(_ id: Int64, of zone: ZoneID) async throws {
        try answer { try server.withdrawInvitation(id, of: key(zone), by: user) }
    }

    public func setRole(_ role: ZoneRole, of member: String, in zone: ZoneID) async throws {
        try answer { try server.setRole(role, of: member, in: key(zone), by: user) }
    }

    public func removeMember(_ member: String, from zone: ZoneID) async throws {
        try answer { try server.removeMember(member, from: key(zone), by: user) }
    }

    public func deleteZone(_ zone: ZoneID) async throws {
        try answer { try server.deleteZone(key(zone), by: user) }
    }

    /// The zone `zone` names for this remote's user.
    private func key(_ zone: ZoneID) -> InMemorySyncServer.ZoneKey {
        InMemorySyncServer.ZoneKey(owner: zone.owner ?? user, zone: zone.name)
    }

    /// `body`'s value, a refusal thrown as the error a client reads from it.
    private func answer<Value>(_ body: () throws -> Value) throws -> Value {
        do {
            return try body()
        } catch let refusal as SyncRefusal {
            throw Self.error(refusal)
        }
    }

    private static func error(_ refusal: SyncRefusal) -> SyncError {
        .refusal(status: refusal.status, body: refusal.body)
    }

    private static func decode<Value: Decodable>(_ type: Value.Type, from text: String) throws -> Value {
        do {
            return try JSONDecoder().decode(type, from: Data(text.utf8))
        } catch {
            throw SyncError.server(.internalError, "the answer is not a \(type): \(error)")
        }
    }
}
