/// The rate and concurrency limits of one server, applied by its middleware and routes (see
/// ``RateLimits``). Each refusal is a 429 with `Retry-After`, counted in ``LimitEvents``.
struct RequestGuards: Sendable {
    let userRequests: TokenBuckets<Int64>?
    let failedAuthentications: TokenBuckets<String>?
    let pushes: PushGate
    let events: LimitEvents

    init(_ limits: RateLimits, events: LimitEvents) {
        userRequests = limits.userRequests.map { TokenBuckets(rate: $0) }
        failedAuthentications = limits.failedAuthenticationsPerAddress.map { TokenBuckets(rate: $0) }
        pushes = PushGate(limit: limits.concurrentPushesPerUser)
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

    /// Whole seconds, at least one: what `Retry-After` says.
    static func seconds(_ wait: Double) -> Int {
        wait.isFinite ? max(1, Int(wait.rounded(.up))) : 3600
    }
}
