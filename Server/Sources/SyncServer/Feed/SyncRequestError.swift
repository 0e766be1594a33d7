public import Hummingbird
public import ObjectGraphSyncProtocol

/// A request the server refuses: an HTTP status and the body that explains it.
///
/// Every refusal leaves the stored data as it was; the routes throw it and one middleware turns
/// it into the answer (`SyncErrorMiddleware`).
public struct SyncRequestError: Error, Sendable, CustomStringConvertible {
    public var status: HTTPResponse.Status
    public var body: SyncErrorBody

    public init(_ status: HTTPResponse.Status, _ code: SyncErrorBody.Code, _ message: String) {
        self.status = status
        self.body = SyncErrorBody(error: code, message: message)
    }

    public init(status: HTTPResponse.Status, body: SyncErrorBody) {
        self.status = status
        self.body = body
    }

    public var description: String { "\(status.code) \(body.error.rawValue): \(body.message)" }

    static func badRequest(_ message: String) -> SyncRequestError {
        SyncRequestError(.badRequest, .badRequest, message)
    }

    static func notFound(_ message: String) -> SyncRequestError {
        SyncRequestError(.notFound, .notFound, message)
    }

    static func tooLarge(_ message: String) -> SyncRequestError {
        SyncRequestError(.contentTooLarge, .tooLarge, message)
    }
}
