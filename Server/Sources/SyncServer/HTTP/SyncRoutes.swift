import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ObjectGraphSyncProtocol
import ServiceLifecycle

/// The HTTP API, version 1 (documented in `Server/openapi.yaml`). Routes are thin: they decode
/// the request and hand it to the server's operations (`SyncServer+Operations.swift`).
struct SyncRoutes {
    let server: SyncServer

    func add(to router: Router<SyncRequestContext>) {
        router.on(RouterPath(Route.health.pathPattern), method: Route.health.requestMethod) { _, _ in
            Self.json(#"{"status":"ok"}"#)
        }
        router.on(RouterPath(Route.ready.pathPattern), method: Route.ready.requestMethod) { _, _ in try await ready() }
        router.on(RouterPath(Route.metrics.pathPattern), method: Route.metrics.requestMethod) { request, context in
            try metrics(request, context)
        }
        let authenticated = router.group()
            .add(middleware: TokenAuthenticator(server: server))
            .add(middleware: RequireUser(server: server))
        let handlers: [Route: @Sendable (Request, SyncRequestContext) async throws -> Response] = [
            .push: push, .changes: changes, .live: live, .deleteZone: deleteZone, .zones: zones, .members: members, .memberRole: memberRole,
            .memberRemoval: memberRemoval, .invite: invite, .invitations: invitations, .acceptInvitation: acceptInvitation,
            .withdrawInvitation: withdrawInvitation
        ]
        for (route, handler) in handlers {
            for pattern in route.pathPatterns {
                authenticated.on(RouterPath(pattern), method: route.requestMethod) { request, context in
                    try await handler(request, context)
                }
            }
        }
    }

    // MARK: Operations

    /// Readiness: the database answered the last ping, made within the watch's interval (503
    /// otherwise); no request makes a ping of its own. `/health` says only that the process serves.
    private func ready() async throws -> Response {
        guard await server.watch.isReady() else {
            throw SyncRequestError.unavailable("The database does not answer.")
        }
        return Self.json(#"{"status":"ready"}"#)
    }

    /// The metrics in Prometheus's text format; only with the metrics token when one is set. The
    /// token is compared in constant time, and a wrong one counts as a failed authentication.
    private func metrics(_ request: Request, _ context: SyncRequestContext) throws -> Response {
        if let expected = server.configuration.metricsToken,
            !AccessToken.matches(TokenAuthenticator.bearerToken(request.headers[.authorization]) ?? "", expected)
        {
            let address = server.clientAddress(of: request, context: context)
            try server.guards.admitAuthentication(from: address)
            server.guards.failedAuthentication(from: address)
            throw SyncRequestError(.unauthorized, .unauthorized, "/metrics needs the server's metrics token.")
        }
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: server.metrics.text())))
    }

    // MARK: Push

    private func push(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        let user = try context.user()
        // The zone's owner is resolved before the body is read; the user's role is checked in the
        // push's transaction.
        let reference = try await server.reference(zone: try context.zone(), owner: try context.owner(), user: user)
        // Counted in before the body is read: a user's pushes in parallel hold at most so many
        // bodies, and a user whose budget is spent sends none.
        try server.guards.admitPush(of: user)
        defer { server.guards.pushEnded(of: user) }
        let maxBytes = server.configuration.limits.maxBodyBytes
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: maxBytes)
        } catch is NIOTooManyBytesError {
            throw SyncRequestError.tooLarge("A push body holds at most \(maxBytes) bytes.")
        }
        // The body is decoded in the user's turn too: however many pushes a user sends at once,
        // they take one thread's worth of the server's work, not every thread.
        let answer = try await server.guards.pushTurns.run(user.id) {
            let pushRequest: PushRequest
            do {
                pushRequest = try PushRequest(jsonBytes: Array(buffer: body))
            } catch {
                throw SyncRequestError.badRequest("The body is not a valid request: \(error)")
            }
            server.guards.chargePush(of: user, mutations: pushRequest.mutations.count, bodyBytes: body.readableBytes)
            return try await server.pushInTurn(pushRequest, to: reference, user: user)
        }
        var response = Self.json(answer.json)
        if answer.isReplay { response.headers[.replayed] = "true" }
        return response
    }

    // MARK: Changes

    private func changes(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        var limit = 100
        if let text = request.uri.queryParameters["limit"] {
            guard let value = Int(text) else {
                throw SyncRequestError.badRequest("limit=\(text.prefix(40)) is not a positive whole number.")
            }
            limit = value
        }
        return Self.json(
            try await server.changesJSON(
                zone: try context.zone(), owner: try context.owner(), user: try context.user(), since: try Self.cursor(request),
                limit: limit))
    }

    // MARK: Live

    /// Server-sent events: an event whenever the zone's feed moves past the client's cursor
    /// (see ``LiveStream``).
    private func live(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        let user = try context.user()
        let access = try await server.access(zone: try context.zone(), owner: try context.owner(), user: user, needing: .reader)
        let zone = access.zone
        let cursor = try Self.cursor(request)
        let token = TokenAuthenticator.bearerToken(request.headers[.authorization]) ?? ""
        // Its places among the user's, the token's and the server's streams, given back when the
        // body below is released.
        let admission = try server.guards.admitLiveStream(of: user, token: token)
        // Subscribe before reading the head: a push between the two is then seen either way.
        let (events, finish) = server.notifier.subscribe(to: ZoneKey(ownerID: access.owner.id, name: zone))
        // Read before the stream starts: a failure is an error answer, not a stream cut short, and
        // a client told ": listening" has nothing of this request's left in the database.
        let head: ZoneHead?
        do {
            head = try await server.storage.head(zone: zone, owner: access.owner)
            // The cursor is refused as `changes` would refuse it: another zone's, or past the horizon.
            try server.checkCursor(cursor, of: head, zone: zone)
        } catch {
            finish()
            throw error
        }
        let stream = LiveStream(
            server: server, user: user, access: access, token: token,
            since: cursor.position, head: head, events: events, finish: finish)
        let headers: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-cache"]
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                defer { withExtendedLifetime(admission) {} }
                try await stream.write(to: &writer)
            })
    }

    // MARK: Members and invitations

    private func deleteZone(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        try await server.deleteZone(try context.zone(), owner: try context.owner(), user: try context.user())
        return Response(status: .noContent)
    }

    private func zones(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        try Self.json(encoding: try await server.zones(of: try context.user()))
    }

    private func members(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        let members = try await server.members(zone: try context.zone(), owner: try context.owner(), user: try context.user())
        return try Self.json(encoding: members)
    }

    private func memberRole(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        let change = try await Self.decode(MemberRoleChange.self, from: request)
        try await server.setRole(
            change.role, of: try context.member(), zone: try context.zone(), owner: try context.owner(), user: try context.user())
        return Response(status: .noContent)
    }

    private func memberRemoval(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        try await server.removeMember(try context.member(), zone: try context.zone(), owner: try context.owner(), user: try context.user())
        return Response(status: .noContent)
    }

    private func invite(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        let invitation = try await Self.decode(InvitationRequest.self, from: request)
        let made = try await server.invite(invitation, zone: try context.zone(), owner: try context.owner(), user: try context.user())
        var response = try Self.json(encoding: made)
        response.status = .created
        return response
    }

    private func invitations(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        try Self.json(encoding: try await server.invitations(for: try context.user()))
    }

    private func acceptInvitation(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        let acceptance = try await Self.decode(InvitationAcceptance.self, from: request)
        return try Self.json(encoding: try await server.acceptInvitation(acceptance, user: try context.user()))
    }

    private func withdrawInvitation(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        guard let id = context.parameters.get("invitation").flatMap({ Int64($0) }) else {
            throw SyncRequestError.badRequest("An invitation is named by its number.")
        }
        try await server.withdrawInvitation(id: id, zone: try context.zone(), owner: try context.owner(), user: try context.user())
        return Response(status: .noContent)
    }

    // MARK: Helpers

    /// A small JSON body (these routes' bodies are a few fields): strict, unknown keys refused.
    private static func decode<Body: Decodable>(_ type: Body.Type, from request: Request) async throws -> Body {
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: 16 << 10)
        } catch is NIOTooManyBytesError {
            throw SyncRequestError.tooLarge("This route's body holds at most 16 KiB.")
        }
        do {
            return try JSONDecoder().decode(type, from: Data(buffer: body))
        } catch {
            throw SyncRequestError.badRequest("The body is not a valid \(type): \(error)")
        }
    }

    private static func json(encoding value: some Encodable) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(value))))
    }

    private static func cursor(_ request: Request) throws -> FeedCursor {
        guard let text = request.uri.queryParameters["since"] else { return .start }
        guard let cursor = FeedCursor(String(text)) else {
            throw SyncRequestError.badRequest("since=\(text.prefix(40)) is not a cursor this server gave out.")
        }
        return cursor
    }

    private static func json(_ text: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

extension HTTPField.Name {
    /// Set on the answer to a push that was a replay of the last one.
    static let replayed = HTTPField.Name("ObjectGraph-Replayed")!
}
