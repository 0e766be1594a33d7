/// How much one user, or one address without a valid token, may ask of the server: beyond it the
/// server answers 429 with `Retry-After`, before doing the work.
public struct RateLimits: Sendable, Hashable {
    /// A rate with a burst: `perSecond` on average, `burst` at once.
    public struct Rate: Sendable, Hashable {
        /// The requests (or units) per second on average.
        public var perSecond: Double
        /// The requests (or units) allowed at once above the average.
        public var burst: Int

        public init(perSecond: Double, burst: Int) {
            self.perSecond = perSecond
            self.burst = burst
        }
    }

    /// The requests of one user (every route under `/v1`); nil for no limit. A device's first
    /// sync of a large zone reads a page per request, well within the default burst.
    public var userRequests: Rate?
    /// The pushes of one user the server takes at once (their bodies read, waiting for their
    /// turn); a further one gets 429 before its body is read.
    public var concurrentPushesPerUser: Int
    /// The pushes of one user the server applies at once; the others wait their turn (not
    /// refused). With one, a user's pushes never stand in line before another user's more than
    /// one at a time, however many that user sends: a large push is written in steps, and
    /// another user's push goes between two of them.
    public var pushesAppliedAtOncePerUser: Int
    /// What one user's pushes may cost: one unit per mutation and one per KiB of body, `perSecond`
    /// on average and `burst` at once (a device's first upload of a large store fits in the
    /// default burst). A push is admitted while the user has a unit left and then charged its
    /// whole cost, so that one large push may leave the user in debt; pushes while in debt get
    /// 429 with `Retry-After`, before their body is read. Nil for no budget.
    public var pushCost: Rate?
    /// The live streams one user may hold open at once (a device holds one per zone it syncs); a
    /// further one gets 429, so that no user holds every connection of the server.
    public var liveStreamsPerUser: Int
    /// The live streams one token (one device, usually) may hold open at once, within its user's.
    public var liveStreamsPerToken: Int
    /// The requests one address may make with a token that is not valid; beyond it the address's
    /// wrong tokens get 429 instead of 401. A valid token is never refused by it (it is looked up
    /// first), so clients sharing a proxy's address do not lock each other out. Nil for no limit.
    public var failedAuthenticationsPerAddress: Rate?

    public init(
        userRequests: Rate? = Rate(perSecond: 200, burst: 400), concurrentPushesPerUser: Int = 8,
        pushesAppliedAtOncePerUser: Int = 1, pushCost: Rate? = Rate(perSecond: 20_000, burst: 250_000),
        liveStreamsPerUser: Int = 32, liveStreamsPerToken: Int = 16, failedAuthenticationsPerAddress: Rate? = Rate(perSecond: 5, burst: 50)
    ) {
        self.userRequests = userRequests
        self.concurrentPushesPerUser = max(1, concurrentPushesPerUser)
        self.pushesAppliedAtOncePerUser = max(1, pushesAppliedAtOncePerUser)
        self.pushCost = pushCost
        self.liveStreamsPerUser = max(1, liveStreamsPerUser)
        self.liveStreamsPerToken = max(1, liveStreamsPerToken)
        self.failedAuthenticationsPerAddress = failedAuthenticationsPerAddress
    }
}
