public import ObjectGraphSyncFeed

/// How a sync server runs.
public struct SyncServerConfiguration: Sendable {
    /// Where the certificate chain and private key of the server's TLS are, as PEM files.
    public struct TLSFiles: Sendable, Hashable {
        /// The certificate chain's PEM file, the server's certificate first.
        public var certificateChain: String
        /// The private key's PEM file.
        public var privateKey: String

        public init(certificateChain: String, privateKey: String) {
            self.certificateChain = certificateChain
            self.privateKey = privateKey
        }
    }

    /// Where the data is.
    public var database: SyncDatabase
    /// The address to listen on.
    public var host: String
    /// The port to listen on (0: any free port).
    public var port: Int
    /// When set, the server speaks HTTPS with this certificate; nil for plain HTTP (behind a
    /// proxy that terminates TLS, or on a private network).
    public var tls: TLSFiles?
    /// Request sizes.
    public var limits: ServerLimits
    /// How long a connection may make the server wait, and how many it serves at once.
    public var connections: ConnectionLimits
    /// How much one user, or one address without a valid token, may ask of the server.
    public var rates: RateLimits
    /// How long tombstones (and superseded versions) stay in a zone's feed; a cursor older than a
    /// purged tombstone gets 410 and the client reads the zone again.
    public var tombstoneHorizon: Duration
    /// The longest a request waits for the database (a connection and its work) before it gets
    /// 503 with `Retry-After`: a backstop. A database that is away is noticed by the server's
    /// pings within a second, and requests then fail at once.
    public var databaseTimeout: Duration
    /// How long `/ready`, and the server's ping every second, wait for the database before they
    /// take it for away.
    public var readinessTimeout: Duration
    /// The proxies in front of the server (a TLS proxy, a load balancer) whose word on the client's
    /// address is taken: a request from one is counted against the address its `X-Forwarded-For`
    /// (or `Forwarded`) names, so that the limits per address fall on the client, not on the proxy
    /// every client shares. Empty: the connection's peer is the client, and the headers are ignored.
    public var trustedProxies: [AddressRange] = []
    /// What one user may keep on the server: zones and stored bytes.
    public var quotas = Quotas()
    /// How often the server pings the database to know whether it answers (requests fail at once
    /// while it does not); `/ready` answers from the last ping when it is this recent.
    public var databaseWatchInterval: Duration = .seconds(1)
    /// The origins of web apps allowed to call the API from a browser (CORS): `https://app.example.com`,
    /// or `*` for any; empty for none.
    public var corsOrigins: [String]
    /// When set, `/metrics` answers only requests bearing this token; nil leaves it open (keep it
    /// behind your proxy then).
    public var metricsToken: String?
    /// How often the server purges what passed the horizon.
    public var purgeInterval: Duration
    /// How often a live request checks its zone's head even without a notification, sends a
    /// keep-alive comment, and checks that its token is still valid.
    public var liveTickInterval: Duration
    /// How long a live stream lasts before the server ends it (the client reconnects with its
    /// cursor and loses nothing): streams move to other instances, and end for good once their
    /// token is revoked.
    public var liveStreamLifetime: Duration

    public init(
        database: SyncDatabase = .defaultSQLite, host: String = "127.0.0.1", port: Int = 8080, tls: TLSFiles? = nil,
        limits: ServerLimits = ServerLimits(), connections: ConnectionLimits = ConnectionLimits(),
        rates: RateLimits = RateLimits(), tombstoneHorizon: Duration = .seconds(30 * 24 * 3600),
        purgeInterval: Duration = .seconds(3600), liveTickInterval: Duration = .seconds(15),
        liveStreamLifetime: Duration = .seconds(600), databaseTimeout: Duration = .seconds(30),
        readinessTimeout: Duration = .seconds(2), metricsToken: String? = nil, corsOrigins: [String] = []
    ) {
        self.database = database
        self.host = host
        self.port = port
        self.tls = tls
        self.limits = limits
        self.connections = connections
        self.rates = rates
        self.tombstoneHorizon = tombstoneHorizon
        self.purgeInterval = purgeInterval
        self.liveTickInterval = liveTickInterval
        self.liveStreamLifetime = liveStreamLifetime
        self.databaseTimeout = databaseTimeout
        self.readinessTimeout = readinessTimeout
        self.metricsToken = metricsToken
        self.corsOrigins = corsOrigins
    }
}
