import ArgumentParser
import Foundation
import ObjectGraphSyncProtocol
import SyncServer

/// `zone members|invite|remove|delete OWNER/ZONE`: what a zone's owner does over HTTP, done by the
/// operator.
struct Zone: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manages a zone, its members and invitations, as its owner would.",
        subcommands: [Members.self, Invite.self, Remove.self, Delete.self])

    struct Members: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Lists a zone's owner and members with their roles.")

        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The zone, as OWNER/ZONE (alice/family).") var zone: ZoneArgument

        func run() async throws {
            let members = try await zone.asOwner(database) { server, owner in
                try await server.members(zone: zone.name, user: owner)
            }
            for member in members.members { print("\(member.user) \(member.role.rawValue)") }
        }
    }

    struct Invite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Invites a user into a zone, or makes a single-use code anyone can accept it with (without --user).")

        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The zone, as OWNER/ZONE (alice/family).") var zone: ZoneArgument
        @Option(help: "The invited user's name; without it, a code is printed (shown once).") var user: String?
        @Option(help: "reader or writer.") var role: String = "reader"
        @Option(help: "Days after which the invitation can no longer be accepted.") var expiresInDays: Double = 7

        func validate() throws {
            guard expiresInDays > 0 else { throw ValidationError("--expires-in-days must be more than 0.") }
            guard memberRole != nil else { throw ValidationError("--role is reader or writer.") }
        }

        /// The role asked for, when it is one a member can have.
        var memberRole: ZoneRole? { ZoneRole(rawValue: role).flatMap { $0 == .owner ? nil : $0 } }

        func run() async throws {
            let role = memberRole ?? .reader
            let expiresAt = Int64((Date().timeIntervalSince1970 + expiresInDays * 24 * 3600) * 1000)
            let invitation = try await zone.asOwner(database) { server, owner in
                try await server.invite(InvitationRequest(user: user, role: role, expiresAt: expiresAt), zone: zone.name, user: owner)
            }
            let expires = Date(timeIntervalSince1970: Double(invitation.expiresAt) / 1000).formatted(.iso8601)
            if let code = invitation.code {
                print("Invitation \(invitation.id) (\(role.rawValue), until \(expires)); its code, shown once:")
                print(code)
            } else {
                print("Invitation \(invitation.id): \(user ?? "") may join \(zone) as a \(role.rawValue) until \(expires).")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Takes a member out of a zone: from their next request on, every instance refuses them it.")

        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The zone, as OWNER/ZONE (alice/family).") var zone: ZoneArgument
        @Argument(help: "The member's user name.") var member: String

        func run() async throws {
            try await zone.asOwner(database) { server, owner in
                try await server.removeMember(member, zone: zone.name, user: owner)
            }
            print("\(member) is no longer a member of \(zone).")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Deletes a zone with its feed, members and invitations; its owner's devices find it empty.")

        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The zone, as OWNER/ZONE (alice/family).") var zone: ZoneArgument

        func run() async throws {
            try await zone.asOwner(database) { server, owner in
                try await server.deleteZone(zone.name, user: owner)
            }
            print("\(zone) is deleted.")
        }
    }
}

/// A zone named on the command line: `OWNER/ZONE`.
struct ZoneArgument: ExpressibleByArgument, CustomStringConvertible, Sendable {
    var owner: String
    var name: String

    init?(argument: String) {
        // The zone's name holds no `/`; the owner's name may.
        guard let slash = argument.lastIndex(of: "/") else { return nil }
        owner = String(argument[..<slash])
        name = String(argument[argument.index(after: slash)...])
        if owner.isEmpty || name.isEmpty { return nil }
    }

    var description: String { "\(owner)/\(name)" }

    /// Runs `body` as the zone's owner.
    func asOwner<Result: Sendable>(
        _ database: DatabaseOptions, _ body: @Sendable (SyncServer, SyncUser) async throws -> Result
    ) async throws -> Result {
        let server = try database.server()
        return try await server.withDatabase { server in
            guard let owner = try await server.user(named: owner) else { throw SyncAdminError.noSuchUser(owner) }
            return try await body(server, owner)
        }
    }
}
