import Synchronization

/// The rate and concurrency limits of one server, applied by its middleware and routes (see
/// ``RateLimits``). Each refusal is a 429 with `Retry-After`, counted in ``LimitEvents``.
struct RequestGuards: Sendable {
    let userRequests: TokenBuckets<Int64>?
    let failedAuthentications: TokenBuckets<String>?
    let pushes: ConcurrencyGate<Int64>
    /// What each user's pushes cost (mutations and KiB of body), against their budget.
    let pushCost: TokenBuckets<Int64>?
    /// Each user's turns to have a push applied.
    let pushTurns: FairTurns<Int64>
    let liveStreamsPerUser: ConcurrencyGate<Int64>
    let liveStreamsPerToken: ConcurrencyGate<String>
    /// Every live stream of the server, under one key: they never take the reserved connections.
    let liveStreams: ConcurrencyGate<Bool>
    let events: LimitEvents

    init(_ limits: RateLimits, connections: ConnectionLimits, events: LimitEvents) {
        userRequests = limits.userRequests.map { TokenBuckets(rate: $0) }
        failedAuthentications = limits.failedAuthenticationsPerAddress.map { TokenBuckets(rate: $0) }
        pushes = ConcurrencyGate(limit: limits.concurrentPushesPerUser)
        pushCost = limits.pushCost.map { TokenBuckets(rate: $0) }
        pushTurns = FairTurns(limit: limits.pushesAppliedAtOncePerUser)
        liveStreamsPerUser = ConcurrencyGate(limit: limits.liveStreamsPerUser)
        liveStreamsPerToken = ConcurrencyGate(limit: limits.liveStreamsPerToken)
        liveStreams = ConcurrencyGate(limit: connections.liveStreamConnections)
        self.events = events
    }

    /// Takes a request of `user` out of their rate, or refuses it.
    func admitRequest(of user: SyncUser) throws(SyncRequestError) {
        guard let wait = userRequests?.take(user.id) else { return }
        events.record(.rateLimit)
        throw .tooManyRequests(
            retryAfter: wait, "This user's requests are over the server's rate; try again in \(Self.seconds(wait)) s.")
    }

    /// Refuses another wrong token from an address that sent too many (429 rather than 401).
    func admitAuthentication(from address: String) throws(SyncRequestError) {
        guard failedAuthentications?.wait(address) != nil else { return }
        events.record(.rateLimit)
        throw .tooManyRequests(
            retryAfter: 1, "Too many requests with a token that is not valid came from this address; try again later.")
    }

    /// Counts a failed authentication against the address.
    func failedAuthentication(from address: String) {
        _ = failedAuthentications?.take(address)
    }

    /// Counts a push of `user` in, or refuses it (the user has as many running as allowed, or
    /// spent their push budget); the caller counts it out with ``pushEnded(of:)``.
    func admitPush(of user: SyncUser) throws(SyncRequestError) {
        if let wait = pushCost?.wait(user.id) {
            events.record(.pushCost)
            throw .tooManyRequests(
                retryAfter: wait,
                "This user's pushes spent their budget (mutations and bytes per second); try again in \(Self.seconds(wait)) s.")
        }
        guard pushes.enter(user.id) else {
            events.record(.concurrentPushes)
            throw .tooManyRequests(
                retryAfter: 1, "This user has as many pushes running as the server allows; send this one when one ends.")
        }
    }

    func pushEnded(of user: SyncUser) {
        pushes.leave(user.id)
    }

    /// Charges a push of `user` its cost: one unit per mutation, one per KiB of body.
    func chargePush(of user: SyncUser, mutations: Int, bodyBytes: Int) {
        pushCost?.charge(user.id, cost: Double(mutations) + Double(bodyBytes) / 1024)
    }

    /// Counts a live stream of `user`'s, asked with `token`, in, or refuses it: neither a user
    /// nor a token can hold more than its share of streams, and streams together never take the
    /// connections reserved for other requests. The places come back when the returned admission
    /// is released (the stream ended, or never began).
    func admitLiveStream(of user: SyncUser, token: String) throws(SyncRequestError) -> LiveStreamAdmission {
        let admission = LiveStreamAdmission()
        guard admission.enter(liveStreamsPerUser, user.id), admission.enter(liveStreamsPerToken, token) else {
            events.record(.liveStreams)
            throw .tooManyRequests(
                retryAfter: 5,
                "This user, or this token, has as many live streams open as the server allows; close one, or try again later.")
        }
        guard admission.enter(liveStreams, true) else {
            events.record(.liveStreams)
            throw .tooManyRequests(retryAfter: 5, "The server holds as many live streams as it allows; try again later.")
        }
        return admission
    }

    /// Whole seconds, at least one: what `Retry-After` says.
    static func seconds(_ wait: Double) -> Int {
        wait.isFinite ? max(1, Int(wait.rounded(.up))) : 3600
    }
}

/// A live stream's places (among its user's, its token's, the server's): given back when
/// released, however the stream ends (its body written to the end, the connection gone, or an
/// error before it began).
final class LiveStreamAdmission: Sendable {
    private let leaves = Mutex<[@Sendable () -> Void]>([])

    /// Takes a place of `key` in `gate`; false when it has none left.
    func enter<Key>(_ gate: ConcurrencyGate<Key>, _ key: Key) -> Bool {
        guard gate.enter(key) else { return false }
        leaves.withLock { $0.append { gate.leave(key) } }
        return true
    }

    deinit { leaves.withLock { $0.forEach { $0() } } }
}
