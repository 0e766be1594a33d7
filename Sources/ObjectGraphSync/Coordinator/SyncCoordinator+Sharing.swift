public import Foundation
public import ObjectGraph
public import ObjectGraphSyncProtocol

/// Sharing objects with other users: a root object and what belongs to it move into a zone of
/// their own, whose owner invites members as readers or writers (see <doc:SharingObjects>).
extension SyncCoordinator {
    /// Shares an object: it moves, with every object that belongs to it (through to-many
    /// relationships whose delete rule is cascade, at any depth), into a new zone of this user's,
    /// named after the coordinator's zone and the object (`moods.<its global ID>`), then syncs.
    /// Sharing an object already shared returns its zone. Returns the zone: invite members to it
    /// with ``invite(_:as:to:until:)``.
    ///
    /// The move is saved in one transaction before anything is sent; the records reach the new
    /// zone before the old zone hears they left, so no device sees them in no zone. When the server
    /// cannot be reached, the move is kept and sent by a later sync (this call throws
    /// ``SyncError/Code/unreachable``).
    ///
    /// - Parameter objectID: A saved object of an entity that syncs.
    /// - Throws: ``SyncError`` (``SyncError/Code/invalidConfiguration``) for an object that does not
    ///   sync or that lives in a zone shared with this user (only an owner shares).
    @discardableResult
    public func share(_ objectID: ObjectID) async throws -> ZoneID {
        let target = try await exclusively { sync -> ZoneID in
            let workspace = sync.workspace
            guard let root = workspace.context.object(with: objectID) else { throw SyncError.store(.objectNotFound(objectID)) }
            let current = try sync.zone(of: objectID)
            if current != sync.zone && current.owner == nil { return current }  // shared already
            guard current == sync.zone else {
                throw SyncError.invalidConfiguration(
                    entity: objectID.entityName, reason: "\(objectID) lives in \(current), which another user owns: only they share it")
            }
            let name = "\(sync.zone.name).\(root.objectGlobalID.uuidString.lowercased())"
            guard name.utf8.count <= 100 else {
                throw SyncError.invalidConfiguration(
                    entity: objectID.entityName, reason: "the zone \(name) would be longer than a zone name may be (100)")
            }
            let target = ZoneID(name)
            sync.zoneRoles[target] = .owner
            do {
                try workspace.recordLocalChanges()  // the app's latest edits first: the move sends them whole
                _ = try workspace.move(root, to: target)
            } catch {
                workspace.forgetHeldObjects()
                throw error
            }
            return target
        }
        try await syncNow()
        return target
    }

    /// Invites `user` (or, for nil, whoever holds the code the answer carries) into a zone of this
    /// user's, as a reader or a writer, until `expiry` (the server's default, seven days, for nil).
    public func invite(_ user: String?, as role: ZoneRole, to zone: ZoneID, until expiry: Date? = nil) async throws -> Invitation {
        let expiresAt = expiry.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
        return try await remote.invite(InvitationRequest(user: user, role: role, expiresAt: expiresAt), to: zone)
    }

    /// The invitations waiting for this user.
    public func invitations() async throws -> [Invitation] {
        try await remote.invitations().invitations
    }

    /// Accepts an invitation (by its number or its code) and syncs the zone it opens at once.
    /// Returns the zone, named as this coordinator names it.
    @discardableResult
    public func accept(_ acceptance: InvitationAcceptance) async throws -> ZoneID {
        let invitation = try await remote.accept(acceptance)
        try await syncNow()
        return ZoneID(invitation.zone, owner: invitation.owner).relative(to: userName ?? "")
    }

    /// A zone's owner and members with their roles.
    public func members(of zone: ZoneID) async throws -> [ZoneMember] {
        try await remote.members(of: zone).members
    }

    /// Gives a member of a zone of this user's another role; it holds from their next request.
    public func setRole(_ role: ZoneRole, of member: String, in zone: ZoneID) async throws {
        try await remote.setRole(role, of: member, in: zone)
    }

    /// Takes a member out of a zone of this user's: their devices delete its objects at their next
    /// sync.
    public func removeMember(_ member: String, from zone: ZoneID) async throws {
        try await remote.removeMember(member, from: zone)
    }

    /// Leaves a zone shared with this user: the server takes the user out, and the zone's objects
    /// leave this store. A zone of the user's own cannot be left.
    public func leave(_ zone: ZoneID) async throws {
        guard zone.owner != nil else {
            throw SyncError.invalidConfiguration(entity: "", reason: "\(zone) is this user's own zone: it cannot be left")
        }
        let me = try await currentUserName()
        try await remote.removeMember(me, from: zone)
        try await syncNow()
    }
}
