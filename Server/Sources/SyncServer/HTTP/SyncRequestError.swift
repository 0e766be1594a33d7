public import Hummingbird
public import ObjectGraphSyncFeed
public import ObjectGraphSyncProtocol

/// A request the server refuses: an HTTP status and the body that explains it.
///
/// Every refusal leaves the stored data as it was; the routes throw it and one middleware turns
/// it into the answer (`SyncErrorMiddleware`).
public struct SyncRequestError: Error, Sendable, CustomStringConvertible {
    /// The answer's status.
    public var status: HTTPResponse.Status
    /// The answer's body: a code and a message naming what was wrong.
    public var body: SyncErrorBody
    /// For 429 and 503: the whole seconds after which the client may try again (`Retry-After`).
    public var retryAfter: Int?
    /// For 405: the methods the route takes (`Allow`).
    public var allowed: String?

    public init(_ status: HTTPResponse.Status, _ code: SyncErrorBody.Code, _ message: String, retryAfter: Int? = nil) {
        self.status = status
        self.body = SyncErrorBody(error: code, message: message)
        self.retryAfter = retryAfter
    }

    public init(status: HTTPResponse.Status, body: SyncErrorBody) {
        self.status = status
        self.body = body
    }

    /// The answer to a refusal of the feed's decisions (a malformed push, a cursor to read again).
    public init(_ refusal: SyncRefusal) {
        self.init(status: HTTPResponse.Status(code: refusal.status), body: refusal.body)
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

    /// 503: the database cannot be reached now; nothing was done.
    static func unavailable(_ message: String) -> SyncRequestError {
        SyncRequestError(.serviceUnavailable, .unavailable, message, retryAfter: 5)
    }

    /// 429: over a rate or concurrency limit; nothing was done.
    static func tooManyRequests(retryAfter seconds: Double, _ message: String) -> SyncRequestError {
        SyncRequestError(.tooManyRequests, .tooManyRequests, message, retryAfter: RequestGuards.seconds(seconds))
    }
}
