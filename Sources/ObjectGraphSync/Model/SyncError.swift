public import Foundation
public import ObjectGraph
public import ObjectGraphSyncProtocol

/// Errors of the sync client. Each names what it concerns: the entity or record type, the record,
/// the field, or the server's answer.
public enum SyncError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A ``Syncable`` entity's configuration, or the container, cannot sync as given.
    case invalidConfiguration(entity: String, reason: String)
    /// The server cannot be reached, or the connection broke; what is pending is kept and sent when
    /// it answers again.
    case unreachable(String)
    /// The server refused the client's token: syncing stops until it is given a valid one.
    case unauthorized(String)
    /// The server answered with an error this client cannot act on; the error body's code and
    /// message.
    case server(SyncErrorBody.Code, String)
    /// A record from the server does not fit the local model (a field of the wrong form, say). It
    /// is set aside (see ``SetAsideRecord``) and the rest of its page applied.
    case invalidRecord(recordType: String, recordID: UUID, field: String?, reason: String)
    /// No record is set aside under this ID (see ``SetAsideRecord``).
    case notSetAside(UUID)
    /// The local store refused an operation of the sync.
    case store(ObjectGraphError)
    /// The coordinator was stopped while the call waited.
    case stopped

    public var description: String {
        switch self {
        case let .invalidConfiguration(entity, reason): "\(entity) cannot sync: \(reason)"
        case .unreachable(let reason): "The sync server cannot be reached: \(reason)"
        case .unauthorized(let reason): "The sync server refused the token: \(reason)"
        case let .server(code, message): "The sync server answered \(code.rawValue): \(message)"
        case let .invalidRecord(recordType, recordID, field, reason):
            "Record \(recordType) \(recordID)\(field.map { " field \($0)" } ?? "") does not fit the model: \(reason)"
        case .notSetAside(let id): "No record is set aside under the ID \(id)"
        case .store(let error): "The local store refused the sync's change: \(error)"
        case .stopped: "The sync coordinator was stopped"
        }
    }
}
