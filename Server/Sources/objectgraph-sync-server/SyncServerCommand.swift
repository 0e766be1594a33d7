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
