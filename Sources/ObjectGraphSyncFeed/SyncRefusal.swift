public import Foundation
public import ObjectGraphSyncProtocol

/// A request a sync server refuses: the HTTP status it answers with and the body that explains it.
///
/// The decisions of this module throw it before anything is written; the server of `Server/`
/// turns it into its HTTP answer, an in-memory server into the error the client would read from
/// that answer.
public struct SyncRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status code of the answer (400, 403, 404, 409, 410, 413).
    public var status: Int
    /// The answer's body: a code and a message naming the mutation, entity, record or field at fault.
    public var body: SyncErrorBody

    /// A refusal with `status` and `body`.
    public init(status: Int, body: SyncErrorBody) {
        self.status = status
        self.body = body
    }

    public var description: String { "\(status) \(body.error.rawValue): \(body.message)" }

    /// 400: the request is malformed.
    public static func badRequest(_ message: String) -> SyncRefusal {
        SyncRefusal(status: 400, body: SyncErrorBody(error: .badRequest, message: message))
    }

    /// 404: the request names something the zone does not hold.
    public static func notFound(_ message: String) -> SyncRefusal {
        SyncRefusal(status: 404, body: SyncErrorBody(error: .notFound, message: message))
    }

    /// 413: the request, or a record it would make, is over a limit.
    public static func tooLarge(_ message: String) -> SyncRefusal {
        SyncRefusal(status: 413, body: SyncErrorBody(error: .tooLarge, message: message))
    }

    /// 403: the push would take the user past a quota of the server (zones, stored bytes).
    public static func quotaExceeded(_ message: String) -> SyncRefusal {
        SyncRefusal(status: 403, body: SyncErrorBody(error: .quotaExceeded, message: message))
    }

    /// 403: the user's role in the zone does not allow the request.
    public static func forbidden(_ message: String) -> SyncRefusal {
        SyncRefusal(status: 403, body: SyncErrorBody(error: .forbidden, message: message))
    }

    /// 410: the invitation was accepted already, has expired or was withdrawn.
    public static func invitationNotValid(_ message: String) -> SyncRefusal {
        SyncRefusal(status: 410, body: SyncErrorBody(error: .invitationNotValid, message: message))
    }

    /// 410: the cursor cannot be read from; the client drops the zone's synced data and reads it
    /// again from the start.
    public static func mustRefetch(_ message: String) -> SyncRefusal {
        SyncRefusal(status: 410, body: SyncErrorBody(error: .mustRefetch, message: message))
    }

    /// 409: a client's batch reuses mutation numbers already applied and is not a replay of its
    /// last batch (``PushDecision/numberUsed(lastApplied:)``).
    public static func mutationNumberUsed(lastApplied: Int64, clientID: UUID, zone: String) -> SyncRefusal {
        SyncRefusal(
            status: 409,
            body: SyncErrorBody(
                error: .mutationNumberUsed,
                message: "Client \(clientID.uuidString) has mutations up to number \(lastApplied) "
                    + "applied in zone \"\(zone)\"; this batch reuses numbers and is not a replay of the last one.",
                lastAppliedNumber: lastApplied))
    }

    /// 409: mutations made from versions the server has since changed, each with the server's
    /// record as it is now (``PushDecision/conflict(_:)``); nothing of the batch was applied.
    public static func conflict(_ conflicts: [SyncErrorBody.Conflict]) -> SyncRefusal {
        let list = conflicts.map { "mutation \($0.number) (\($0.server.entity) \($0.server.id.uuidString))" }
        return SyncRefusal(
            status: 409,
            body: SyncErrorBody(
                error: .conflict,
                message: "Changed on the server since the base version: \(list.joined(separator: ", ")). Nothing was applied.",
                conflicts: conflicts))
    }
}
