public import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
public import ObjectGraphSyncProtocol

/// A sync server reached over HTTP, through Foundation's URLSession (FoundationNetworking on
/// Linux): an app that syncs adds no dependency.
///
/// ```swift
/// let remote = HTTPSyncRemote(url: URL(string: "https://sync.example.com")!, token: token)
/// ```
public struct HTTPSyncRemote: SyncRemote {
    /// The server's address; the routes are under `/v1/zones/`.
    public let url: URL
    private let token: String
    private let session: URLSession
    private let timeout: TimeInterval

    /// A remote for the server at `url`, authenticated with a bearer `token` (from the server's
    /// `token create` or `user add`). A request that gets no answer within `timeout` seconds fails
    /// as ``SyncError/unreachable(_:)``.
    public init(url: URL, token: String, timeout: TimeInterval = 30) {
        self.url = url
        self.token = token
        self.timeout = timeout
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        session = URLSession(configuration: configuration)
    }

    public func push(_ request: PushRequest, zone: String) async throws -> PushOutcome {
        var urlRequest = self.request("zones/\(zone)/push")
        urlRequest.httpMethod = "POST"
        urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
        urlRequest.httpBody = try JSONEncoder().encode(request)
        let (data, status) = try await send(urlRequest)
        switch status {
        case 200:
            return .applied(try decode(PushResult.self, from: data))
        case 409:
            let body = try decode(SyncErrorBody.self, from: data)
            guard body.error == .conflict, let conflicts = body.conflicts else { throw SyncError.server(body.error, body.message) }
            return .conflicts(conflicts)
        default:
            throw refusal(data, status: status)
        }
    }

    public func changes(zone: String, since cursor: FeedCursor, limit: Int) async throws -> ChangesPage {
        let (data, status) = try await send(request("zones/\(zone)/changes", query: ["since": cursor.description, "limit": String(limit)]))
        guard status == 200 else { throw refusal(data, status: status) }
        return try decode(ChangesPage.self, from: data)
    }

    public func live(zone: String, since cursor: FeedCursor) -> AsyncThrowingStream<Data, any Error> {
        let (chunks, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        let delegate = LiveRouteDelegate(continuation)
        let configuration = URLSessionConfiguration.ephemeral
        // The server sends a keep-alive comment every 15 seconds: a longer silence is a dead link.
        configuration.timeoutIntervalForRequest = max(timeout, 60)
        let liveSession = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        let task = liveSession.dataTask(with: request("zones/\(zone)/live", query: ["since": cursor.description]))
        continuation.onTermination = { _ in
            task.cancel()
            liveSession.invalidateAndCancel()
        }
        task.resume()
        return chunks
    }

    // MARK: HTTP

    private func request(_ path: String, query: [String: String] = [:]) -> URLRequest {
        var components = URLComponents(url: url.appendingPathComponent("v1/" + path), resolvingAgainstBaseURL: false)
        if !query.isEmpty { components?.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) } }
        var request = URLRequest(url: components?.url ?? url)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.timeoutInterval = timeout
        return request
    }

    /// The answer's body and status; a request that got no HTTP answer is ``SyncError/unreachable(_:)``.
    private func send(_ request: URLRequest) async throws -> (Data, Int) {
        let answer: (Data, URLResponse)
        do {
            answer = try await session.data(for: request)
        } catch {
            throw SyncError.unreachable("\(request.httpMethod ?? "GET") \(request.url?.path ?? ""): \(error.localizedDescription)")
        }
        guard let response = answer.1 as? HTTPURLResponse else { throw SyncError.unreachable("the answer is not HTTP") }
        return (answer.0, response.statusCode)
    }

    private func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw SyncError.server(.internalError, "the answer is not a \(type): \(error)")
        }
    }

    /// The error an answer other than success stands for.
    private func refusal(_ data: Data, status: Int) -> SyncError {
        // A body that is no error body (a proxy's page) still leaves the status to go by.
        let body = try? JSONDecoder().decode(SyncErrorBody.self, from: data)
        if status == 401 { return .unauthorized(body?.message ?? "HTTP 401") }
        if let body { return .server(body.error, body.message) }
        // A gateway's or a proxy's refusal: the server itself is not answering.
        if (500...599).contains(status) { return .unreachable("HTTP \(status)") }
        return .server(.internalError, "HTTP \(status)")
    }
}

/// Passes a live route's bytes from URLSession's delegate callbacks to a stream, refusing an answer
/// other than 200.
private final class LiveRouteDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Safety: URLSession calls a delegate from its serial delegate queue, one callback at a time,
    // and the continuation is Sendable.
    private let continuation: AsyncThrowingStream<Data, any Error>.Continuation

    init(_ continuation: AsyncThrowingStream<Data, any Error>.Continuation) {
        self.continuation = continuation
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else {
            continuation.finish(throwing: status == 401 ? SyncError.unauthorized("HTTP 401 on the live route")
                                                        : SyncError.unreachable("the live route answered HTTP \(status)"))
            completionHandler(.cancel)
            return
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        continuation.yield(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error {
            continuation.finish(throwing: SyncError.unreachable("the live route broke: \(error.localizedDescription)"))
        } else {
            continuation.finish()
        }
    }
}
