import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ObjectGraphSyncProtocol
import ServiceLifecycle

/// The HTTP API, version 1 (documented in `Server/openapi.yaml`). Routes are thin: they decode,
/// check, and hand the work to the storage, whose decisions live in `Feed/`.
struct SyncRoutes {
    let storage: any SyncStorage
    let notifier: FeedNotifier
    let limits: ServerLimits

    func add(to router: Router<SyncRequestContext>) {
        router.get("/health") { _, _ in
            Self.json(#"{"status":"ok"}"#)
        }
        let zones = router.group("/v1/zones/:zone")
            .add(middleware: TokenAuthenticator(storage: storage))
            .add(middleware: RequireUser())
        zones.post("push") { request, context in try await push(request, context) }
        zones.get("changes") { request, context in try await changes(request, context) }
        zones.get("live") { request, context in try await live(request, context) }
    }

    // MARK: Push

    private func push(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        let user = try context.user()
        let zone = try context.zone()
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: limits.maxBodyBytes)
        } catch is NIOTooManyBytesError {
            throw SyncRequestError.tooLarge("A push body holds at most \(limits.maxBodyBytes) bytes.")
        }
        let pushRequest = try JSONDecoder().decode(PushRequest.self, from: body)
        try pushRequest.validate(against: limits)
        let planner = PushPlanner(request: pushRequest, limits: limits)
        let now = Date().millisecondsSince1970
        switch try await storage.push(planner, zone: zone, owner: user, now: now) {
        case .apply(let plan):
            return Self.json(plan.resultJSON)
        case .replay(let result):
            var response = Self.json(result)
            response.headers[.replayed] = "true"
            return response
        case .numberUsed(let last):
            throw SyncRequestError(
                status: .conflict,
                body: SyncErrorBody(
                    error: .mutationNumberUsed,
                    message: "Client \(pushRequest.clientID.uuidString) has mutations up to number \(last) "
                        + "applied in zone \"\(zone)\"; this batch reuses numbers and is not a replay of the last one.",
                    lastAppliedNumber: last))
        case .conflict(let conflicts):
            let list = conflicts.map { "mutation \($0.number) (\($0.server.entity) \($0.server.id.uuidString))" }
            throw SyncRequestError(
                status: .conflict,
                body: SyncErrorBody(
                    error: .conflict,
                    message: "Changed on the server since the base version: \(list.joined(separator: ", ")). "
                        + "Nothing was applied.",
                    conflicts: conflicts))
        }
    }

    // MARK: Changes

    private func changes(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        let user = try context.user()
        let zone = try context.zone()
        let since = try Self.cursor(request)
        var limit = 100
        if let text = request.uri.queryParameters["limit"] {
            guard let value = Int(text), value >= 1 else {
                throw SyncRequestError.badRequest("limit=\(text.prefix(40)) is not a positive whole number.")
            }
            limit = min(value, limits.maxPageSize)
        }
        switch try await storage.changes(zone: zone, owner: user, since: since, limit: limit) {
        case .page(let page):
            return Self.json(String(decoding: try JSONEncoder().encode(page), as: UTF8.self))
        case .mustRefetch(let purgedThrough):
            throw SyncRequestError(
                .gone, .mustRefetch,
                "The cursor \(since) is older than the zone's tombstone horizon (position \(purgedThrough)) "
                    + "or was never given out: drop the zone's synced data and read it again from the start.")
        }
    }

    // MARK: Live

    /// Server-sent events: an event whenever the zone's feed moves past the client's cursor.
    private func live(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        let user = try context.user()
        let zone = try context.zone()
        let since = try Self.cursor(request).position
        let key = ZoneKey(ownerID: user.id, name: zone)
        // Subscribe before reading the head: a push between the two is then seen either way.
        let (events, finish) = notifier.subscribe(to: key)
        let storage = storage
        let headers: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-cache"]
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            try await writer.write(ByteBuffer(string: ": listening\n\n"))
            var last = since
            var head = try await storage.head(zone: zone, owner: user)?.cursor.position ?? 0
            if head > last {
                last = head
                try await writer.write(Self.event(head))
            }
            // A stream never ends on its own: a graceful shutdown ends it so the server can stop.
            try await withGracefulShutdownHandler {
                for await event in events {
                    switch event {
                    case .moved(let position): head = max(head, position)
                    case .tick: head = max(head, try await storage.head(zone: zone, owner: user)?.cursor.position ?? 0)
                    }
                    if head > last {
                        last = head
                        try await writer.write(Self.event(head))
                    } else if event == .tick {
                        try await writer.write(ByteBuffer(string: ": tick\n\n"))
                    }
                }
            } onGracefulShutdown: {
                finish()
            }
            try await writer.finish(nil)
        })
    }

    /// One server-sent event: the zone's feed reached `position`.
    private static func event(_ position: Int64) throws -> ByteBuffer {
        let data = try JSONEncoder().encode(LiveEvent(cursor: FeedCursor(position: position)))
        return ByteBuffer(string: "event: changes\ndata: \(String(decoding: data, as: UTF8.self))\n\n")
    }

    // MARK: Helpers

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
