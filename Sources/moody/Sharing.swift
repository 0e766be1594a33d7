import ArgumentParser
import Foundation
import MoodyModel
import ObjectGraph
import ObjectGraphSync
import ObjectGraphSyncProtocol

/// `moody share`, `moody invitations`, `moody members`: a country and its moods shared with other
/// users of the sync server.
///
/// ```sh
/// moody share France --with bob --role writer --store alice.sqlite --token $ALICE
/// moody invitations --accept 1 --store bob.sqlite --token $BOB
/// moody members --store alice.sqlite --token $ALICE
/// moody members --of alice/moods.… --leave --store bob.sqlite --token $BOB
/// ```
struct Share: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Share a country and its moods: they move into a zone of their own, and a user is invited to it.",
        discussion: """
            The country and its moods leave the store's own zone for a new one on the server; \
            with --with, the user is invited (they accept with moody invitations --accept); \
            with --code, anyone holding the printed code may accept once.
            """)
    @OptionGroup var store: StoreOption
    @OptionGroup var server: SyncServerOptions
    @Argument(help: "The country's name.") var country: String
    @Option(help: "The user to invite.") var with: String?
    @Option(help: "reader or writer.") var role = "writer"
    @Flag(help: "Make a single-use code instead of inviting a user by name.") var code = false

    func run() async throws {
        guard let role = ZoneRole(rawValue: role), role != .owner else { throw ValidationError("--role is reader or writer.") }
        let container = try store.open()
        let sync = try server.coordinator(for: container)
        let name = country
        let context = container.newBackgroundContext()
        guard let found = try context.fetch(FetchDescriptor<Country>(predicate: #Predicate { $0.name == name })).first else {
            throw ValidationError("There is no country named \(country) in \(store.store).")
        }
        let moods = found.moods.count
        let zone = try await sync.share(found.objectID)
        print("\(country) and its \(moods) mood(s) are in the zone \(zone).")
        guard with != nil || code else { return }
        let invitation = try await sync.invite(code ? nil : with, as: role, to: zone)
        if let code = invitation.code {
            print("Invitation \(invitation.id) as \(role.rawValue), by code: \(code)")
        } else {
            print("Invited \(invitation.user ?? "") as \(role.rawValue): invitation \(invitation.id).")
        }
    }
}

struct Invitations: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the invitations waiting for this user, or accept one (and sync its zone).")
    @OptionGroup var store: StoreOption
    @OptionGroup var server: SyncServerOptions
    @Option(help: "The number of an invitation to accept.") var accept: Int64?
    @Option(help: "A code to accept.") var code: String?

    func run() async throws {
        let container = try store.open()
        let sync = try server.coordinator(for: container)
        if accept != nil || code != nil {
            let zone = try await sync.accept(InvitationAcceptance(id: accept, code: code))
            let moods = try container.newBackgroundContext().fetchCount(FetchDescriptor<Mood>())
            print("Joined \(zone) as \(await sync.role(in: zone)?.rawValue ?? "?"); the store holds \(moods) mood(s).")
            return
        }
        let waiting = try await sync.invitations()
        for invitation in waiting {
            print("\(invitation.id)  \(invitation.owner)/\(invitation.zone)  as \(invitation.role.rawValue)")
        }
        if waiting.isEmpty { print("No invitation waits.") }
    }
}

struct Members: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the members of each shared zone; as an owner, change a role or remove a member.")
    @OptionGroup var store: StoreOption
    @OptionGroup var server: SyncServerOptions
    @Option(name: .customLong("of"), help: "The zone (OWNER/NAME for another user's); every shared zone by default.") var zone: String?
    @Option(help: "USER=ROLE: give a member another role.") var set: String?
    @Option(help: "A member to take out of the zone.") var remove: String?
    @Flag(help: "Leave the zone (shared with this user).") var leave = false

    func run() async throws {
        let named = try zone.map { text in
            guard let zone = ZoneID(parsing: text) else { throw ValidationError("\(text) is not a zone: NAME or OWNER/NAME.") }
            return zone
        }
        let container = try store.open()
        let sync = try server.coordinator(for: container)
        try await sync.syncNow()
        if let set {
            let parts = set.split(separator: "=", maxSplits: 1).map(String.init)
            guard let named, parts.count == 2, let role = ZoneRole(rawValue: parts[1]) else {
                throw ValidationError("--set takes USER=reader or USER=writer, with --of ZONE.")
            }
            try await sync.setRole(role, of: parts[0], in: named)
        }
        if let remove {
            guard let named else { throw ValidationError("--remove needs --of ZONE.") }
            try await sync.removeMember(remove, from: named)
        }
        if leave {
            guard let named else { throw ValidationError("--leave needs --of ZONE.") }
            try await sync.leave(named)
            print("Left \(named).")
            return
        }
        let zones = await sync.zones
        let shown = named.map { [$0] } ?? zones.keys.filter { $0 != sync.zone }.sorted()
        for zone in shown {
            let members = try await sync.members(of: zone)
            print(
                "\(zone) (you: \(zones[zone]?.rawValue ?? "not a member")): "
                    + members.map { "\($0.user) \($0.role.rawValue)" }.joined(separator: ", "))
        }
        if shown.isEmpty { print("No shared zone: moody share COUNTRY --with USER") }
    }
}
