import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOHTTP1
import ObjectGraphSyncFeed
import ObjectGraphSyncProtocol

/// Turns every failure into a JSON error body (`SyncErrorBody`) with the right status, and
/// stamps every answer with the request's ID (`X-Request-ID`, the `hb.request.id` of the logs).
struct SyncErrorMiddleware: RouterMiddleware {
    typealias Context = SyncRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            // HTTP/1's first Host became the request's authority; another one is still a field.
            if request.headers[.host] != nil {
                throw SyncRequestError.badRequest("The request has two Host headers: which host it is for is not said (RFC 9112).")
            }
            response = try await next(request, context)
        } catch {
            var refusal = Self.refusal(for: error)
            // The router answers 404 for a known path asked with another method: that is a 405.
            if refusal.status == .notFound, context.endpointPath == nil || context.endpointPath == "NotFound",
                let route = Route.allowed(on: request.uri.path)
            {
                refusal = SyncRequestError(
                    .methodNotAllowed, .methodNotAllowed, "\(route.pattern) takes \(route.methods), not \(request.method.rawValue).")
                refusal.allowed = route.methods
            }
            if refusal.status == .internalServerError {
                context.logger.error("Request failed", metadata: ["error": .requestText(String(reflecting: error), limit: 2000)])
            } else if context.notes.user != nil {
                // Refusals without a valid token are counted, sampled, by the access log: anyone
                // can send any number of them.
                context.logger.info(
                    "Request refused",
                    metadata: [
                        "status": .stringConvertible(refusal.status.code), "error": .string(refusal.body.error.rawValue),
                        "message": .requestText(refusal.body.message)
                    ])
            }
            response = Self.response(refusal.status, refusal.body)
            if let seconds = refusal.retryAfter { response.headers[.retryAfter] = String(seconds) }
            if let allowed = refusal.allowed { response.headers[.allow] = allowed }
        }
        response.headers[.requestID] = context.id
        return response
    }

    static func refusal(for error: any Error) -> SyncRequestError {
        switch error {
        case let refusal as SyncRequestError:
            return refusal
        case let refusal as SyncRefusal:
            return SyncRequestError(refusal)
        case let error as DecodingError:
            return .badRequest("The body is not a valid request: \(error.readableDescription)")
        case let error as HTTPParserError:
            // The client closed or was cut off mid-request (a timeout), or sent what is not HTTP.
            return .badRequest("The request is not complete HTTP: \(error).")
        case let error as HTTPError:
            let code: SyncErrorBody.Code =
                switch error.status {
                case .contentTooLarge: .tooLarge
                case .unauthorized: .unauthorized
                case .notFound: .notFound
                case .internalServerError: .internalError
                default: .badRequest
                }
            let message = error.body ?? (error.status == .notFound ? "There is no such route." : error.status.reasonPhrase)
            return SyncRequestError(error.status, code, message)
        default:
            return SyncRequestError(.internalServerError, .internalError, "The server failed; nothing was changed.")
        }
    }

    static func response(_ status: HTTPResponse.Status, _ body: SyncErrorBody) -> Response {
        let data = (try? JSONEncoder().encode(body)) ?? Data(#"{"error":"internalError","message":""}"#.utf8)
        return Response(
            status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

extension HTTPField.Name {
    static let requestID = HTTPField.Name("X-Request-ID")!
    static let host = HTTPField.Name("Host")!
}

extension DecodingError {
    /// Where in the body and what: "mutations[2].baseVersion: expected Int64, found a string".
    var readableDescription: String {
        func path(_ keys: [any CodingKey]) -> String {
            let text = keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.hasPrefix(".") ? String(text.dropFirst()) : (text.isEmpty ? "the body" : text)
        }
        switch self {
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)): expected \(type). \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)): a \(type) is missing."
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])) is missing."
        case .dataCorrupted(let context):
            return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(self)"
        }
    }
}
