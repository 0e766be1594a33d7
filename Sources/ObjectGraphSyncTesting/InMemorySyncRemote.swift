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

    public func push(_ request: PushRequest, zone: String) async throws -> PushOutcome {
        let sent: PushRequest
        do {
            sent = try PushRequest(jsonBytes: Array(try JSONEncoder().encode(request)))
        } catch {
            throw SyncError.refusal(
                status: 400, body: SyncErrorBody(error: .badRequest, message: "The body is not a valid request: \(error)"))
        }
        switch try answer({ try server.push(sent, to: key(zone)) }) {
        case .apply(let plan):
            return .applied(try Self.decode(PushResult.self, from: plan.resultJSON))
        case .replay(let json):
            return .applied(try Self.decode(PushResult.self, from: json))
        case .numberUsed(let last):
            throw Self.error(.mutationNumberUsed(lastApplied: last, clientID: sent.clientID, zone: zone))
        case .conflict(let conflicts):
            // Through JSON as the records would come back from a real server.
            let body = try JSONEncoder().encode(SyncRefusal.conflict(conflicts).body)
            return .conflicts(try JSONDecoder().decode(SyncErrorBody.self, from: body).conflicts ?? [])
        }
    }

    public func changes(zone: String, since cursor: FeedCursor, limit: Int) async throws -> ChangesPage {
        let page = try answer { try server.changes(of: key(zone), since: cursor, limit: limit) }
        return try Self.decode(ChangesPage.self, from: StoredJSON.encode(page))
    }

    public func live(zone: String, since cursor: FeedCursor) -> AsyncThrowingStream<Data, any Error> {
        AsyncThrowingStream { continuation in
            do {
                try answer { try server.listen(to: key(zone), since: cursor, on: continuation) }
            } catch {
                continuation.finish(throwing: error)
            }
        }
    }

    private func key(_ zone: String) -> InMemorySyncServer.ZoneKey {
        InMemorySyncServer.ZoneKey(user: user, zone: zone)
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
