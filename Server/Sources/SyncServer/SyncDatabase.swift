import Foundation
import Logging
import NIOSSL
public import PostgresNIO
import ServiceLifecycle

/// Where the server keeps its data: a SQLite file (the default) or a PostgreSQL database.
public enum SyncDatabase: Sendable, Equatable, CustomStringConvertible {
    /// A SQLite file, created when missing.
    case sqlite(path: String)
    /// A PostgreSQL database; several server instances may share it.
    case postgres(PostgresURL)

    /// The default: `objectgraph-sync.sqlite` in the working directory.
    public static let defaultSQLite = SyncDatabase.sqlite(path: "objectgraph-sync.sqlite")

    /// Reads `--database`: a `postgres://` or `postgresql://` URL, or else a SQLite file's path.
    public init(parsing text: String) throws {
        if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            self = .postgres(try PostgresURL(parsing: text))
        } else {
            guard !text.isEmpty else { throw SyncDatabaseError.invalid("an empty path") }
            self = .sqlite(path: text)
        }
    }

    public var description: String {
        switch self {
        case .sqlite(let path): "SQLite at \(path)"
        case .postgres(let url): "PostgreSQL \(url)"
        }
    }

    /// Opens the storage; `services` run while the server serves (PostgreSQL's listener for
    /// other instances' pushes).
    func open(notifier: FeedNotifier, logger: Logger) throws -> (storage: any SyncStorage, services: [any Service]) {
        switch self {
        case .sqlite(let path):
            return (try SQLiteSyncStorage(path: path, notifier: notifier), [])
        case .postgres(let url):
            let storage = PostgresSyncStorage(
                configuration: url.clientConfiguration, probe: try url.connectionConfiguration(), logger: logger)
            return (storage, [PostgresFeedListener(storage: storage, notifier: notifier, logger: logger)])
        }
    }
}

/// The parts of a `postgres://user:password@host:port/database` URL.
public struct PostgresURL: Sendable, Equatable, CustomStringConvertible {
    /// The server's host name or address.
    public var host: String
    /// The server's port (5432 when the URL names none).
    public var port: Int
    /// The user to log in as (`postgres` when the URL names none).
    public var user: String
    /// The password, if any: from the URL, or set from the environment or a file by the command.
    public var password: String?
    /// The database; nil for the user's default.
    public var database: String?
    /// `?sslmode=disable` (the default here) or `require`.
    public var requireTLS: Bool

    public init(parsing text: String) throws {
        guard let components = URLComponents(string: text), let host = components.host, !host.isEmpty else {
            throw SyncDatabaseError.invalid("\(text) (expected postgres://user:password@host:port/database)")
        }
        self.host = host
        self.port = components.port ?? 5432
        self.user = components.user ?? "postgres"
        self.password = components.password
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        self.database = path.isEmpty ? nil : path
        switch components.queryItems?.first(where: { $0.name == "sslmode" })?.value {
        case nil, "disable": requireTLS = false
        case "require": requireTLS = true
        case let mode?: throw SyncDatabaseError.invalid("sslmode=\(mode) (use disable or require)")
        }
    }

    /// The URL without its password, for logs.
    public var description: String {
        "postgres://\(user)@\(host):\(port)/\(database ?? "")"
    }

    /// One connection's configuration, as the client's.
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password, database: database,
            tls: requireTLS ? .require(try NIOSSLContext(configuration: .makeClientConfiguration())) : .disable)
    }

    /// The PostgresNIO client configuration the URL describes (at most 40 connections).
    public var clientConfiguration: PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: user, password: password, database: database,
            tls: requireTLS ? .require(.makeClientConfiguration()) : .disable)
        configuration.options.maximumConnections = 40
        return configuration
    }
}

/// A `--database` value that cannot be used.
public enum SyncDatabaseError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalid(String)
    /// The database answered, and refused the login (a wrong password, an unknown database).
    case refused(String)
    /// The database does not answer.
    case unreachable(String)

    public var description: String {
        switch self {
        case .invalid(let what): "Not a database: \(what)."
        case .refused(let what), .unreachable(let what): what
        }
    }
}
