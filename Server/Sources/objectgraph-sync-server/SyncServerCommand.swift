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
