import ArgumentParser
import Hummingbird
import Logging
import SyncServer

/// `objectgraph-sync-server`: runs the sync server, or manages its users.
@main
struct SyncServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "objectgraph-sync-server",
        abstract: "The ObjectGraph sync server: a change feed per user zone, on SQLite or PostgreSQL.",
        subcommands: [Serve.self, User.self, Token.self],
        defaultSubcommand: Serve.self)
}

/// The options every subcommand shares.
struct DatabaseOptions: ParsableArguments {
    @Option(help: "A SQLite file's path, or a postgres://user:password@host:port/database URL.")
    var database: String = "objectgraph-sync.sqlite"

    func parsed() throws -> SyncDatabase {
        do {
            return try SyncDatabase(parsing: database)
        } catch {
            throw ValidationError("\(error)")
        }
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Runs the server until SIGINT or SIGTERM.")

    @OptionGroup var database: DatabaseOptions
    @Option(help: "The address to listen on.") var host = "127.0.0.1"
    @Option(help: "The port to listen on.") var port = 8080
    @Option(help: "Days a tombstone stays in the feed; older cursors must read their zone again.")
    var tombstoneHorizonDays = 30
    @Option(help: "The log level (trace, debug, info, notice, warning, error, critical).")
    var logLevel: String = "info"

    func run() async throws {
        var logger = Logger(label: "objectgraph-sync-server")
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("--log-level \(logLevel) is not a log level.")
        }
        logger.logLevel = level
        let configuration = SyncServerConfiguration(
            database: try database.parsed(), host: host, port: port,
            tombstoneHorizon: .seconds(tombstoneHorizonDays * 24 * 3600))
        let server = try SyncServer(configuration: configuration, logger: logger)
        logger.info("Serving \(configuration.database) on http://\(host):\(port)")
        try await server.application().runService()
    }
}

struct User: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manages users.", subcommands: [Add.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Adds a user and prints their bearer token (shown once; only its digest is stored).")

        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The user's name.") var name: String

        func run() async throws {
            let server = try SyncServer(configuration: SyncServerConfiguration(database: try database.parsed()))
            print(try await server.addUser(named: name))
        }
    }
}

struct Token: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manages tokens.", subcommands: [Create.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Creates another bearer token for a user and prints it.")

        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The user's name.") var name: String

        func run() async throws {
            let server = try SyncServer(configuration: SyncServerConfiguration(database: try database.parsed()))
            print(try await server.createToken(forUser: name))
        }
    }
}
