public import Foundation
public import ObjectGraphSyncProtocol

/// The answer to a push that was applied, now or before.
public struct PushAnswer: Sendable {
    /// What was applied: each mutation's record version, and the zone's cursor after the push.
    public var result: PushResult
    /// True when the batch had been applied before and this is the answer given then.
    public var isReplay: Bool
    /// `result` as the JSON the server stores and sends.
    var json: String
}

/// What the HTTP routes do, callable without HTTP: by the routes themselves, the benchmark, and a
/// program that embeds the server. Every refusal is a `SyncRequestError` and changes nothing.
///
/// The schema must exist: the running application or ``SyncServer/withDatabase(_:)`` creates it.
extension SyncServer {
    /// Applies a push to one of a user's zones (created on first push), all or nothing.
    public func push(_ request: PushRequest, zone: String, user: SyncUser) async throws -> PushAnswer {
        let start = ContinuousClock.now
        let outcome: PushOutcome
        do {
            try Self.checkZoneName(zone)
            let limits = configuration.limits
            try request.validate(against: limits)
            outcome = try await storage.push(
                PushPlanner(request: request, limits: limits), zone: zone, owner: user, now: Date().millisecondsSince1970)
        } catch {
            metrics.push(.refused, mutations: 0, duration: ContinuousClock.now - start)
            throw error
        }
        switch outcome {
        case .apply(let plan):
            metrics.push(.applied, mutations: plan.entries.count, duration: ContinuousClock.now - start)
            return PushAnswer(result: plan.result, isReplay: false, json: plan.resultJSON)
        case .replay(let json):
            metrics.push(.replayed, mutations: 0, duration: ContinuousClock.now - start)
            return PushAnswer(result: try StoredJSON.decode(PushResult.self, from: json), isReplay: true, json: json)
        case .numberUsed(let last):
            metrics.push(.refused, mutations: 0, duration: ContinuousClock.now - start)
            throw SyncRequestError(
                status: .conflict,
                body: SyncErrorBody(
                    error: .mutationNumberUsed,
                    message: "Client \(request.clientID.uuidString) has mutations up to number \(last) "
                        + "applied in zone \"\(zone)\"; this batch reuses numbers and is not a replay of the last one.",
                    lastAppliedNumber: last))
        case .conflict(let conflicts):
            metrics.push(.conflict, mutations: conflicts.count, duration: ContinuousClock.now - start)
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

    /// The changes of a user's zone after a cursor: at most `limit` (lowered to the server's
    /// page size), more when one push alone is longer; whole pushes only.
    public func changes(zone: String, user: SyncUser, since: FeedCursor, limit: Int) async throws -> ChangesPage {
        try await storedChanges(zone: zone, user: user, since: since, limit: limit).decoded()
    }

    /// The same page as JSON, the records' fields as stored: what the `changes` route sends.
    public func changesJSON(zone: String, user: SyncUser, since: FeedCursor, limit: Int) async throws -> String {
        StoredJSON.encode(try await storedChanges(zone: zone, user: user, since: since, limit: limit))
    }

    private func storedChanges(zone: String, user: SyncUser, since: FeedCursor, limit: Int) async throws -> FeedPage {
        try Self.checkZoneName(zone)
        guard limit >= 1 else { throw SyncRequestError.badRequest("limit=\(limit) is not a positive whole number.") }
        let limit = min(limit, configuration.limits.maxPageSize)
        let start = ContinuousClock.now
        defer { metrics.feedRead(duration: ContinuousClock.now - start) }
        switch try await storage.changes(zone: zone, owner: user, since: since, limit: limit) {
        case .page(let page): return page
        case .refused(let refusal): throw Self.error(refusal, since: since, zone: zone)
        }
    }

    /// Refuses a cursor as `changes` would, given the zone's head (nil when the user never
    /// pushed to it): the live route checks its cursor so.
    func checkCursor(_ since: FeedCursor, of head: ZoneHead?, zone: String) throws {
        let refusal = head.map { $0.policy.refusal(of: since) } ?? FeedPolicy.refusalInUnknownZone(of: since)
        if let refusal { throw Self.error(refusal, since: since, zone: zone) }
    }

    private static func error(_ refusal: FeedRefusal, since: FeedCursor, zone: String) -> SyncRequestError {
        switch refusal {
        case .otherZone:
            // Never given out for this zone, as a cursor of an unknown position: read it again.
            SyncRequestError(
                .gone, .mustRefetch,
                "The cursor \(since) was given out for another zone than \"\(zone)\": drop this zone's synced data "
                    + "and read it again from the start.")
        case .mustRefetch(let purgedThrough):
            SyncRequestError(
                .gone, .mustRefetch,
                "The cursor \(since) is older than the zone's tombstone horizon (position \(purgedThrough)) "
                    + "or was never given out: drop the zone's synced data and read it again from the start.")
        }
    }

    /// The user a bearer token lets in at `date` (now, by default), or nil: an unknown, revoked or
    /// expired token lets nobody in.
    public func user(authenticatedBy token: String, at date: Date = Date()) async throws -> SyncUser? {
        try await storage.user(tokenDigest: AccessToken.digest(of: token), now: date.millisecondsSince1970)
    }

    /// Refuses a zone name that is not 1 to 100 letters, digits, `.`, `_` or `-`, or is `.` or `..`
    /// (which a proxy or a client's URL library may resolve as a path).
    static func checkZoneName(_ name: String) throws(SyncRequestError) {
        let allowed = name.utf8.allSatisfy {
            ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A)
                || $0 == 0x2E || $0 == 0x5F || $0 == 0x2D
        }
        guard !name.isEmpty, name.utf8.count <= 100, allowed, name != ".", name != ".." else {
            throw .badRequest(
                "\(name.prefix(100).debugDescription) is not a zone name: use 1 to 100 letters, digits, '.', '_' or '-', "
                    + "other than '.' and '..'.")
        }
    }
}
