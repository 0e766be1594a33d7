/// The rate and concurrency limits of one server, applied by its middleware and routes (see
/// ``RateLimits``). Each refusal is a 429 with `Retry-After`, counted in ``LimitEvents``.
struct RequestGuards: Sendable {
    let userRequests: TokenBuckets<Int64>?
    let failedAuthentications: TokenBuckets<String>?
    let pushes: ConcurrencyGate
    let liveStreams: ConcurrencyGate
    let events: LimitEvents

    init(_ limits: RateLimits, events: LimitEvents) {
        userRequests = limits.userRequests.map { TokenBuckets(rate: $0) }
        failedAuthentications = limits.failedAuthenticationsPerAddress.map { TokenBuckets(rate: $0) }
        pushes = ConcurrencyGate(limit: limits.concurrentPushesPerUser)
        liveStreams = ConcurrencyGate(limit: limits.liveStreamsPerUser)
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
        guard let failures = failedAuthentications, !failures.hasToken(address) else { return }
        events.record(.rateLimit)
        throw .tooManyRequests(
            retryAfter: 1, "Too many requests with a token that is not valid came from this address; try again later.")
    }

    /// Counts a failed authentication against the address.
    func failedAuthentication(from address: String) {
        _ = failedAuthentications?.take(address)
    }

    /// Counts a push of `user` in, or refuses it; the caller counts it out with ``pushEnded(of:)``.
    func admitPush(of user: SyncUser) throws(SyncRequestError) {
        guard pushes.enter(user.id) else {
            events.record(.concurrentPushes)
            throw .tooManyRequests(
                retryAfter: 1, "This user has as many pushes running as the server allows; send this one when one ends.")
        }
    }

    func pushEnded(of user: SyncUser) {
        pushes.leave(user.id)
    }

    /// Counts a live stream of `user` in, or refuses it: a user cannot hold every connection of
    /// the server with streams. The place comes back when the returned admission is released
    /// (the stream ended, or never began).
    func admitLiveStream(of user: SyncUser) throws(SyncRequestError) -> LiveStreamAdmission {
        guard liveStreams.enter(user.id) else {
            events.record(.liveStreams)
            throw .tooManyRequests(
                retryAfter: 5, "This user has as many live streams open as the server allows; close one, or try again later.")
        }
        return LiveStreamAdmission(gate: liveStreams, user: user.id)
    }

    /// Whole seconds, at least one: what `Retry-After` says.
    static func seconds(_ wait: Double) -> Int {
        wait.isFinite ? max(1, Int(wait.rounded(.up))) : 3600
    }
}

/// A live stream's place among its user's: given back when released, however the stream ends
/// (its body written to the end, the connection gone, or an error before it began).
final class LiveStreamAdmission: Sendable {
    private let gate: ConcurrencyGate
    private let user: Int64

    init(gate: ConcurrencyGate, user: Int64) {
        self.gate = gate
        self.user = user
    }

    deinit { gate.leave(user) }
}
