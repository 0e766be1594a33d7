public import Foundation
public import Hummingbird
import HummingbirdCore
import HummingbirdTLS
public import Logging
import NIOSSL
import ServiceLifecycle

/// The sync server: an HTTP application over a storage, with its background services.
///
/// ```swift
/// let server = try SyncServer(configuration: SyncServerConfiguration(database: .defaultSQLite))
/// try await server.application().runService()   // until SIGINT or SIGTERM, then drains
/// ```
public struct SyncServer: Sendable {
    /// How the server runs.
    public let configuration: SyncServerConfiguration
    let storage: any SyncStorage
    let notifier: FeedNotifier
    let services: [any Service]
    let logger: Logger
    /// The protective limits hit, counted and logged.
    let limitEvents: LimitEvents
    /// The rate and concurrency limits.
    let guards: RequestGuards
    /// Zones' owners by name, as requests name them.
    let owners = KnownUsers()
    /// What `/metrics` reports.
    let metrics: ServerMetrics
    /// Pings the database, for readiness and to fail requests fast while it is away.
    let watch: DatabaseWatch
    /// How connections are served: HTTP/1.1 with the connection deadlines, over TLS when set.
    let httpServer: HTTPServerBuilder

    /// Opens the database (nothing is read until the application starts) and reads the TLS
    /// certificate and key, if any.
    public init(configuration: SyncServerConfiguration, logger: Logger = Logger(label: "objectgraph-sync-server")) throws {
        self.configuration = configuration

        self.logger = logger
        self.notifier = FeedNotifier(tickInterval: configuration.liveTickInterval)
        let (base, services) = try configuration.database.open(notifier: notifier, logger: logger)
        let outage = DatabaseOutage()
        self.metrics = ServerMetrics(databaseConnections: base.maximumConnections)
        self.watch = DatabaseWatch(
            storage: base, outage: outage, timeout: configuration.readinessTimeout, interval: configuration.databaseWatchInterval,
            metrics: metrics, logger: logger)
        self.services = services + [watch]
        self.storage = GuardedStorage(base: base, metrics: metrics, timeout: configuration.databaseTimeout, outage: outage)
        let events = LimitEvents(logger: logger, metrics: metrics)
        self.limitEvents = events
        self.guards = RequestGuards(configuration.rates, connections: configuration.connections, events: limitEvents)
        let connections = configuration.connections
        let http1 = HTTPServerBuilder.http1(
            configuration: .init(
                additionalChannelHandlers: [ConnectionDeadlines(limits: connections, events: events)]))
        if let files = configuration.tls {
            let tls: TLSConfiguration
            do {
                tls = TLSConfiguration.makeServerConfiguration(
                    certificateChain: try NIOSSLCertificate.fromPEMFile(files.certificateChain).map { .certificate($0) },
                    privateKey: .privateKey(try NIOSSLPrivateKey(file: files.privateKey, format: .pem)))
            } catch {
                throw SyncServerSetupError.tls(
                    "The TLS certificate or key cannot be read (\(files.certificateChain), \(files.privateKey)): \(error)")
            }
            httpServer = try .tls(http1, configuration: .init(tlsConfiguration: tls))
        } else {
            httpServer = http1
        }
    }

    /// The HTTP application: it migrates the schema before it listens, runs the database's
    /// services and the tombstone purge, and on SIGINT/SIGTERM finishes the requests in flight.
    ///
    /// - Parameter onListening: Called with the port once the server listens (the port the system
    ///   chose when the configuration's port is 0).
    public func application(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        let router = Router(context: SyncRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: AccessLogMiddleware(metrics: metrics))
        if !configuration.corsOrigins.isEmpty { router.add(middleware: CrossOriginMiddleware(origins: Set(configuration.corsOrigins))) }
        router.add(middleware: SyncErrorMiddleware())
        SyncRoutes(server: self).add(to: router)
        var application = Application(
            router: router,
            server: httpServer,
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: "objectgraph-sync",
                availableConnectionsDelegate: ConnectionCount(limit: configuration.connections.maxConnections, events: limitEvents)),
            services: services + [TombstonePurge(server: self)],
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? 0) },
            logger: logger)
        let storage = storage
        application.beforeServerStarts {
            try await storage.migrate()
        }
        return application
    }

    /// Runs `body` with the database ready (the schema created or migrated), without HTTP: what
    /// the administration commands, the benchmark and an embedding program use. Runs may nest,
    /// and may come before, during or after the application's.
    public func withDatabase<Result: Sendable>(_ body: @Sendable (SyncServer) async throws -> Result) async throws -> Result {
        try await storage.migrate()
        return try await body(self)
    }

    /// Purges the tombstones and superseded entries older than the horizon, as the server does
    /// every `purgeInterval`; returns how many entries went.
    public func purgeExpiredTombstones(now: Date = Date()) async throws -> Int {
        let horizon = now.addingTimeInterval(-configuration.tombstoneHorizon.seconds)
        return try await storage.purge(committedBefore: horizon.millisecondsSince1970)
    }
}

/// Purges what passed the tombstone horizon, every `purgeInterval`.
struct TombstonePurge: Service {
    let server: SyncServer

    func run() async throws {
        // Shutdown cancels the sleep: that is the loop's normal end, not an error to report.
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: server.configuration.purgeInterval)
                } catch {
                    return
                }
                do {
                    let count = try await withPromptCancellation { try await server.purgeExpiredTombstones() }
                    if count > 0 { server.logger.info("Purged \(count) feed entries past the tombstone horizon") }
                } catch is CancellationError {
                    return
                } catch {
                    server.logger.error("Purging the feed failed", metadata: ["error": "\(error)"])
                }
            }
        }
    }
}

extension Duration {
    var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}

/// A server that cannot be set up as configured.
public enum SyncServerSetupError: Error, Sendable, Equatable, CustomStringConvertible {
    case tls(String)

    public var description: String {
        switch self {
        case .tls(let reason): reason
        }
    }
}
