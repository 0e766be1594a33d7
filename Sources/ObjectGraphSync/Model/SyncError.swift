public import Foundation
public import ObjectGraph
public import ObjectGraphSyncProtocol

/// An error of the sync client: a ``code`` a program can match, and what it concerns: the entity
/// or record type, the record, the field, the server's answer or the store's error.
///
/// ```swift
/// do {
///     try await sync.syncNow()
/// } catch let error as SyncError {
///     switch error.code {
///     case .unreachable: showOffline()
///     case .unauthorized: askForANewToken()
///     case .server where error.serverCode == .tooManyRequests: retryLater()
///     default: report(error)
///     }
/// }
/// ```
///
/// New kinds of failure come with new codes: a `switch` over ``code`` with a `default` keeps
/// compiling, as with ObjectGraph's own `ObjectGraphError`.
public struct SyncError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure a ``SyncError`` is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name, as the static property that stands for it.
        public let name: String

        private init(_ name: String) { self.name = name }

        public var description: String { name }

        /// A ``Syncable`` entity's configuration, or the container, cannot sync as given
        /// (``SyncError/entity``, ``SyncError/reason``).
        public static let invalidConfiguration = Code("invalidConfiguration")
        /// The server cannot be reached, or the connection broke, or the server asks to wait; what
        /// is pending is kept and sent when it answers again.
        public static let unreachable = Code("unreachable")
        /// The server refused the client's token: syncing stops until it is given a valid one.
        public static let unauthorized = Code("unauthorized")
        /// The server answered with an error this client cannot act on: ``SyncError/serverCode``
        /// and its message, ``SyncError/reason``.
        public static let server = Code("server")
        /// A record from the server does not fit the local model (a field of the wrong form, say):
        /// ``SyncError/entity`` (its record type), ``SyncError/recordID``, ``SyncError/field``. It
        /// is set aside (see ``SetAsideRecord``) and the rest of its page applied.
        public static let invalidRecord = Code("invalidRecord")
        /// No record is set aside under ``SyncError/recordID`` (see ``SetAsideRecord``).
        public static let notSetAside = Code("notSetAside")
        /// The local store refused an operation of the sync: ``SyncError/storeError``.
        public static let store = Code("store")
        /// The coordinator was stopped while the call waited.
        public static let stopped = Code("stopped")

        /// Every code this version of the sync client throws.
        public static let all: [Code] = [
            .invalidConfiguration, .unreachable, .unauthorized, .server, .invalidRecord, .notSetAside, .store, .stopped
        ]
    }

    /// What went wrong, with its details: one case per ``Code``. Internal, so that a new failure
    /// is a new case here and a new code there, never a break of a user's `switch`.
    enum Kind: Sendable, Equatable {
        case invalidConfiguration(entity: String, reason: String)
        case unreachable(String)
        case unauthorized(String)
        case server(SyncErrorBody.Code, String)
        case invalidRecord(recordType: String, recordID: UUID, field: String?, reason: String)
        case notSetAside(UUID)
        case store(ObjectGraphError)
        case stopped
    }

    /// The failure and its details.
    let kind: Kind

    init(_ kind: Kind) {
        self.kind = kind
    }

    /// What kind of failure this is.
    public var code: Code {
        switch kind {
        case .invalidConfiguration: .invalidConfiguration
        case .unreachable: .unreachable
        case .unauthorized: .unauthorized
        case .server: .server
        case .invalidRecord: .invalidRecord
        case .notSetAside: .notSetAside
        case .store: .store
        case .stopped: .stopped
        }
    }

    /// The entity the failure concerns: the one whose configuration cannot sync, or the record
    /// type of a record that does not fit.
    public var entity: String? {
        switch kind {
        case .invalidConfiguration(let entity, _): entity
        case .invalidRecord(let recordType, _, _, _): recordType
        case .store(let error): error.entity
        default: nil
        }
    }

    /// The record the failure concerns: one that does not fit, or that is not set aside.
    public var recordID: UUID? {
        switch kind {
        case .invalidRecord(_, let recordID, _, _), .notSetAside(let recordID): recordID
        default: nil
        }
    }

    /// The record's field that does not fit, when one is to blame.
    public var field: String? {
        if case .invalidRecord(_, _, let field, _) = kind { return field }
        return nil
    }

    /// Why, in words: the configuration's fault, the network's failure, the token's refusal, the
    /// server's message, the record's misfit.
    public var reason: String? {
        switch kind {
        case .invalidConfiguration(_, let reason), .unreachable(let reason), .unauthorized(let reason),
            .server(_, let reason), .invalidRecord(_, _, _, let reason):
            reason
        case .notSetAside, .store, .stopped:
            nil
        }
    }

    /// The server's error code, for ``Code/server``: `mustRefetch`, `conflict`, a code a newer
    /// server added.
    public var serverCode: SyncErrorBody.Code? {
        if case .server(let code, _) = kind { return code }
        return nil
    }

    /// The store's error, for ``Code/store``.
    public var storeError: ObjectGraphError? {
        if case .store(let error) = kind { return error }
        return nil
    }

    public var description: String {
        switch kind {
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

    // MARK: Making one

    /// The server cannot be reached (`reason` says how the request failed): a remote of your own
    /// throws it so that the coordinator backs off and tries again, keeping what is pending.
    public static func unreachable(_ reason: String) -> SyncError { SyncError(.unreachable(reason)) }

    /// The server refused the token (`reason`, its message): a remote of your own throws it so that
    /// the coordinator stops until it is given a valid one.
    public static func unauthorized(_ reason: String) -> SyncError { SyncError(.unauthorized(reason)) }

    /// The server refused a request with an error body's `code` and `message`.
    public static func server(_ code: SyncErrorBody.Code, _ message: String) -> SyncError {
        SyncError(.server(code, message))
    }

    static func invalidConfiguration(entity: String, reason: String) -> SyncError {
        SyncError(.invalidConfiguration(entity: entity, reason: reason))
    }

    static func invalidRecord(recordType: String, recordID: UUID, field: String?, reason: String) -> SyncError {
        SyncError(.invalidRecord(recordType: recordType, recordID: recordID, field: field, reason: reason))
    }

    static func notSetAside(_ id: UUID) -> SyncError { SyncError(.notSetAside(id)) }

    static func store(_ error: ObjectGraphError) -> SyncError { SyncError(.store(error)) }

    static let stopped = SyncError(.stopped)
}
