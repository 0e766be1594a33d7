import ArgumentParser
import Foundation
import SyncServer

struct User: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manages users.", subcommands: [Add.self, List.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Adds a user and prints their bearer token (shown once; only its digest is stored).")

        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The user's name.") var name: String
        @OptionGroup var expiry: ExpiryOptions

        func run() async throws {
            let server = try database.server()
            print(try await server.addUser(named: name, tokenExpiresAt: expiry.date))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Lists the users, what they use (zones, stored bytes) and their tokens: IDs and dates, never a token's secret.")

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let server = try database.server()
            let users = try await server.users()
            if users.isEmpty { print("No users yet: objectgraph-sync-server user add NAME") }
            let now = Date()
            for record in users {
                print("\(record.user.name) (user \(record.user.id), added \(Self.format(record.created)))")
                let zones = record.zones == 1 ? "1 zone" : "\(record.zones) zones"
                print("  uses \(zones), \(record.storedBytes.formatted(.byteCount(style: .file))) (\(record.storedBytes) bytes)")
                if record.tokens.isEmpty { print("  no token") }
                for token in record.tokens {
                    let state =
                        if let revoked = token.revoked { "revoked \(Self.format(revoked))" } else if let expires = token.expires {
                            token.isValid(at: now) ? "expires \(Self.format(expires))" : "expired \(Self.format(expires))"
                        } else { "valid, does not expire" }
                    print("  token \(token.id): created \(Self.format(token.created)), \(state)")
                }
            }
        }

        static func format(_ date: Date) -> String {
            date.formatted(.iso8601)  // 2026-11-26T16:01:57Z
        }
    }
}

struct Token: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manages tokens.", subcommands: [Create.self, Revoke.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Creates another bearer token for a user and prints it (shown once).")

        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The user's name.") var name: String
        @OptionGroup var expiry: ExpiryOptions

        func run() async throws {
            let server = try database.server()
            print(try await server.createToken(forUser: name, expiresAt: expiry.date))
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revokes a token by the ID `user list` shows: every server instance refuses it from its next request.")

        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The token's ID.") var id: Int64

        func run() async throws {
            let server = try database.server()
            try await server.revokeToken(id: id)
            print("Token \(id) is revoked.")
        }
    }
}

/// When a new token expires.
struct ExpiryOptions: ParsableArguments {
    @Option(help: "Days after which the token stops letting its user in (default: never).")
    var expiresInDays: Double?

    var date: Date? { expiresInDays.map { Date().addingTimeInterval($0 * 24 * 3600) } }

    func validate() throws {
        if let expiresInDays, !(expiresInDays > 0) { throw ValidationError("--expires-in-days must be more than 0.") }
    }
}
