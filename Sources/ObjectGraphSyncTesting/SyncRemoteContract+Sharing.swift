import Foundation
import ObjectGraphSync
import ObjectGraphSyncProtocol

extension SyncRemoteContract {
    /// Members, roles and invitations: what a zone shared between users does.
    static let sharingChecks: [Check] = [
        Check("The zone list names the caller, their own zones first, then those shared with them with their role") { server in
            let (owner, ownerName) = try await named(server.newUser())
            let (member, memberName) = try await named(server.newUser())
            _ = try await applied(owner.push(push(UUID(), [upsert(1, a, [:])]), zone: zone))
            _ = try await applied(member.push(push(UUID(), [upsert(1, b, [:])]), zone: "mine"))
            try await join(member, memberName, zone, of: owner, as: .reader)
            let list = try await member.zones()
            try expect(list.user == memberName, "the list names \(String(describing: list.user)), not \(memberName)")
            let expected = [
                ZoneMembership(owner: memberName, zone: "mine", role: .owner),
                ZoneMembership(owner: ownerName, zone: zone.name, role: .reader)
            ]
            try expect(list.zones == expected, "the member's zones are \(list.zones), not \(expected)")
        },
        Check("A writer reads and pushes to a zone shared with them, and the feed names each change's author") { server in
            let (owner, ownerName) = try await named(server.newUser())
            let (writer, writerName) = try await named(server.newUser())
            _ = try await applied(owner.push(push(UUID(), [upsert(1, a, [:])]), zone: zone))
            try await join(writer, writerName, zone, of: owner, as: .writer)
            let shared = ZoneID(zone.name, owner: ownerName)
            _ = try await applied(writer.push(push(UUID(), [upsert(1, b, ["text": .string("by the writer")])]), zone: shared))
            let seenByOwner = try await allChanges(owner).changes
            let seenByWriter = try await allChanges(writer, in: shared).changes
            try expect(seenByOwner == seenByWriter, "the owner and the writer read different feeds")
            try expect(
                seenByOwner.map(\.author) == [ownerName, writerName], "the changes name \(seenByOwner.map(\.author)) as their authors")
            let members = try await writer.members(of: shared).members
            try expect(
                members == [ZoneMember(user: ownerName, role: .owner), ZoneMember(user: writerName, role: .writer)],
                "the zone's members are \(members)")
        },
        Check("A reader reads a shared zone and its push is refused as forbidden, writing nothing") { server in
            let (owner, ownerName) = try await named(server.newUser())
            let (reader, readerName) = try await named(server.newUser())
            _ = try await applied(owner.push(push(UUID(), [upsert(1, a, [:])]), zone: zone))
            try await join(reader, readerName, zone, of: owner, as: .reader)
            let shared = ZoneID(zone.name, owner: ownerName)
            try expect(try await allChanges(reader, in: shared).changes.count == 1, "the reader does not read the zone")
            try await expectRefusal(.forbidden) { _ = try await reader.push(push(UUID(), [upsert(1, b, [:])]), zone: shared) }
            try expect(try await allChanges(owner).changes.count == 1, "a refused push wrote to the feed")
        },
        Check("A zone is not found by a user who does not belong to it, whether it exists or not, and is not made by their push") {
            server in
            let (owner, ownerName) = try await named(server.newUser())
            let stranger = try await server.newUser()
            _ = try await applied(owner.push(push(UUID(), [upsert(1, a, [:])]), zone: zone))
            for guessed in [ZoneID(zone.name, owner: ownerName), ZoneID("never-pushed", owner: ownerName)] {
                try await expectRefusal(.notFound) { _ = try await stranger.changes(zone: guessed, since: .start, limit: 10) }
                try await expectRefusal(.notFound) { _ = try await stranger.push(push(UUID(), [upsert(1, b, [:])]), zone: guessed) }
                try await expectRefusal(.notFound) { _ = try await stranger.members(of: guessed) }
            }
            try await expectRefusal(.notFound) { _ = try await owner.members(of: "never-pushed") }
            try expect(try await owner.zones().zones.map(\.zone) == [zone.name], "a stranger's push made a zone")
        },
        Check("An invitation by code is accepted once; a withdrawn or expired one is refused as not valid") { server in
            let (owner, ownerName) = try await named(server.newUser())
            let (first, _) = try await named(server.newUser())
            let (second, _) = try await named(server.newUser())
            _ = try await applied(owner.push(push(UUID(), [upsert(1, a, [:])]), zone: zone))
            let invitation = try await owner.invite(InvitationRequest(user: nil, role: .writer), to: zone)
            let code = try unwrap(invitation.code, "an invitation by code came without its code")
            let accepted = try await first.accept(InvitationAcceptance(code: code))
            try expect(
                accepted.owner == ownerName && accepted.zone == zone.name && accepted.role == .writer && accepted.code == nil,
                "accepted \(accepted)")
            try await expectRefusal(.invitationNotValid) { _ = try await second.accept(InvitationAcceptance(code: code)) }
            let withdrawn = try await owner.invite(InvitationRequest(user: nil, role: .reader), to: zone)
            try await owner.withdrawInvitation(withdrawn.id, of: zone)
            try await expectRefusal(.invitationNotValid) {
                _ = try await second.accept(InvitationAcceptance(code: try unwrap(withdrawn.code, "no code")))
            }
            try await expectRefusal(.notFound) { _ = try await second.accept(InvitationAcceptance(code: "ogi_guessed")) }
            let soon = Int64((Date().timeIntervalSince1970 + 1) * 1000)
            let expiring = try await owner.invite(InvitationRequest(user: nil, role: .reader, expiresAt: soon), to: zone)
            while Int64(Date().timeIntervalSince1970 * 1000) <= soon { try await Task.sleep(for: .milliseconds(50)) }
            try await expectRefusal(.invitationNotValid) {
                _ = try await second.accept(InvitationAcceptance(code: try unwrap(expiring.code, "no code")))
            }
            try expect(try await second.zones().zones.isEmpty, "a refused invitation made a member")
        },
        Check("A role change holds from the member's next request, and a removed member's live route ends") { server in
            let (owner, ownerName) = try await named(server.newUser())
            let (member, memberName) = try await named(server.newUser())
            _ = try await applied(owner.push(push(UUID(), [upsert(1, a, [:])]), zone: zone))
            try await join(member, memberName, zone, of: owner, as: .writer)
            let shared = ZoneID(zone.name, owner: ownerName)
            try await owner.setRole(.reader, of: memberName, in: zone)
            try await expectRefusal(.forbidden) { _ = try await member.push(push(UUID(), [upsert(1, b, [:])]), zone: shared) }
            let messages = LiveMessages(member.live(zone: shared, since: .start))
            try await withHangCaught("the removed member's live route") {
                var messages = messages.makeAsyncIterator()
                try expect(try await messages.next() == .listening, "the first message is not `listening`")
                try await owner.removeMember(memberName, from: zone)
                while let message = try await messages.next() {
                    if case .changes = message { continue }
                    if case .keepAlive = message { continue }
                    throw ContractViolation("the route sent \(message) after the removal")
                }
            }
            try await expectRefusal(.notFound) { _ = try await member.changes(zone: shared, since: .start, limit: 10) }
            try expect(try await member.zones().zones.isEmpty, "the removed member still lists the zone")
        }
    ]

    /// The remote and its user's name, as the zone list says it.
    static func named(_ remote: any SyncRemote) async throws -> (any SyncRemote, String) {
        let name = try unwrap(try await remote.zones().user, "the zone list does not name its caller")
        return (remote, name)
    }

    /// Makes `member` (named `memberName`) a member of `owner`'s `zone` with `role`, by an
    /// invitation by name it finds among its invitations and accepts.
    static func join(_ member: any SyncRemote, _ memberName: String, _ zone: ZoneID, of owner: any SyncRemote, as role: ZoneRole)
        async throws
    {
        let invitation = try await owner.invite(InvitationRequest(user: memberName, role: role), to: zone)
        try expect(invitation.code == nil, "an invitation by name came with a code")
        let waiting = try await member.invitations().invitations
        try expect(waiting.map(\.id) == [invitation.id], "the invitee sees \(waiting), not \(invitation)")
        let accepted = try await member.accept(InvitationAcceptance(id: invitation.id))
        try expect(accepted.role == role && accepted.zone == zone.name, "accepted \(accepted)")
        try expect(try await member.invitations().invitations.isEmpty, "an accepted invitation still waits")
    }

    static func unwrap<Value>(_ value: Value?, _ message: @autoclosure () -> String) throws -> Value {
        guard let value else { throw ContractViolation(message()) }
        return value
    }
}
