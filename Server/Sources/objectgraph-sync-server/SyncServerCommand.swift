import ArgumentParser
import Foundation
import Hummingbird
import Logging
import SyncServer

/// `objectgraph-sync-server`: runs the sync server, or manages its users.
@main
struct SyncServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "objectgraph-sync-server",
        abstract: "The ObjectGraph sync server: a change feed per user zone, on SQLite or PostgreSQL.",
        subcommands: [Serve.self, User.self, Token.self, Zone.self],
        defaultSubcommand: Serve.self)
}

/// The options every subcommand shares: where the data is.
///
/// A password on the command line is visible to every user of the machine (`ps`): the database
/// URL can come from `OBJECTGRAPH_SYNC_DATABASE`, and a PostgreSQL password from
/// `OBJECTGRAPH_SYNC_DATABASE_PASSWORD` or a file.
struct DatabaseOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "A SQLite file's path, or a postgres://user@host:port/database URL.",
            discussion: "Default: $OBJECTGRAPH_SYNC_DATABASE, else objectgraph-sync.sqlite."))
    var database: String?
    @Option(
        help: ArgumentHelp(
            "A file holding the PostgreSQL password (its first line).",
            discussion: "Or $OBJECTGRAPH_SYNC_DATABASE_PASSWORD. Either keeps the password out of the process list."))
    var databasePasswordFile: String?

    func parsed(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> SyncDatabase {
        let text = database ?? environment["OBJECTGRAPH_SYNC_DATABASE"] ?? "objectgraph-sync.sqlite"
        var parsed: SyncDatabase
        do {
            parsed = try SyncDatabase(parsing: text)
        } catch {
            throw ValidationError("\(error)")
        }
        guard case .postgres(var url) = parsed else {
            if databasePasswordFile != nil { throw ValidationError("--database-password-file is for a PostgreSQL database.") }
            return parsed
        }
        if let file = databasePasswordFile {
            guard let contents = FileManager.default.contents(atPath: file), let text = String(data: contents, encoding: .utf8)
            else { throw ValidationError("--database-password-file \(file) cannot be read.") }
            url.password = String(text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        } else if let password = environment["OBJECTGRAPH_SYNC_DATABASE_PASSWORD"] {
            url.password = password
        } else if url.password != nil, database != nil {
            FileHandle.standardError.write(
                Data(
                    ("Warning: the database password is on the command line, where any user of this machine can read it; "
                        + "use OBJECTGRAPH_SYNC_DATABASE, OBJECTGRAPH_SYNC_DATABASE_PASSWORD or --database-password-file.\n").utf8))
        }
        parsed = .postgres(url)
        return parsed
    }

    /// A server on the database, for the administration commands (no HTTP).
    /// The server an administration command works through. Its log says only warnings and
    /// errors: what a command prints is its result (a token, a list), which a script reads, and
    /// the database driver's informational lines (a connection closed as the command ends) would
    /// be mixed into it.
    func server() throws -> SyncServer {
        var logger = Logger(label: "objectgraph-sync-server")
        logger.logLevel = .warning
        return try SyncServer(configuration: SyncServerConfiguration(database: try parsed()), logger: logger)
    }
}
