import ArgumentParser
import Foundation
import Hummingbird
import Logging
import ObjectGraphSyncFeed
import SyncServer

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Runs the server until SIGINT or SIGTERM.")

    @OptionGroup var database: DatabaseOptions
    @Option(help: "The address to listen on.") var host = "127.0.0.1"
    @Option(help: "The port to listen on.") var port = 8080
    @Option(help: "Days a tombstone stays in the feed; older cursors must read their zone again.")
    var tombstoneHorizonDays = 30
    @Option(help: "The log level (trace, debug, info, notice, warning, error, critical).")
    var logLevel: String = "info"
    @OptionGroup(title: "Request sizes") var sizes: SizeOptions
    @OptionGroup(title: "Connections") var connections: ConnectionOptions
    @OptionGroup(title: "Rates") var rates: RateOptions
    @OptionGroup(title: "Live streams") var live: LiveOptions
    @OptionGroup(title: "Quotas") var quotas: QuotaOptions
    @OptionGroup(title: "Operations") var operations: OperationOptions

    func run() async throws {
        var logger = Logger(label: "objectgraph-sync-server")
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("--log-level \(logLevel) is not a log level.")
        }
        logger.logLevel = level
        var configuration = SyncServerConfiguration(
            database: try database.parsed(), host: host, port: port, tls: operations.tlsFiles, limits: sizes.limits,
            connections: connections.limits, rates: rates.limits,
            tombstoneHorizon: .seconds(tombstoneHorizonDays * 24 * 3600),
            liveTickInterval: .seconds(live.tickInterval), liveStreamLifetime: .seconds(live.lifetime),
            databaseTimeout: .seconds(operations.databaseTimeout), readinessTimeout: .seconds(operations.readinessTimeout),
            metricsToken: try operations.metricsToken(), corsOrigins: operations.corsOrigins)
        configuration.trustedProxies = try operations.trustedProxies()
        configuration.quotas = quotas.quotas
        let server = try SyncServer(configuration: configuration, logger: logger)
        logger.info("Serving \(configuration.database) on \(configuration.tls == nil ? "http" : "https")://\(host):\(port)")
        try await server.application().runService()
    }
}

struct SizeOptions: ParsableArguments {
    @Option(help: "The largest request body, in bytes.") var maxBodyBytes = ServerLimits().maxBodyBytes
    @Option(help: "The most mutations in one push.") var maxMutationsPerPush = ServerLimits().maxMutationsPerPush
    @Option(help: "The largest record, its fields as JSON, in bytes.") var maxRecordBytes = ServerLimits().maxRecordBytes
    @Option(help: "The most changes in one page of the feed.") var maxPageSize = ServerLimits().maxPageSize
    @Option(help: "The most bytes of records in one page of the feed (a larger push is served alone).")
    var maxPageBytes = ServerLimits().maxPageBytes

    var limits: ServerLimits {
        ServerLimits(
            maxBodyBytes: maxBodyBytes, maxMutationsPerPush: maxMutationsPerPush, maxRecordBytes: maxRecordBytes,
            maxPageSize: maxPageSize, maxPageBytes: maxPageBytes)
    }

    func validate() throws {
        for (name, value) in [
            ("max-body-bytes", maxBodyBytes), ("max-mutations-per-push", maxMutationsPerPush),
            ("max-record-bytes", maxRecordBytes), ("max-page-size", maxPageSize), ("max-page-bytes", maxPageBytes)
        ] where value < 1 {
            throw ValidationError("--\(name) must be 1 or more.")
        }
    }
}

struct ConnectionOptions: ParsableArguments {
    @Option(help: "Seconds a connection may send nothing (after opening, between requests).")
    var idleTimeout: Double = 60
    @Option(help: "Seconds a request's headers may take from their first byte.") var requestHeaderTimeout: Double = 10
    @Option(help: "Seconds a request's body may take from its headers.") var requestBodyTimeout: Double = 60
    @Option(help: "The most connections served at once (default: what the process may open, less 256).")
    var maxConnections: Int?
    @Option(help: "Connections live streams never take, kept for other requests (default: a quarter of --max-connections).")
    var reservedConnections: Int?

    var limits: ConnectionLimits {
        ConnectionLimits(
            idleTimeout: .seconds(idleTimeout), requestHeaderTimeout: .seconds(requestHeaderTimeout),
            requestBodyTimeout: .seconds(requestBodyTimeout), maxConnections: maxConnections,
            reservedConnections: reservedConnections)
    }

    func validate() throws {
        for (name, value) in [
            ("idle-timeout", idleTimeout), ("request-header-timeout", requestHeaderTimeout),
            ("request-body-timeout", requestBodyTimeout)
        ] where !(value > 0) {
            throw ValidationError("--\(name) must be more than 0 seconds.")
        }
        if let maxConnections, maxConnections < 1 { throw ValidationError("--max-connections must be 1 or more.") }
        if let reservedConnections {
            let maxConnections = maxConnections ?? ConnectionLimits.defaultMaxConnections
            guard reservedConnections >= 0, reservedConnections < maxConnections else {
                throw ValidationError("--reserved-connections must be 0 or more and less than --max-connections (\(maxConnections)).")
            }
        }
    }
}

struct RateOptions: ParsableArguments {
    @Option(help: "Requests a user may make per second on average (0: no limit).") var userRate: Double = 200
    @Option(help: "Requests a user may make at once above the average.") var userBurst = 400
    @Option(help: "Pushes of one user taken at once (more get 429).") var concurrentPushesPerUser = 8
    @Option(help: "Pushes of one user applied at once (the others wait their turn).") var pushesAppliedAtOncePerUser = 1
    @Option(help: "Push units (one per mutation, one per KiB of body) a user may spend per second on average (0: no budget).")
    var pushBudgetRate: Double = 20_000
    @Option(help: "Push units a user may spend at once above the average.") var pushBudgetBurst = 250_000
    @Option(help: "Live streams one user may hold open at once.") var liveStreamsPerUser = 32
    @Option(help: "Live streams one token may hold open at once.") var liveStreamsPerToken = 16
    @Option(help: "Requests per second an address may make with tokens that fail (0: no limit).")
    var failedAuthenticationRate: Double = 5
    @Option(help: "Such requests an address may make at once above the average.") var failedAuthenticationBurst = 50

    var limits: RateLimits {
        RateLimits(
            userRequests: userRate > 0 ? .init(perSecond: userRate, burst: userBurst) : nil,
            concurrentPushesPerUser: concurrentPushesPerUser, pushesAppliedAtOncePerUser: pushesAppliedAtOncePerUser,
            pushCost: pushBudgetRate > 0 ? .init(perSecond: pushBudgetRate, burst: pushBudgetBurst) : nil,
            liveStreamsPerUser: liveStreamsPerUser,
            liveStreamsPerToken: liveStreamsPerToken,
            failedAuthenticationsPerAddress: failedAuthenticationRate > 0
                ? .init(perSecond: failedAuthenticationRate, burst: failedAuthenticationBurst) : nil)
    }

    func validate() throws {
        if userRate < 0 || failedAuthenticationRate < 0 || pushBudgetRate < 0 { throw ValidationError("Rates are 0 or more per second.") }
        if userBurst < 1 || failedAuthenticationBurst < 1 || pushBudgetBurst < 1 { throw ValidationError("Bursts are 1 or more.") }
        if pushesAppliedAtOncePerUser < 1 { throw ValidationError("--pushes-applied-at-once-per-user must be 1 or more.") }
        if concurrentPushesPerUser < 1 { throw ValidationError("--concurrent-pushes-per-user must be 1 or more.") }
        if liveStreamsPerUser < 1 { throw ValidationError("--live-streams-per-user must be 1 or more.") }
        if liveStreamsPerToken < 1 { throw ValidationError("--live-streams-per-token must be 1 or more.") }
    }
}

struct QuotaOptions: ParsableArguments {
    @Option(help: "Zones one user may have (0: no quota).") var maxZonesPerUser = Quotas().zonesPerUser ?? 0
    @Option(help: "Bytes one user's zones may hold: fields as stored, 64 per entry for the rest (0: no quota).")
    var maxStoredBytesPerUser = Quotas().storedBytesPerUser ?? 0

    var quotas: Quotas {
        Quotas(
            zonesPerUser: maxZonesPerUser > 0 ? maxZonesPerUser : nil,
            storedBytesPerUser: maxStoredBytesPerUser > 0 ? maxStoredBytesPerUser : nil)
    }

    func validate() throws {
        if maxZonesPerUser < 0 || maxStoredBytesPerUser < 0 { throw ValidationError("Quotas are 0 (none) or more.") }
    }
}

struct LiveOptions: ParsableArguments {
    @Option(
        name: .customLong("live-stream-lifetime"), help: "Seconds a live stream lasts before the server ends it (the client reconnects).")
    var lifetime: Double = 600
    @Option(name: .customLong("live-tick-interval"), help: "Seconds between a live stream's keep-alive comments and token checks.")
    var tickInterval: Double = 15

    func validate() throws {
        if !(lifetime > 0) || !(tickInterval > 0) { throw ValidationError("Live stream durations must be more than 0 seconds.") }
    }
}

struct OperationOptions: ParsableArguments {
    @Option(help: "A PEM file of the server's TLS certificate chain: the server speaks HTTPS (with --tls-key).")
    var tlsCertificate: String?
    @Option(help: "A PEM file of the TLS certificate's private key.") var tlsKey: String?
    @Option(
        help: ArgumentHelp(
            "An origin whose web apps may call the API from a browser (CORS), or * for any; repeat for several.",
            valueName: "origin"))
    var corsOrigin: [String] = []
    @Option(
        help: ArgumentHelp(
            "A file holding the token /metrics asks for (its first line).",
            discussion: "Or $OBJECTGRAPH_SYNC_METRICS_TOKEN. Without either, /metrics is open: keep it behind your proxy."))
    var metricsTokenFile: String?
    @Option(help: "Seconds a request waits for the database before it gets 503.") var databaseTimeout: Double = 5
    @Option(help: "Seconds /ready waits for the database before it answers 503.") var readinessTimeout: Double = 2

    var tlsFiles: SyncServerConfiguration.TLSFiles? {
        tlsCertificate.map { SyncServerConfiguration.TLSFiles(certificateChain: $0, privateKey: tlsKey ?? "") }
    }

    var corsOrigins: [String] { corsOrigin }

    @Option(
        help: ArgumentHelp(
            "A proxy in front of the server (CIDR: 10.0.0.0/8, or one address), repeatable: requests from it are counted against the client its X-Forwarded-For or Forwarded names.",
            valueName: "cidr"))
    var trustedProxy: [String] = []

    /// The `--trusted-proxy` ranges, parsed.
    func trustedProxies() throws -> [AddressRange] {
        try trustedProxy.map { text in
            guard let range = AddressRange(text) else {
                throw ValidationError("--trusted-proxy \(text) is not an address range (10.0.0.0/8, 2001:db8::/32, 192.0.2.1).")
            }
            return range
        }
    }

    func metricsToken(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String? {
        if let file = metricsTokenFile {
            guard let contents = FileManager.default.contents(atPath: file), let text = String(data: contents, encoding: .utf8),
                let token = text.split(separator: "\n").first, !token.isEmpty
            else { throw ValidationError("--metrics-token-file \(file) holds no token.") }
            return String(token)
        }
        return environment["OBJECTGRAPH_SYNC_METRICS_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
    }

    func validate() throws {
        if (tlsCertificate == nil) != (tlsKey == nil) { throw ValidationError("--tls-certificate and --tls-key go together.") }
        for origin in corsOrigin where origin != "*" && !(origin.hasPrefix("https://") || origin.hasPrefix("http://")) {
            throw ValidationError("--cors-origin \(origin) is not an origin (https://host[:port], or *).")
        }
        if !(databaseTimeout > 0) || !(readinessTimeout > 0) { throw ValidationError("Timeouts are more than 0 seconds.") }
    }
}
