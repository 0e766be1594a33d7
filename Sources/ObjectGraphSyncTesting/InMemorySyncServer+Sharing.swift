import Foundation
import ObjectGraphSyncFeed
import ObjectGraphSyncProtocol

/// An invitation as the in-memory server keeps it.
struct StoredInvitation {
    var zone: InMemorySyncServer.ZoneKey
    /// The invited user; nil for one by code.
    var user: String?
    var code: String?
    var role: ZoneRole
    var expiresAt: Int64
    var state: State

    enum State { case waiting, accepted, withdrawn }

    func invitation(id: Int64, withCode: Bool) -> Invitation {
        Invitation(
            id: id, owner: zone.owner, zone: zone.zone, user: user, role: role, expiresAt: expiresAt,
            code: withCode ? code : nil)
    }
}

// Members, roles and invitations, decided as the real server decides them (`SyncServer+Sharing`
// in `Server/`): the same checks in the same order, the same refusals.
extension InMemorySyncServer {
    /// How long an invitation can be accepted when its request names no expiry, as on the real
    /// server.
    static let invitationLifetime: Int64 = 7 * 24 * 3600 * 1000

    /// `user`'s role in the zone; nil for one they do not belong to.
    static func role(of user: String, in key: ZoneKey, _ state: borrowing State) -> ZoneRole? {
        key.owner == user ? .owner : state.members[key]?[user]
    }

    /// Refuses a user short of `needing` in the zone: 404 for one who does not belong to it
    /// (whether it exists or not), 403 for a role too low.
    static func require(_ needing: ZoneRole, of user: String, in key: ZoneKey, _ state: borrowing State) throws(SyncRefusal) {
        guard let role = role(of: user, in: key, state) else {
            throw .notFound("\(key.owner.prefix(100).debugDescription) has no zone \(key.zone.debugDescription) shared with \(user).")
        }
        guard role >= needing else {
            let what = role == .reader ? "push to it" : "manage it, its members and invitations"
            throw .forbidden("\(user) is a \(role.rawValue) of \(key) and cannot \(what).")
        }
    }

    /// Runs `body` on the state, once the zone's name is checked and the server is online.
    private func sharing<Value>(_ key: ZoneKey?, _ body: (inout State) throws -> Value) throws -> Value {
        if let key { try ZoneName.check(key.zone) }
        return try state.withLock { state throws in
            guard state.isOnline else { throw Self.offline }
            return try body(&state)
        }
    }

    /// Refuses a zone never pushed to, which cannot be shared yet.
    private static func requireFeed(_ key: ZoneKey, _ state: borrowing State) throws(SyncRefusal) {
        guard state.zones[key] != nil else { throw .notFound("\(key) has no feed yet: push to it before sharing it.") }
    }

    func zones(of user: String) throws -> ZoneList {
        try sharing(nil) { state in
            let owned = state.zones.keys.filter { $0.owner == user }.map { ZoneMembership(owner: user, zone: $0.zone, role: .owner) }
            let shared = state.members.compactMap { key, members in
                members[user].map { ZoneMembership(owner: key.owner, zone: key.zone, role: $0) }
            }
            let sorted = { (zones: [ZoneMembership]) in
                zones.sorted { ZoneID($0) < ZoneID($1) }
            }
            return ZoneList(user: user, zones: sorted(owned) + sorted(shared))
        }
    }

    func members(of key: ZoneKey, by user: String) throws -> ZoneMembers {
        try sharing(key) { state in
            try Self.require(.reader, of: user, in: key, state)
            try Self.requireFeed(key, state)
            let members = (state.members[key] ?? [:]).map { ZoneMember(user: $0.key, role: $0.value) }
                .sorted { $0.user.unicodeScalars.lexicographicallyPrecedes($1.user.unicodeScalars) }
            return ZoneMembers(members: [ZoneMember(user: key.owner, role: .owner)] + members)
        }
    }

    func setRole(_ role: ZoneRole, of member: String, in key: ZoneKey, by user: String) throws {
        try sharing(key) { state in
            try Self.require(.owner, of: user, in: key, state)
            guard role != .owner else {
                throw SyncRefusal.badRequest("A member's role is reader or writer: a zone has one owner, \(key.owner).")
            }
            try Self.requireFeed(key, state)
            guard state.members[key]?[member] != nil else {
                throw SyncRefusal.notFound("\(member.prefix(100).debugDescription) is not a member of \(key).")
            }
            state.members[key]?[member] = role
        }
    }

    func removeMember(_ member: String, from key: ZoneKey, by user: String) throws {
        let ended = try sharing(key) { state in
            let leaving = member == user
            try Self.require(leaving ? .reader : .owner, of: user, in: key, state)
            if leaving && key.owner == user { throw SyncRefusal.badRequest("\(user) owns \(key) and cannot leave it.") }
            try Self.requireFeed(key, state)
            guard state.members[key]?.removeValue(forKey: member) != nil else {
                throw SyncRefusal.notFound("\(member.prefix(100).debugDescription) is not a member of \(key).")
            }
            return Self.removeListeners(of: key, in: &state) { $0.user == member }
        }
        for continuation in ended { continuation.finish() }
    }

    func invite(_ request: InvitationRequest, to key: ZoneKey, by user: String) throws -> Invitation {
        let now = Self.milliseconds(Date())
        return try sharing(key) { state in
            try Self.require(.owner, of: user, in: key, state)
            guard request.role != .owner else {
                throw SyncRefusal.badRequest("An invitation's role is reader or writer: a zone has one owner.")
            }
            if request.user == user { throw SyncRefusal.badRequest("\(user) owns \(key): there is nobody to invite.") }
            let expiresAt = request.expiresAt ?? now + Self.invitationLifetime
            guard expiresAt > now else { throw SyncRefusal.badRequest("expiresAt \(expiresAt) is not in the future (now is \(now)).") }
            try Self.requireFeed(key, state)
            if let invitee = request.user, !state.users.contains(invitee) {
                throw SyncRefusal.notFound("There is no user named \(invitee.prefix(100).debugDescription).")
            }
            let id = state.nextInvitationID
            state.nextInvitationID += 1
            let stored = StoredInvitation(
                zone: key, user: request.user, code: request.user == nil ? "ogi_\(UUID().uuidString)" : nil, role: request.role,
                expiresAt: expiresAt, state: .waiting)
            state.invitations[id] = stored
            return stored.invitation(id: id, withCode: true)
        }
    }

    func invitations(for user: String) throws -> Invitations {
        let now = Self.milliseconds(Date())
        return try sharing(nil) { state in
            let waiting = state.invitations.filter { $0.value.user == user && $0.value.state == .waiting && $0.value.expiresAt > now }
            return Invitations(invitations: waiting.sorted { $0.key < $1.key }.map { $0.value.invitation(id: $0.key, withCode: false) })
        }
    }

    func accept(_ acceptance: InvitationAcceptance, by user: String) throws -> Invitation {
        let now = Self.milliseconds(Date())
        return try sharing(nil) { state in
            let found: (key: Int64, value: StoredInvitation)?
            switch (acceptance.id, acceptance.code) {
            case (let id?, nil): found = state.invitations[id].flatMap { $0.user == user ? (id, $0) : nil }
            case (nil, let code?): found = state.invitations.first { $0.value.code == code }
            default: throw SyncRefusal.badRequest("An acceptance names the invitation by its id or by its code: one of the two.")
            }
            guard let (id, invitation) = found else { throw SyncRefusal.notFound("There is no such invitation for \(user).") }
            switch invitation.state {
            case .accepted: throw SyncRefusal.invitationNotValid("The invitation was accepted already.")
            case .withdrawn: throw SyncRefusal.invitationNotValid("The zone's owner withdrew the invitation.")
            case .waiting: break
            }
            guard invitation.expiresAt > now else { throw SyncRefusal.invitationNotValid("The invitation has expired.") }
            guard invitation.zone.owner != user else { throw SyncRefusal.badRequest("\(user) owns the zone the invitation is to.") }
            state.invitations[id]?.state = .accepted
            state.members[invitation.zone, default: [:]][user] = invitation.role
            return invitation.invitation(id: id, withCode: false)
        }
    }

    func withdrawInvitation(_ id: Int64, of key: ZoneKey, by user: String) throws {
        try sharing(key) { state in
            try Self.require(.owner, of: user, in: key, state)
            try Self.requireFeed(key, state)
            guard let invitation = state.invitations[id], invitation.zone == key, invitation.state == .waiting else {
                throw SyncRefusal.notFound("\(key) has no invitation \(id) waiting to be accepted.")
            }
            state.invitations[id]?.state = .withdrawn
        }
    }

    func deleteZone(_ key: ZoneKey, by user: String) throws {
        let ended = try sharing(key) { state in
            try Self.require(.owner, of: user, in: key, state)
            guard state.zones.removeValue(forKey: key) != nil else {
                throw SyncRefusal.notFound("\(key) has no feed: there is nothing to delete.")
            }
            state.members[key] = nil
            state.invitations = state.invitations.filter { $0.value.zone != key }
            return Self.removeListeners(of: key, in: &state) { _ in true }
        }
        for continuation in ended { continuation.finish() }
    }

    /// Takes the zone's live routes that `ending` selects out of the state, to be ended once the
    /// lock is let go.
    private static func removeListeners(of key: ZoneKey, in state: inout State, _ ending: (Listener) -> Bool) -> [LiveContinuation] {
        let ended = (state.listeners[key] ?? [:]).filter { ending($0.value) }
        for id in ended.keys { state.listeners[key]?[id] = nil }
        return ended.values.map(\.continuation)
    }
}
