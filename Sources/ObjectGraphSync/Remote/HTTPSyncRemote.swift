import AsyncHTTPClient
public import Foundation
import NIOCore
import NIOFoundationCompat
public import ObjectGraphSyncProtocol

/// A sync server reached over HTTP, through AsyncHTTPClient.
///
/// ```swift
/// let remote = HTTPSyncRemote(url: URL(string: "https://sync.example.com")!, token: token)
/// ```
///
/// The remote owns its connections and closes them when it is released. AsyncHTTPClient rather
/// than Foundation's URLSession because FoundationNetworking, on Linux, keeps a core busy for as
/// long as a streaming answer (the live route) stays open.
public final class HTTPSyncRemote: SyncRemote {
    /// The server's address; the routes are under `/v1/`.
    public let url: URL
    private let token: String
    private let timeout: TimeInterval
    private let client: HTTPClient

    /// The largest answer read: a page of changes the server made far bigger than any it sends is
    /// refused rather than filling the memory.
    private static let maximumAnswerBytes = 512 * 1024 * 1024

    /// A remote for the server at `url`, authenticated with a bearer `token` (from the server's
    /// `token create` or `user add`). A request that gets no answer within `timeout` seconds fails
    /// as ``SyncError/unreachable(_:)``, and so does a live route silent for that long (the server
    /// sends a keep-alive comment every 15 seconds, so `timeout` should be longer). `tls` says which
    /// authorities an `https` server's certificate may come from (the system's by default) and
    /// which certificate the client presents; a certificate not trusted fails as
    /// ``SyncError/unreachable(_:)``, naming why.
    public init(url: URL, token: String, timeout: TimeInterval = 30, tls: SyncTLSConfiguration? = nil) {
        self.url = url
        self.token = token
        self.timeout = timeout
        let seconds = TimeAmount.milliseconds(Int64(max(timeout, 0.001) * 1000))
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: seconds, read: seconds)
        // A server that refuses the connection is offline now: the coordinator's back-off decides
        // when to try again, not a retry loop inside the request.
        configuration.connectionPool.retryConnectionEstablishment = false
        if let tls { configuration.tlsConfiguration = tls.clientConfiguration }
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    deinit {
        // Closes the connections; a request still under way fails as cancelled.
        client.shutdown { _ in }
    }

    public func push(_ request: PushRequest, zone: ZoneID) async throws -> PushOutcome {
        let (body, status) = try await send(try self.request(.push, zone: zone, body: request))
        switch status {
        case 200:
            return .applied(try decode(PushResult.self, from: body))
        case 409:
            let answer = try decode(SyncErrorBody.self, from: body)
            guard answer.error == .conflict, let conflicts = answer.conflicts else { throw SyncError.server(answer.error, answer.message) }
            return .conflicts(conflicts)
        default:
            throw refusal(body, status: status)
        }
    }

    public func changes(zone: ZoneID, since cursor: FeedCursor, limit: Int) async throws -> ChangesPage {
        let (body, status) = try await send(
            try request(.changes, zone: zone, query: ["since": cursor.description, "limit": String(limit)]))
        guard status == 200 else { throw refusal(body, status: status) }
        return try decode(ChangesPage.self, from: body)
    }

    /// The live route's bytes, read as the consumer asks for them: nothing is read ahead, so a
    /// consumer that falls behind leaves the bytes in the connection (TCP's flow control then holds
    /// the server back), never in memory. Cancelling the consumer's task cancels the request.
    public func live(zone: ZoneID, since cursor: FeedCursor) -> AsyncThrowingStream<Data, any Error> {
        let request: HTTPClientRequest
        do {
            request = try self.request(.live, zone: zone, query: ["since": cursor.description])
        } catch {
            return AsyncThrowingStream { $0.finish(throwing: error) }
        }
        let reader = LiveRouteReader(client: client, request: request, timeout: timeout)
        return AsyncThrowingStream(unfolding: { try await reader.next() })
    }

    // MARK: Sharing

    public func zones() async throws -> ZoneList {
        try await answer(try request(.zones), as: ZoneList.self)
    }

    public func members(of zone: ZoneID) async throws -> ZoneMembers {
        try await answer(try request(.members, zone: zone), as: ZoneMembers.self)
    }

    public func invite(_ invitation: InvitationRequest, to zone: ZoneID) async throws -> Invitation {
        try await answer(try request(.invite, zone: zone, body: invitation), as: Invitation.self)
    }

    public func invitations() async throws -> Invitations {
        try await answer(try request(.invitations), as: Invitations.self)
    }

    public func accept(_ acceptance: InvitationAcceptance) async throws -> Invitation {
        try await answer(try request(.acceptInvitation, body: acceptance), as: Invitation.self)
    }

    public func withdrawInvitation(_ id: Int64, of zone: ZoneID) async throws {
        try await perform(try request(.withdrawInvitation, zone: zone, invitation: id))
    }

    public func setRole(_ role: ZoneRole, of member: String, in zone: ZoneID) async throws {
        try await perform(try request(.memberRole, zone: zone, user: member, body: MemberRoleChange(role: role)))
    }

    public func removeMember(_ member: String, from zone: ZoneID) async throws {
        try await perform(try request(.memberRemoval, zone: zone, user: member))
    }

    public func deleteZone(_ zone: ZoneID) async throws {
        try await perform(try request(.deleteZone, zone: zone))
    }

    /// Opens the live route at the first demand, then reads one chunk of its body per demand.
    private final class LiveRouteReader: @unchecked Sendable {
        // Safety: `next()` is only called by `AsyncThrowingStream(unfolding:)`, once per demand of
        // the stream's one iterator, each call after the previous one returned: the mutable state
        // is never touched by two calls at once (checked in debug builds by `isReading`).
        private let client: HTTPClient
        private let request: HTTPClientRequest
        private let timeout: TimeInterval
        private var body: HTTPClientResponse.Body.AsyncIterator?
        private var isOpened = false
        private var isReading = false

        init(client: HTTPClient, request: HTTPClientRequest, timeout: TimeInterval) {
            self.client = client
            self.request = request
            self.timeout = timeout
        }

        /// The next chunk; nil once the server ended the answer.
        func next() async throws -> Data? {
            assert(!isReading, "the live route's body was read by two demands at once")
            isReading = true
            defer { isReading = false }
            do {
                if !isOpened {
                    isOpened = true
                    let response = try await client.execute(request, timeout: .milliseconds(Int64(timeout * 1000)))
                    guard response.status == .ok else {
                        let answer = try? await response.body.collect(upTo: 64 * 1024)
                        throw HTTPSyncRemote.refusal(
                            answer.map { Data(buffer: $0) } ?? Data(), status: Int(response.status.code),
                            route: "the live route")
                    }
                    body = response.body.makeAsyncIterator()
                }
                guard body != nil, let chunk = try await body?.next() else {
                    body = nil
                    return nil
                }
                return Data(buffer: chunk)
            } catch let error as SyncError {
                body = nil
                throw error
            } catch {
                body = nil
                throw SyncError.unreachable("the live route broke: \(error)")
            }
        }
    }

    // MARK: HTTP

    /// A request of `endpoint` for `zone`, under the server's address (the protocol spells the
    /// path; each name in it is escaped as one path segment), with the route's method and `body`
    /// as JSON.
    private func request(
        _ endpoint: Endpoint, zone: ZoneID = "", user: String = "", invitation: Int64? = nil, query: [String: String] = [:],
        body: (some Encodable)? = String?.none
    ) throws -> HTTPClientRequest {
        let segment = { (name: String) in name.addingPercentEncoding(withAllowedCharacters: Self.segmentCharacters) ?? name }
        let escaped = ZoneID(segment(zone.name), owner: zone.owner.map(segment))
        let path = endpoint.path(zone: escaped, user: segment(user), invitation: invitation)
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let base = components?.percentEncodedPath ?? ""
        components?.percentEncodedPath = (base.hasSuffix("/") ? String(base.dropLast()) : base) + path
        if !query.isEmpty { components?.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) } }
        guard let address = components?.url else { throw SyncError.unreachable("\(url) cannot hold the path \(path)") }
        var request = HTTPClientRequest(url: address.absoluteString)
        request.method = .init(rawValue: endpoint.method)
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: try JSONEncoder().encode(body)))
        }
        return request
    }

    /// What a path segment keeps unescaped: RFC 3986's unreserved characters.
    private static let segmentCharacters = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// The answer of a route that answers a value.
    private func answer<Value: Decodable>(_ request: HTTPClientRequest, as type: Value.Type) async throws -> Value {
        let (body, status) = try await send(request)
        guard (200..<300).contains(status) else { throw refusal(body, status: status) }
        return try decode(type, from: body)
    }

    /// Sends a request whose answer carries nothing but its success.
    private func perform(_ request: HTTPClientRequest) async throws {
        let (body, status) = try await send(request)
        guard (200..<300).contains(status) else { throw refusal(body, status: status) }
    }

    /// The answer's body and status; a request that got no HTTP answer is ``SyncError/unreachable(_:)``.
    private func send(_ request: HTTPClientRequest) async throws -> (Data, Int) {
        do {
            let response = try await client.execute(request, timeout: .milliseconds(Int64(timeout * 1000)))
            let body = try await response.body.collect(upTo: Self.maximumAnswerBytes)
            return (Data(buffer: body), Int(response.status.code))
        } catch is NIOTooManyBytesError {
            throw SyncError.server(
                .internalError, "\(request.method) \(request.url): the answer is larger than \(Self.maximumAnswerBytes) bytes")
        } catch {
            throw SyncError.unreachable("\(request.method) \(request.url): \(error)")
        }
    }

    private func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw SyncError.server(.internalError, "the answer is not a \(type): \(error)")
        }
    }

    private func refusal(_ body: Data, status: Int) -> SyncError {
        Self.refusal(body, status: status, route: nil)
    }

    /// The error an answer other than success stands for.
    fileprivate static func refusal(_ body: Data, status: Int, route: String?) -> SyncError {
        // A body that is no error body (a proxy's page) still leaves the status to go by.
        .refusal(status: status, body: try? JSONDecoder().decode(SyncErrorBody.self, from: body), route: route)
    }
}
