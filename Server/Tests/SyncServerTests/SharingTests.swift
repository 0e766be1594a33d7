import Foundation
import GRDB
import HTTPTypes
import HummingbirdTesting
import ObjectGraphSync
import ObjectGraphSyncProtocol
import PostgresNIO
import SyncServer
import Testing

/// Zones shared between users, through the HTTP API: invitations, roles, removal.
@Suite("Sharing: a zone's members, their roles and the invitations that make them", .timeLimit(.minutes(5)))
struct SharingTests {
    /// Alice, Bob and Carol, each with a token, and Alice's zone "family" with one mood in it.
    struct People {
        var alice: String
        var bob: String
        var carol: String
        let mood = UUID()

        init(_ server: SyncTestServer) async throws {
            alice = try await server.addUser("alice")
            bob = try await server.addUser("bob")
            carol = try await server.addUser("carol")
        }

        /// Makes the user of `token` a member of alice's "family" with `role`, by a code alice makes.
        func join(_ client: SyncTestClient, token: String, as role: ZoneRole) async throws {
            let code = try #require(
                try await client.request(
                    .post, "/v1/users/alice/zones/family/invitations", token: alice, body: #"{"role":"\#(role.rawValue)"}"#
                ).decoded(Invitation.self).code)
            let accepted = try await client.request(.post, "/v1/invitations/accept", token: token, body: #"{"code":"\#(code)"}"#)
            try #require(accepted.status == .ok, "\(accepted.text)")
        }

        func start(_ client: SyncTestClient) async throws {
            try await client.pushApplied(
                "family", PushRequest(UUID(), .upsert(1, entity: "Mood", id: mood, fields: ["text": .string("Sunny")])), token: alice)
        }
    }

    static var nowInMilliseconds: Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

    @Test(
        "A zone is named by its owner: alice's and bob's \"family\" are two zones, and a user who does not belong to a zone gets the same 404 whether or not it exists",
        arguments: Backend.available)
    func zoneIdentityAndNoExistenceLeak(_ backend: Backend) async throws {
        let server = try await SyncTestServer(backend)
        let people = try await People(server)
        try await server.run { client in
            try await people.start(client)
            try await client.pushApplied(
                "family", PushRequest(UUID(), .upsert(1, entity: "Mood", id: UUID(), fields: [:])), token: people.bob)
            let own = try await client.request(.get, "/v1/users/alice/zones/family/changes", token: people.alice)
            #expect(own.status == .ok)
            #expect(try own.decoded(ChangesPage.self).changes.map(\.record.id) == [people.mood], "the qualified route is the same zone")
            let bobs = try await client.request(.get, "/v1/zones/family/changes", token: people.bob)
            #expect(try bobs.decoded(ChangesPage.self).changes.map(\.record.id) != [people.mood], "bob's own family is another zone")

            let existing = try await client.request(.get, "/v1/users/alice/zones/family/changes", token: people.bob)
            let missing = try await client.request(.get, "/v1/users/alice/zones/nothing/changes", token: people.bob)
            let nobody = try await client.request(.get, "/v1/users/nobody/zones/family/changes", token: people.bob)
            for response in [existing, missing, nobody] {
                #expect(response.status == .notFound)
                #expect(response.error?.error == .notFound)
            }
            #expect(
                existing.error?.message.replacingOccurrences(of: "family", with: "nothing") == missing.error?.message,
                "the messages differ only by the names asked")
            let push = try await client.request(
                .post, "/v1/users/alice/zones/family/push", token: people.bob,
                body:
                    #"{"clientID":"\#(UUID())","mutations":[{"number":1,"operation":"upsert","entity":"Mood","id":"\#(UUID())","fields":{}}]}"#
            )
            #expect(push.status == .notFound, "\(push.text)")
            let pushToNothing = try await client.request(
                .post, "/v1/users/alice/zones/nothing/push", token: people.bob,
                body:
                    #"{"clientID":"\#(UUID())","mutations":[{"number":1,"operation":"upsert","entity":"Mood","id":"\#(UUID())","fields":{}}]}"#
            )
            #expect(pushToNothing.status == .notFound && pushToNothing.error?.message == missing.error?.message)
            let users = try await client.server.users()
            #expect(users.first { $0.user.name == "alice" }?.zones == 1, "a non-member's push made no zone of alice's")
            let members = try await client.request(.get, "/v1/users/alice/zones/family/members", token: people.bob)
            #expect(members.status == .notFound)
        }
    }

    @Test(
        "An invited reader reads the feed and the live route, and their push is refused with 403 forbidden; made a writer, their push lands in the owner's zone",
        arguments: Backend.available)
    func readerThenWriter(_ backend: Backend) async throws {
        let server = try await SyncTestServer(backend)
        let people = try await People(server)
        try await server.run { client in
            try await people.start(client)
            let invited = try await client.request(
                .post, "/v1/users/alice/zones/family/invitations", token: people.alice, body: #"{"user":"bob","role":"reader"}"#)
            #expect(invited.status == .created, "\(invited.text)")
            let invitation = try invited.decoded(Invitation.self)
            #expect(invitation.code == nil && invitation.user == "bob" && invitation.role == .reader)

            let waiting = try await client.request(.get, "/v1/invitations", token: people.bob).decoded(Invitations.self)
            #expect(waiting.invitations.map(\.id) == [invitation.id])
            #expect(waiting.invitations.first?.owner == "alice" && waiting.invitations.first?.zone == "family")
            #expect(try await client.request(.get, "/v1/invitations", token: people.carol).decoded(Invitations.self).invitations.isEmpty)

            let accepted = try await client.request(
                .post, "/v1/invitations/accept", token: people.bob, body: #"{"id":\#(invitation.id)}"#)
            #expect(accepted.status == .ok, "\(accepted.text)")
            #expect(try await client.request(.get, "/v1/invitations", token: people.bob).decoded(Invitations.self).invitations.isEmpty)

            let read = try await client.request(.get, "/v1/users/alice/zones/family/changes", token: people.bob)
            #expect(try read.decoded(ChangesPage.self).changes.map(\.record.id) == [people.mood])
            let members = try await client.request(.get, "/v1/users/alice/zones/family/members", token: people.bob)
            #expect(
                try members.decoded(ZoneMembers.self).members == [
                    ZoneMember(user: "alice", role: .owner), ZoneMember(user: "bob", role: .reader)
                ])

            let edit = PushRequest(UUID(), .upsert(1, entity: "Mood", id: people.mood, baseVersion: 1, fields: ["text": .string("Rainy")]))
            let refused = try await client.request(
                .post, "/v1/users/alice/zones/family/push", token: people.bob,
                body: String(decoding: try JSONEncoder().encode(edit), as: UTF8.self))
            #expect(refused.status == .forbidden)
            #expect(refused.error?.error == .forbidden)
            #expect(refused.error?.message.contains("reader") == true, "\(refused.text)")

            let promoted = try await client.request(
                .put, "/v1/users/alice/zones/family/members/bob", token: people.alice, body: #"{"role":"writer"}"#)
            #expect(promoted.status == .noContent, "\(promoted.text)")
            let pushed = try await client.request(
                .post, "/v1/users/alice/zones/family/push", token: people.bob,
                body: String(decoding: try JSONEncoder().encode(edit), as: UTF8.self))
            #expect(pushed.status == .ok, "\(pushed.text)")
            let seen = try await client.allChanges("family", token: people.alice).changes
            #expect(seen.last?.record.fields["text"] == .string("Rainy"), "bob's push is in alice's zone")
            #expect(seen.map(\.author) == ["alice", "bob"], "each change names the user who pushed it")
        }
    }

    @Test(
        "An invitation by code is accepted once, by whoever holds it; a used, expired or withdrawn one is refused as not valid, and another user's invitation by number is unknown",
        arguments: Backend.available)
    func invitationLifeCycle(_ backend: Backend) async throws {
        let server = try await SyncTestServer(backend)
        let people = try await People(server)
        try await server.run { client in
            try await people.start(client)
            let byCode = try await client.request(
                .post, "/v1/users/alice/zones/family/invitations", token: people.alice, body: #"{"role":"writer"}"#
            ).decoded(Invitation.self)
            let code = try #require(byCode.code)
            #expect(code.hasPrefix("ogi_") && byCode.user == nil)
            let accepted = try await client.request(.post, "/v1/invitations/accept", token: people.carol, body: #"{"code":"\#(code)"}"#)
            #expect(accepted.status == .ok)
            #expect(try accepted.decoded(Invitation.self).role == .writer)
            let again = try await client.request(.post, "/v1/invitations/accept", token: people.bob, body: #"{"code":"\#(code)"}"#)
            #expect(again.status == .gone && again.error?.error == .invitationNotValid && again.error?.message.contains("accepted") == true)
            let wrong = try await client.request(.post, "/v1/invitations/accept", token: people.bob, body: #"{"code":"ogi_nothing"}"#)
            #expect(wrong.status == .notFound)

            let forBob = try await client.request(
                .post, "/v1/users/alice/zones/family/invitations", token: people.alice, body: #"{"user":"bob","role":"reader"}"#
            ).decoded(Invitation.self)
            let stolen = try await client.request(.post, "/v1/invitations/accept", token: people.carol, body: #"{"id":\#(forBob.id)}"#)
            #expect(stolen.status == .notFound, "carol cannot accept bob's invitation, nor learn it exists")
            let withdrawn = try await client.request(
                .delete, "/v1/users/alice/zones/family/invitations/\(forBob.id)", token: people.alice)
            #expect(withdrawn.status == .noContent)
            let late = try await client.request(.post, "/v1/invitations/accept", token: people.bob, body: #"{"id":\#(forBob.id)}"#)
            #expect(late.status == .gone && late.error?.message.contains("withdrew") == true)

            // An expiry is compared with the acceptance's date: one an hour past it, here.
            let expiring = try await client.request(
                .post, "/v1/users/alice/zones/family/invitations", token: people.alice,
                body: #"{"user":"bob","role":"reader","expiresAt":\#(Self.nowInMilliseconds + 3_600_000)}"#
            ).decoded(Invitation.self)
            let bob = try #require(try await client.server.user(authenticatedBy: people.bob))
            let expired = await #expect(throws: SyncRequestError.self) {
                try await client.server.acceptInvitation(
                    InvitationAcceptance(id: expiring.id), user: bob, at: Date().addingTimeInterval(7_200))
            }
            #expect(expired?.status == .gone && expired?.body.error == .invitationNotValid)
            #expect(expired?.body.message.contains("expired") == true)
            #expect(try await client.server.acceptInvitation(InvitationAcceptance(id: expiring.id), user: bob).role == .reader)
            let past = try await client.request(
                .post, "/v1/users/alice/zones/family/invitations", token: people.alice,
                body: #"{"user":"bob","role":"reader","expiresAt":1}"#)
            #expect(past.status == .badRequest)
            let misspelt = try await client.request(
                .post, "/v1/users/alice/zones/family/invitations", token: people.alice, body: #"{"user":"bob","rol":"reader"}"#)
            #expect(misspelt.status == .badRequest)
            let owner = try await client.request(
                .post, "/v1/users/alice/zones/family/invitations", token: people.alice, body: #"{"user":"bob","role":"owner"}"#)
            #expect(owner.status == .badRequest)
            let stranger = try await client.request(
                .post, "/v1/users/alice/zones/family/invitations", token: people.alice, body: #"{"user":"dave","role":"reader"}"#)
            #expect(stranger.status == .notFound)
            let unpushed = try await client.request(
                .post, "/v1/zones/empty/invitations", token: people.alice, body: #"{"user":"bob","role":"reader"}"#)
            #expect(unpushed.status == .notFound, "the own-zone routes are push, changes and live only")
        }
    }

    @Test(
        "Only the owner manages members; a removed member's next request gets 404 and their live stream ends, and a member may leave",
        arguments: Backend.available)
    func removalAndLeaving(_ backend: Backend) async throws {
        var server = try await SyncTestServer(backend)
        server.configuration.liveTickInterval = .milliseconds(100)
        let people = try await People(server)
        try await server.run { client in
            try await people.start(client)
            try await people.join(client, token: people.bob, as: .writer)
            try await people.join(client, token: people.carol, as: .reader)
            // A writer manages nothing.
            let byWriter = try await client.request(
                .post, "/v1/users/alice/zones/family/invitations", token: people.bob, body: #"{"role":"reader"}"#)
            #expect(byWriter.status == .forbidden && byWriter.error?.error == .forbidden)
            #expect(
                try await client.request(.delete, "/v1/users/alice/zones/family/members/carol", token: people.bob).status == .forbidden)
            #expect(
                try await client.request(
                    .put, "/v1/users/alice/zones/family/members/bob", token: people.bob, body: #"{"role":"writer"}"#
                ).status == .forbidden)

            let live = try await LiveListener(port: client.port, zone: "family", owner: "alice", token: people.bob)
            let removed = try await client.request(.delete, "/v1/users/alice/zones/family/members/bob", token: people.alice)
            #expect(removed.status == .noContent)
            #expect(try await client.request(.get, "/v1/users/alice/zones/family/changes", token: people.bob).status == .notFound)
            #expect(try await live.finishes(within: .seconds(60)), "the removed member's live stream ended")

            let left = try await client.request(.delete, "/v1/users/alice/zones/family/members/carol", token: people.carol)
            #expect(left.status == .noContent)
            #expect(try await client.request(.get, "/v1/users/alice/zones/family/changes", token: people.carol).status == .notFound)
            let ownerLeaving = try await client.request(.delete, "/v1/users/alice/zones/family/members/alice", token: people.alice)
            #expect(ownerLeaving.status == .badRequest)
            let members = try await client.request(.get, "/v1/users/alice/zones/family/members", token: people.alice)
            #expect(try members.decoded(ZoneMembers.self).members == [ZoneMember(user: "alice", role: .owner)])
            let methods = try await client.request(.post, "/v1/users/alice/zones/family/members/bob", token: people.alice)
            #expect(methods.status == .methodNotAllowed && methods.headers[.allow] == "PUT, DELETE")
        }
    }

    @Test(
        "A change made before the server kept authors names its zone's owner, the only user who could push then",
        arguments: Backend.available)
    func authorOfOlderChanges(_ backend: Backend) async throws {
        let server = try await SyncTestServer(backend)
        let people = try await People(server)
        try await server.run { client in try await people.start(client) }
        switch server.configuration.database {
        case .sqlite(let path):
            try await DatabaseQueue(path: path).write { db in try db.execute(sql: "UPDATE changes SET author_id = NULL") }
        case .postgres(let url):
            let client = PostgresClient(configuration: url.clientConfiguration)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await client.run() }
                try await client.query("UPDATE changes SET author_id = NULL")
                group.cancelAll()
            }
        }
        try await server.run { client in
            let changes = try await client.allChanges("family", token: people.alice).changes
            #expect(changes.map(\.author) == ["alice"])
        }
    }

    @Test("An owner whose name has spaces and accents is named in the path percent-encoded, as a URL must write it")
    func percentEncodedOwner() async throws {
        let server = try await SyncTestServer(.sqlite)
        let owner = try await server.addUser("Zoë Ünal")
        let bob = try await server.addUser("bob")
        try await server.run { client in
            try await client.pushApplied("family", PushRequest(UUID(), .upsert(1, entity: "Mood", id: UUID(), fields: [:])), token: owner)
            let path = Endpoint.invite.path(zone: "family", owner: "Zo%C3%AB%20%C3%9Cnal")
            let invited = try await client.request(.post, path, token: owner, body: #"{"user":"bob","role":"reader"}"#)
            #expect(invited.status == .created, "\(invited.text)")
            let invitation = try invited.decoded(Invitation.self)
            #expect(invitation.owner == "Zoë Ünal")
            #expect(try await client.request(.post, "/v1/invitations/accept", token: bob, body: #"{"id":\#(invitation.id)}"#).status == .ok)
            let read = try await client.request(.get, "/v1/users/Zo%C3%AB%20%C3%9Cnal/zones/family/changes", token: bob)
            #expect(read.status == .ok, "\(read.text)")
        }
    }

    @Test(
        "The client's remote names owners and members whose names hold spaces, accents, a slash, '?', '#' and '%' as one path segment each")
    func clientRemoteEscapesNames() async throws {
        let server = try await SyncTestServer(.sqlite)
        let (ownerName, memberName) = ("Zoë Ünal/β", "bob ?#%2F")
        let (ownerToken, memberToken) = (try await server.addUser(ownerName), try await server.addUser(memberName))
        try await server.serve { port in
            let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
            let (owner, member) = (HTTPSyncRemote(url: url, token: ownerToken), HTTPSyncRemote(url: url, token: memberToken))
            let mood = Mutation(number: 1, operation: .upsert, entity: "Mood", id: UUID(), fields: ["text": .string("ça va")])
            guard case .applied = try await owner.push(PushRequest(clientID: UUID(), mutations: [mood]), zone: "family") else {
                Issue.record("the owner's push was refused")
                return
            }
            let invitation = try await owner.invite(InvitationRequest(user: memberName, role: .writer), to: "family")
            #expect(try await member.accept(InvitationAcceptance(id: invitation.id)).owner == ownerName)
            let shared = ZoneID("family", owner: ownerName)
            #expect(try await member.zones().zones == [ZoneMembership(owner: ownerName, zone: "family", role: .writer)])
            #expect(try await member.changes(zone: shared, since: .start, limit: 10).changes.map(\.record.id) == [mood.id])
            #expect(try await member.members(of: shared).members.map(\.user) == [ownerName, memberName])
            try await owner.setRole(.reader, of: memberName, in: "family")
            #expect(try await owner.members(of: "family").members.last == ZoneMember(user: memberName, role: .reader))
            try await member.removeMember(memberName, from: shared)
            #expect(try await member.zones().zones.isEmpty)
        }
    }

    @Test(
        "A name no user can have (a NUL, a control character, 101 characters) is nobody's: 404, never a database error",
        arguments: Backend.available)
    func impossibleNames(_ backend: Backend) async throws {
        let server = try await SyncTestServer(backend)
        let people = try await People(server)
        try await server.run { client in
            try await people.start(client)
            for name in ["%00", "a%0Ab", String(repeating: "x", count: 101)] {
                let read = try await client.request(.get, "/v1/users/\(name)/zones/family/changes", token: people.bob)
                #expect(read.status == .notFound, "\(name): \(read.text)")
                let role = try await client.request(
                    .put, "/v1/users/alice/zones/family/members/\(name)", token: people.alice, body: #"{"role":"writer"}"#)
                #expect(role.status == .notFound, "\(name): \(role.text)")
                let removal = try await client.request(.delete, "/v1/users/alice/zones/family/members/\(name)", token: people.alice)
                #expect(removal.status == .notFound, "\(name): \(removal.text)")
            }
            let invited = try await client.request(
                .post, "/v1/users/alice/zones/family/invitations", token: people.alice, body: #"{"user":"b\u0000ob","role":"reader"}"#)
            #expect(invited.status == .notFound, "\(invited.text)")
        }
    }

    @Test(
        "The owner deletes a zone: members get 404 and their live stream ends, the owner's cursor must read it again and finds it empty, its bytes and place come back",
        arguments: Backend.available)
    func zoneDeletion(_ backend: Backend) async throws {
        var server = try await SyncTestServer(backend)
        server.configuration.liveTickInterval = .milliseconds(100)
        let people = try await People(server)
        try await server.run { client in
            try await people.start(client)
            let cursor = try await client.allChanges("family", token: people.alice).cursor
            try await people.join(client, token: people.bob, as: .writer)
            #expect(try await client.request(.delete, "/v1/users/alice/zones/family", token: people.bob).status == .forbidden)
            #expect(try await client.request(.delete, "/v1/users/alice/zones/family", token: people.carol).status == .notFound)
            let before = try #require(try await client.server.users().first { $0.user.name == "alice" })
            #expect(before.zones == 1 && before.storedBytes > 0)

            let live = try await LiveListener(port: client.port, zone: "family", owner: "alice", token: people.bob)
            #expect(try await client.request(.delete, "/v1/zones/family", token: people.alice).status == .noContent)
            #expect(try await client.request(.get, "/v1/users/alice/zones/family/changes", token: people.bob).status == .notFound)
            #expect(try await live.finishes(within: .seconds(60)), "the member's live stream ended")
            let stale = try await client.changes("family", since: cursor, token: people.alice)
            #expect(stale.status == .gone && stale.error?.error == .mustRefetch, "\(stale.text)")
            #expect(try await client.allChanges("family", token: people.alice).changes.isEmpty)
            let after = try #require(try await client.server.users().first { $0.user.name == "alice" })
            #expect(after.zones == 0 && after.storedBytes == 0)
            #expect(try await client.request(.delete, "/v1/zones/family", token: people.alice).status == .notFound)

            try await client.pushApplied(
                "family", PushRequest(UUID(), .upsert(1, entity: "Mood", id: UUID(), fields: [:])), token: people.alice)
            #expect(
                try await client.request(.get, "/v1/users/alice/zones/family/changes", token: people.bob).status == .notFound,
                "the new zone of the same name is not shared")
        }
    }

    @Test(
        "A writer's pushes to a shared zone count against its owner's stored bytes, not the writer's, and are refused past the owner's quota",
        arguments: Backend.available)
    func ownersQuota(_ backend: Backend) async throws {
        var server = try await SyncTestServer(backend)
        server.configuration.quotas = Quotas(zonesPerUser: nil, storedBytesPerUser: 20_000)
        let people = try await People(server)
        try await server.run { client in
            try await people.start(client)
            try await people.join(client, token: people.bob, as: .writer)
            let text = JSONValue.string(String(repeating: "x", count: 7_000))
            let device = UUID()
            func push(_ number: Int64) async throws -> TestResponse {
                let body = PushRequest(device, .upsert(number, entity: "Note", id: UUID(), fields: ["text": text]))
                return try await client.request(
                    .post, "/v1/users/alice/zones/family/push", token: people.bob,
                    body: String(decoding: try JSONEncoder().encode(body), as: UTF8.self))
            }
            #expect(try await push(1).status == .ok)
            let users = try await client.server.users()
            #expect(users.first { $0.user.name == "alice" }?.storedBytes ?? 0 > 7_000, "alice keeps bob's note")
            #expect(users.first { $0.user.name == "bob" }?.storedBytes == 0, "bob keeps nothing")
            #expect(try await push(2).status == .ok)
            let refused = try await push(3)
            #expect(refused.status == .forbidden && refused.error?.error == .quotaExceeded, "\(refused.text)")
        }
    }

    @Test("A user's zones are listed with their role in each: their own first, then those shared with them", arguments: Backend.available)
    func zoneList(_ backend: Backend) async throws {
        let server = try await SyncTestServer(backend)
        let people = try await People(server)
        try await server.run { client in
            try await people.start(client)
            for zone in ["trips", "diary"] {
                try await client.pushApplied(
                    zone, PushRequest(UUID(), .upsert(1, entity: "Mood", id: UUID(), fields: [:])), token: people.bob)
            }
            try await people.join(client, token: people.bob, as: .reader)
            let list = try await client.request(.get, "/v1/zones", token: people.bob)
            #expect(list.status == .ok, "\(list.text)")
            #expect(
                try list.decoded(ZoneList.self).zones == [
                    ZoneMembership(owner: "bob", zone: "diary", role: .owner), ZoneMembership(owner: "bob", zone: "trips", role: .owner),
                    ZoneMembership(owner: "alice", zone: "family", role: .reader)
                ])
            let carols = try await client.request(.get, "/v1/zones", token: people.carol).decoded(ZoneList.self)
            #expect(carols.zones.isEmpty, "a zone read but never pushed to is no zone")
        }
    }
}
