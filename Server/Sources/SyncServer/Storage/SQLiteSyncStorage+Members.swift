import Foundation
import GRDB
import ObjectGraphSyncProtocol

// Zones' members and invitations on SQLite (see `SyncStorage`; the decisions are the server's).
extension SQLiteSyncStorage {
    func user(named name: String) async throws -> SyncUser? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT id, name FROM users WHERE name = ?", arguments: [name])
                .map { SyncUser(id: $0[0], name: $0[1]) }
        }
    }

    func zoneID(_ zone: String, owner: SyncUser) async throws -> Int64? {
        try await pool.read { db in
            try Int64.fetchOne(db, sql: "SELECT id FROM zones WHERE owner_id = ? AND name = ?", arguments: [owner.id, zone])
        }
    }

    func memberRole(of user: SyncUser, zone: String, owner: SyncUser) async throws -> ZoneRole? {
        try await pool.read { db in try Self.memberRole(of: user, zone: zone, owner: owner, db) }
    }

    static func memberRole(of user: SyncUser, zone: String, owner: SyncUser, _ db: Database) throws -> ZoneRole? {
        let role = try String.fetchOne(
            db,
            sql: """
                SELECT zone_members.role FROM zones JOIN zone_members ON zone_members.zone_id = zones.id
                WHERE zones.owner_id = ? AND zones.name = ? AND zone_members.user_id = ?
                """, arguments: [owner.id, zone, user.id])
        return try role.map(Self.role)
    }

    /// Refuses `user`, unless they own the zone, when they are no member of it or their role is
    /// short of `needing`: in the transaction of the operation it guards.
    static func requireRole(_ needing: ZoneRole, of user: SyncUser, zone: String, owner: SyncUser, _ db: Database) throws {
        guard user.id != owner.id else { return }
        guard let role = try memberRole(of: user, zone: zone, owner: owner, db) else { throw ZoneAccessDenied.notMember }
        guard role >= needing else { throw ZoneAccessDenied.role(role) }
    }

    func zones(of user: SyncUser) async throws -> [ZoneMembership] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT owners.name, zones.name, 'owner' FROM zones JOIN users AS owners ON owners.id = zones.owner_id
                    WHERE zones.owner_id = ?
                    UNION ALL
                    SELECT owners.name, zones.name, zone_members.role FROM zone_members
                    JOIN zones ON zones.id = zone_members.zone_id JOIN users AS owners ON owners.id = zones.owner_id
                    WHERE zone_members.user_id = ?
                    """, arguments: [user.id, user.id]
            ).map { row in
                let role: String = row[2]
                guard let parsed = ZoneRole(rawValue: role) else {
                    throw StorageFailure.malformedRow("a member's role is \(role.debugDescription)")
                }
                return ZoneMembership(owner: row[0], zone: row[1], role: parsed)
            }
        }
    }

    func members(zoneID: Int64) async throws -> [ZoneMember] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT users.name, zone_members.role FROM zone_members JOIN users ON users.id = zone_members.user_id
                    WHERE zone_members.zone_id = ? ORDER BY users.name
                    """, arguments: [zoneID]
            ).map { ZoneMember(user: $0[0], role: try Self.role($0[1])) }
        }
    }

    func setMemberRole(_ role: ZoneRole, of name: String, zoneID: Int64) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE zone_members SET role = ?
                    WHERE zone_id = ? AND user_id = (SELECT id FROM users WHERE name = ?)
                    """, arguments: [role.rawValue, zoneID, name])
            return db.changesCount > 0
        }
    }

    func removeMember(named name: String, zoneID: Int64) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: "DELETE FROM zone_members WHERE zone_id = ? AND user_id = (SELECT id FROM users WHERE name = ?)",
                arguments: [zoneID, name])
            return db.changesCount > 0
        }
    }

    func addInvitation(_ invitation: NewInvitation) async throws -> Int64 {
        try await pool.write { db in
            var inviteeID: Int64?
            if let invitee = invitation.invitee {
                guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM users WHERE name = ?", arguments: [invitee])
                else { throw SyncAdminError.noSuchUser(invitee) }
                inviteeID = id
            }
            try db.execute(
                sql: """
                    INSERT INTO invitations (zone_id, invitee_id, code_digest, role, created_at, expires_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    invitation.zoneID, inviteeID, invitation.codeDigest, invitation.role.rawValue, invitation.now,
                    invitation.expiresAt
                ])
            return db.lastInsertedRowID
        }
    }

    func invitations(for user: SyncUser, now: Int64) async throws -> [Invitation] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT invitations.id, owners.name, zones.name, invitations.role, invitations.expires_at
                    FROM invitations JOIN zones ON zones.id = invitations.zone_id JOIN users AS owners ON owners.id = zones.owner_id
                    WHERE invitations.invitee_id = ? AND invitations.accepted_at IS NULL
                    AND invitations.withdrawn_at IS NULL AND invitations.expires_at > ?
                    ORDER BY invitations.id
                    """, arguments: [user.id, now]
            ).map { row in
                Invitation(id: row[0], owner: row[1], zone: row[2], user: user.name, role: try Self.role(row[3]), expiresAt: row[4])
            }
        }
    }

    func acceptInvitation(_ key: InvitationKey, by user: SyncUser, now: Int64) async throws -> InvitationCheck {
        try await pool.write { db in
            let condition: String
            let argument: any DatabaseValueConvertible
            switch key {
            case .id(let id): (condition, argument) = ("invitations.id = ?", id)
            case .codeDigest(let digest): (condition, argument) = ("invitations.code_digest = ?", digest)
            }
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT invitations.id, invitations.zone_id, invitations.invitee_id, invitations.role,
                               invitations.expires_at, invitations.accepted_at, invitations.withdrawn_at,
                               zones.owner_id, owners.name, zones.name
                        FROM invitations JOIN zones ON zones.id = invitations.zone_id
                        JOIN users AS owners ON owners.id = zones.owner_id WHERE \(condition)
                        """, arguments: [argument])
            else { return .unknown }
            let inviteeID: Int64? = row[2]
            // An invitation by name is nobody else's to accept, nor to learn about.
            if case .id = key, inviteeID != user.id { return .unknown }
            if (row[6] as Int64?) != nil { return .withdrawn }
            if (row[5] as Int64?) != nil { return .used }
            if (row[4] as Int64) <= now { return .expired }
            if (row[7] as Int64) == user.id { return .ownZone }
            let zoneID: Int64 = row[1]
            let role = try Self.role(row[3])
            try db.execute(
                sql: """
                    INSERT INTO zone_members (zone_id, user_id, role, joined_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (zone_id, user_id) DO UPDATE SET role = excluded.role
                    """, arguments: [zoneID, user.id, role.rawValue, now])
            try db.execute(
                sql: "UPDATE invitations SET accepted_by = ?, accepted_at = ? WHERE id = ?", arguments: [user.id, now, row[0]])
            return .accepted(
                Invitation(
                    id: row[0], owner: row[8], zone: row[9], user: inviteeID == nil ? nil : user.name, role: role,
                    expiresAt: row[4]))
        }
    }

    func deleteZone(_ zone: String, owner: SyncUser) async throws -> Bool {
        // In the zone's turn: a push written in steps finishes before its zone goes.
        try await zoneTurns.run(ZoneKey(ownerID: owner.id, name: zone)) {
            try await self.pool.write { db in
                guard
                    let row = try Row.fetchOne(
                        db, sql: "SELECT id, last_position FROM zones WHERE owner_id = ? AND name = ?", arguments: [owner.id, zone])
                else { return false }
                let zoneID: Int64 = row[0], lastPosition: Int64 = row[1]
                let freed =
                    try Int64.fetchOne(
                        db,
                        sql: "SELECT COALESCE(SUM(\(Self.storedBytesSQL)), 0) FROM changes WHERE zone_id = ? AND position <= ?",
                        arguments: [zoneID, lastPosition]) ?? 0
                for table in ["changes", "client_ledger", "zone_members", "invitations"] {
                    try db.execute(sql: "DELETE FROM \(table) WHERE zone_id = ?", arguments: [zoneID])
                }
                try db.execute(sql: "DELETE FROM zones WHERE id = ?", arguments: [zoneID])
                try db.execute(sql: "UPDATE users SET stored_bytes = stored_bytes - ? WHERE id = ?", arguments: [freed, owner.id])
                return true
            }
        }
    }

    func withdrawInvitation(id: Int64, zoneID: Int64, now: Int64) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE invitations SET withdrawn_at = ?
                    WHERE id = ? AND zone_id = ? AND accepted_at IS NULL AND withdrawn_at IS NULL
                    """, arguments: [now, id, zoneID])
            return db.changesCount > 0
        }
    }

    /// A role as the database keeps it.
    private static func role(_ text: String) throws -> ZoneRole {
        guard let role = ZoneRole(rawValue: text), role != .owner else {
            throw StorageFailure.malformedRow("a member's role is \(text.debugDescription)")
        }
        return role
    }
}
