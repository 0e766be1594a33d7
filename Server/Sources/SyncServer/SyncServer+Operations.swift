public import Foundation
import ObjectGraphSyncFeed
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
    /// Applies a push to a zone, all or nothing, in the user's turn (see
    /// ``RateLimits/pushesAppliedAtOncePerUser``): one of the user's own zones (created on first
    /// push) when `owner` is nil, else `owner`'s zone, of which the user must be a writer.
    public func push(_ request: PushRequest, zone: String, owner: String? = nil, user: SyncUser) async throws -> PushAnswer {
        let reference = try await reference(zone: zone, owner: owner, user: user)
        return try await guards.pushTurns.run(user.id) { try await pushInTurn(request, to: reference, user: user) }
    }

    /// ``push(_:zone:owner:user:)`` for a caller that holds the user's turn already (the route,
    /// which decodes the body in it too).
    func pushInTurn(_ request: PushRequest, to reference: ZoneReference, user: SyncUser) async throws -> PushAnswer {
        let start = ContinuousClock.now
        let zone = reference.zone
        let outcome: PushDecision
        do {
            let limits = configuration.limits
            try request.validate(against: limits)
            outcome = try await storage.push(
                PushPlanner(request: request, limits: limits), zone: zone, owner: reference.owner, author: user,
                quotas: configuration.quotas,
                now: Date().millisecondsSince1970)
        } catch let denied as ZoneAccessDenied {
            metrics.push(.refused, mutations: 0, duration: ContinuousClock.now - start)
            throw Self.refusal(denied, user: user, reference: reference)
        } catch {
            metrics.push(.refused, mutations: 0, duration: ContinuousClock.now - start)
            throw Self.requestError(error)
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
            throw SyncRequestError(.mutationNumberUsed(lastApplied: last, clientID: request.clientID, zone: zone))
        case .conflict(let conflicts):
            metrics.push(.conflict, mutations: conflicts.count, duration: ContinuousClock.now - start)
            throw SyncRequestError(.conflict(conflicts))
        }
    }

    /// The changes of a zone after a cursor: one of the user's own zones when `owner` is nil, else
    /// `owner`'s zone, of which the user must be a member. At most `limit` (lowered to the
    /// server's page size), more when one push alone is longer; whole pushes only.
    public func changes(zone: String, owner: String? = nil, user: SyncUser, since: FeedCursor, limit: Int) async throws
        -> ChangesPage
    {
        try await storedChanges(zone: zone, owner: owner, user: user, since: since, limit: limit).decoded()
    }

    /// The same page as JSON, the records' fields as stored: what the `changes` route sends.
    public func changesJSON(zone: String, owner: String? = nil, user: SyncUser, since: FeedCursor, limit: Int) async throws
        -> String
    {
        StoredJSON.encode(try await storedChanges(zone: zone, owner: owner, user: user, since: since, limit: limit))
    }

    private func storedChanges(zone: String, owner: String?, user: SyncUser, since: FeedCursor, limit: Int) async throws
        -> FeedPage
    {
        let reference = try await reference(zone: zone, owner: owner, user: user)
        do {
            let limit = try FeedPaging.limit(asked: limit, maximum: configuration.limits.maxPageSize)
            let start = ContinuousClock.now
            defer { metrics.feedRead(duration: ContinuousClock.now - start) }
            let paging = FeedPaging(limit: limit, byteBudget: configuration.limits.maxPageBytes)
            switch try await storage.changes(zone: zone, owner: reference.owner, readBy: user, since: since, paging: paging) {
            case .page(let page): return page
            case .refused(let refusal): throw refusal.refusal(since: since, zone: zone)
            }
        } catch let denied as ZoneAccessDenied {
            throw Self.refusal(denied, user: user, reference: reference)
        } catch {
            throw Self.requestError(error)
        }
    }

    /// Refuses a cursor as `changes` would, given the zone's head (nil when the user never
    /// pushed to it): the live route checks its cursor so.
    func checkCursor(_ since: FeedCursor, of head: ZoneHead?, zone: String) throws {
        let refusal = head.map { $0.policy.refusal(of: since) } ?? FeedPolicy.refusalInUnknownZone(of: since)
        if let refusal { throw SyncRequestError(refusal.refusal(since: since, zone: zone)) }
    }

    /// `error` as this API throws it: a refusal of the feed's decisions is a `SyncRequestError`.
    private static func requestError(_ error: any Error) -> any Error {
        (error as? SyncRefusal).map(SyncRequestError.init) ?? error
    }

    /// The user a bearer token lets in at `date` (now, by default), or nil: an unknown, revoked or
    /// expired token lets nobody in.
    public func user(authenticatedBy token: String, at date: Date = Date()) async throws -> SyncUser? {
        try await storage.user(tokenDigest: AccessToken.digest(of: token), now: date.millisecondsSince1970)
    }
}
