public import Foundation
import ObjectGraphSyncFeed
public import ObjectGraphSyncProtocol

/// Zones shared between users: a zone's owner invites users (by name, or whoever holds a code)
/// as readers or writers; the invitee accepts; the owner lists, changes and removes members, and a
/// member may leave.
///
/// A zone is named by its owner and its name: alice's "family" and bob's "family" are two zones.
/// Every request checks the caller's role in the zone it names, in the database (a push or a
/// page of the feed in its own transaction, with no round trip of its own), so a role change or
/// a removal holds from the member's next request on every instance; a live stream checks at
/// each tick. A user who does not belong to a zone gets 404 for it, whether or not it
/// exists; a reader's push gets 403 (`forbidden`). Pushes to a shared zone
/// count against its owner's quotas (zones, stored bytes), and against the pushing user's rates.
///
/// Like the other operations, these need the schema: the running application or
/// ``withDatabase(_:)`` creates it.
extension SyncServer {
    /// How long an invitation can be accepted when its request names no expiry.
    public static let defaultInvitationLifetime: TimeInterval = 7 * 24 * 3600

    /// The zones `user` owns (those pushed to), then those shared with them, with their role in
    /// each: what a device syncs.
    public func zones(of user: SyncUser) async throws -> ZoneList {
        // Sorted here, not by the database: the two databases collate names differently.
        let zones = try await storage.zones(of: user).sorted { left, right in
            let (leftOwned, rightOwned) = (left.role == .owner, right.role == .owner)
            if leftOwned != rightOwned { return leftOwned }
            return (left.owner.unicodeScalars.lexicographicallyPrecedes(right.owner.unicodeScalars))
                || (left.owner == right.owner && left.zone < right.zone)
        }
        return ZoneList(user: user.name, zones: zones)
    }

    /// A zone's owner and members with their roles, the owner first: any member may ask.
    public func members(zone: String, owner: String? = nil, user: SyncUser) async throws -> ZoneMembers {
        let access = try await access(zone: zone, owner: owner, user: user, needing: .reader)
        let zoneID = try await existingZoneID(access)
        let members = try await storage.members(zoneID: zoneID)
        return ZoneMembers(members: [ZoneMember(user: access.owner.name, role: .owner)] + members)
    }

    /// Gives a member another role (`reader` or `writer`): the owner only.
    public func setRole(_ role: ZoneRole, of member: String, zone: String, owner: String? = nil, user: SyncUser) async throws {
        let access = try await access(zone: zone, owner: owner, user: user, needing: .owner)
        guard role != .owner else {
            throw SyncRequestError.badRequest("A member's role is reader or writer: a zone has one owner, \(access.owner.name).")
        }
        let zoneID = try await existingZoneID(access)
        guard Self.isUserName(member), try await storage.setMemberRole(role, of: member, zoneID: zoneID) else {
            throw SyncRequestError.notFound("\(member.prefix(100).debugDescription) is not a member of \(access).")
        }
    }

    /// Takes a member out of a zone: the owner may remove anyone but themselves, a member may
    /// leave. The member's next request to the zone gets 404, and their live stream of it ends.
    public func removeMember(_ member: String, zone: String, owner: String? = nil, user: SyncUser) async throws {
        let leaving = member == user.name
        let access = try await access(zone: zone, owner: owner, user: user, needing: leaving ? .reader : .owner)
        if leaving && access.role == .owner {
            throw SyncRequestError.badRequest("\(user.name) owns \(access) and cannot leave it.")
        }
        let zoneID = try await existingZoneID(access)
        guard Self.isUserName(member), try await storage.removeMember(named: member, zoneID: zoneID) else {
            throw SyncRequestError.notFound("\(member.prefix(100).debugDescription) is not a member of \(access).")
        }
    }

    /// Invites a user by name, or whoever holds the code of the answer (`Invitation.code`, shown
    /// only here), into a zone: the owner only, and the zone must have been pushed to.
    public func invite(_ request: InvitationRequest, zone: String, owner: String? = nil, user: SyncUser) async throws -> Invitation {
        let access = try await access(zone: zone, owner: owner, user: user, needing: .owner)
        guard request.role != .owner else {
            throw SyncRequestError.badRequest("An invitation's role is reader or writer: a zone has one owner.")
        }
        if request.user == user.name {
            throw SyncRequestError.badRequest("\(user.name) owns \(access): there is nobody to invite.")
        }
        let now = Date().millisecondsSince1970
        let expiresAt = request.expiresAt ?? now + Int64(Self.defaultInvitationLifetime * 1000)
        guard expiresAt > now else {
            throw SyncRequestError.badRequest("expiresAt \(expiresAt) is not in the future (now is \(now)).")
        }
        let zoneID = try await existingZoneID(access)
        if let invitee = request.user, !Self.isUserName(invitee) {
            throw SyncRequestError.notFound("There is no user named \(invitee.prefix(100).debugDescription).")
        }
        let code = request.user == nil ? AccessToken.newSecret(prefix: "ogi_") : nil
        let id: Int64
        do {
            id = try await storage.addInvitation(
                NewInvitation(
                    zoneID: zoneID, invitee: request.user, codeDigest: code.map(AccessToken.digest(of:)), role: request.role,
                    now: now, expiresAt: expiresAt))
        } catch SyncAdminError.noSuchUser(let name) {
            throw SyncRequestError.notFound("There is no user named \(name.prefix(100).debugDescription).")
        }
        return Invitation(
            id: id, owner: access.owner.name, zone: zone, user: request.user, role: request.role, expiresAt: expiresAt, code: code)
    }

    /// The invitations made for `user` by name that they can accept now.
    public func invitations(for user: SyncUser) async throws -> Invitations {
        Invitations(invitations: try await storage.invitations(for: user, now: Date().millisecondsSince1970))
    }

    /// Accepts an invitation, by its number (one made for `user` by name) or its code: `user`
    /// becomes a member of the zone with the invitation's role (a member already takes that role).
    /// An invitation is accepted once; one accepted, expired or withdrawn is refused with
    /// `invitationNotValid` saying which. `date` is when it is accepted (now,
    /// by default), which the expiry is compared with.
    public func acceptInvitation(_ acceptance: InvitationAcceptance, user: SyncUser, at date: Date = Date()) async throws
        -> Invitation
    {
        let key: InvitationKey
        switch (acceptance.id, acceptance.code) {
        case (let id?, nil): key = .id(id)
        case (nil, let code?): key = .codeDigest(AccessToken.digest(of: code))
        default: throw SyncRequestError.badRequest("An acceptance names the invitation by its id or by its code: one of the two.")
        }
        switch try await storage.acceptInvitation(key, by: user, now: date.millisecondsSince1970) {
        case .accepted(let invitation): return invitation
        case .unknown: throw SyncRequestError.notFound("There is no such invitation for \(user.name).")
        case .used: throw SyncRequestError(SyncRefusal.invitationNotValid("The invitation was accepted already."))
        case .expired: throw SyncRequestError(SyncRefusal.invitationNotValid("The invitation has expired."))
        case .withdrawn: throw SyncRequestError(SyncRefusal.invitationNotValid("The zone's owner withdrew the invitation."))
        case .ownZone: throw SyncRequestError.badRequest("\(user.name) owns the zone the invitation is to.")
        }
    }

    /// Deletes a zone with its feed, members and invitations: the owner only. Its bytes and
    /// place come back to the owner's quotas; a member's next request gets 404 and their live
    /// stream ends; the owner's devices, reading on from their cursor, are told to read the zone
    /// again (410) and find it empty. A push to its name afterwards makes a new zone.
    public func deleteZone(_ zone: String, owner: String? = nil, user: SyncUser) async throws {
        let access = try await access(zone: zone, owner: owner, user: user, needing: .owner)
        guard try await storage.deleteZone(zone, owner: access.owner) else {
            throw SyncRequestError.notFound("\(access) has no feed: there is nothing to delete.")
        }
    }

    /// Withdraws an invitation not yet accepted: the owner only.
    public func withdrawInvitation(id: Int64, zone: String, owner: String? = nil, user: SyncUser) async throws {
        let access = try await access(zone: zone, owner: owner, user: user, needing: .owner)
        let zoneID = try await existingZoneID(access)
        guard try await storage.withdrawInvitation(id: id, zoneID: zoneID, now: Date().millisecondsSince1970) else {
            throw SyncRequestError.notFound("\(access) has no invitation \(id) waiting to be accepted.")
        }
    }

    // MARK: Access

    /// The zone a request names: the caller's own when `owner` is nil or the caller, else
    /// `owner`'s (an owner's name is looked up once per process: users are never renamed nor
    /// removed). Whether the caller may use it is checked by the operation, in its transaction;
    /// an owner nobody is called is 404, as a zone the caller does not belong to is.
    func reference(zone: String, owner ownerName: String?, user: SyncUser) async throws -> ZoneReference {
        do {
            try ZoneName.check(zone)
        } catch {
            throw SyncRequestError(error)
        }
        guard let ownerName, ownerName != user.name else { return ZoneReference(owner: user, zone: zone) }
        guard Self.isUserName(ownerName), let owner = try await owners.user(named: ownerName, lookUp: storage.user(named:))
        else { throw Self.notMember(user, ownerName: ownerName, zone: zone) }
        return ZoneReference(owner: owner, zone: zone)
    }

    /// The zone a request names and the caller's role in it, looked up now: 404 for a zone the
    /// caller does not belong to (whether or not it exists: its existence is not told), 403 for
    /// a role short of `needing`.
    func access(zone: String, owner: String?, user: SyncUser, needing: ZoneRole) async throws -> ZoneAccess {
        let reference = try await reference(zone: zone, owner: owner, user: user)
        guard reference.owner != user else { return ZoneAccess(reference: reference, role: .owner) }
        guard let role = try await storage.memberRole(of: user, zone: zone, owner: reference.owner) else {
            throw Self.notMember(user, ownerName: reference.owner.name, zone: zone)
        }
        guard role >= needing else { throw Self.refusal(ZoneAccessDenied.role(role), user: user, reference: reference) }
        return ZoneAccess(reference: reference, role: role)
    }

    /// The answer to a storage's ``ZoneAccessDenied``.
    static func refusal(_ denied: ZoneAccessDenied, user: SyncUser, reference: ZoneReference) -> SyncRequestError {
        switch denied {
        case .notMember:
            return notMember(user, ownerName: reference.owner.name, zone: reference.zone)
        case .role(let role):
            let what = role == .reader ? "push to it" : "manage it, its members and invitations"
            return SyncRequestError(SyncRefusal.forbidden("\(user.name) is a \(role.rawValue) of \(reference) and cannot \(what)."))
        }
    }

    /// 404, worded alike whether the zone exists or not.
    private static func notMember(_ user: SyncUser, ownerName: String, zone: String) -> SyncRequestError {
        SyncRequestError.notFound(
            "\(ownerName.prefix(100).debugDescription) has no zone \(zone.debugDescription) shared with \(user.name).")
    }

    /// The zone's key; 404 when its owner never pushed to it.
    private func existingZoneID(_ access: ZoneAccess) async throws -> Int64 {
        guard let zoneID = try await storage.zoneID(access.reference.zone, owner: access.reference.owner) else {
            throw SyncRequestError.notFound("\(access.reference) has no feed yet: push to it before sharing it.")
        }
        return zoneID
    }
}

/// A zone as a request names it: its owner and its name.
struct ZoneReference: Sendable, CustomStringConvertible {
    var owner: SyncUser
    var zone: String

    var description: String { "\(owner.name)'s zone \(zone.debugDescription)" }
}

/// A zone a request named, and what its caller may do there.
struct ZoneAccess: Sendable, CustomStringConvertible {
    var reference: ZoneReference
    var role: ZoneRole

    var owner: SyncUser { reference.owner }
    var zone: String { reference.zone }
    var description: String { reference.description }
}
