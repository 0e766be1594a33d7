import Foundation
import ObjectGraphSyncProtocol
import PostgresNIO

// Zones' members and invitations on PostgreSQL (see `SyncStorage`; the decisions are the server's).
extension PostgresSyncStorage {
    func user(named name: String) async throws -> SyncUser? {
        var user: SyncUser?
        for try await (id, name) in try await runningClient().query(
            "SELECT id, name FROM users WHERE name = \(name)", logger: logger
        ).decode((Int64, String).self) {
            user = SyncUser(id: id, name: name)
        }
        return user
    }

    func zoneID(_ zone: String, owner: SyncUser) async throws -> Int64? {
        var found: Int64?
        for try await id in try await runningClient().query(
            "SELECT id FROM zones WHERE owner_id = \(owner.id) AND name = \(zone)", logger: logger
        ).decode(Int64.self) {
            found = id
        }
        return found
    }

    func memberRole(of user: SyncUser, zone: String, owner: SyncUser) async throws -> ZoneRole? {
        var role: ZoneRole?
        for try await text in try await runningClient().query(
            """
            SELECT zone_members.role FROM zones JOIN zone_members ON zone_members.zone_id = zones.id
            WHERE zones.owner_id = \(owner.id) AND zones.name = \(zone) AND zone_members.user_id = \(user.id)
            """, logger: logger
        ).decode(String.self) {
            role = try Self.role(text)
        }
        return role
    }

    func zones(of user: SyncUser) async throws -> [ZoneMembership] {
        var zones: [ZoneMembership] = []
        for try await (owner, zone, role) in try await runningClient().query(
            """
            SELECT owners.name, zones.name, 'owner'::text FROM zones JOIN users AS owners ON owners.id = zones.owner_id
            WHERE zones.owner_id = \(user.id)
            UNION ALL
            SELECT owners.name, zones.name, zone_members.role FROM zone_members
            JOIN zones ON zones.id = zone_members.zone_id JOIN users AS owners ON owners.id = zones.owner_id
            WHERE zone_members.user_id = \(user.id)
            """, logger: logger
        ).decode((String, String, String).self) {
            guard let parsed = ZoneRole(rawValue: role) else {
                throw StorageFailure.malformedRow("a member's role is \(role.debugDescription)")
            }
            zones.append(ZoneMembership(owner: owner, zone: zone, role: parsed))
        }
        return zones
    }

    func members(zoneID: Int64) async throws -> [ZoneMember] {
        var members: [ZoneMember] = []
        for try await (name, role) in try await runningClient().query(
            """
            SELECT users.name, zone_members.role FROM zone_members JOIN users ON users.id = zone_members.user_id
            WHERE zone_members.zone_id = \(zoneID) ORDER BY users.name
            """, logger: logger
        ).decode((String, String).self) {
            members.append(ZoneMember(user: name, role: try Self.role(role)))
        }
        return members
    }

    func setMemberRole(_ role: ZoneRole, of name: String, zoneID: Int64) async throws -> Bool {
        try await changesRows(
            """
            UPDATE zone_members SET role = \(role.rawValue)
            WHERE zone_id = \(zoneID) AND user_id = (SELECT id FROM users WHERE name = \(name)) RETURNING 1
            """)
    }

    func removeMember(named name: String, zoneID: Int64) async throws -> Bool {
        try await changesRows(
            """
            DELETE FROM zone_members WHERE zone_id = \(zoneID) AND user_id = (SELECT id FROM users WHERE name = \(name))
            RETURNING 1
            """)
    }

    func addInvitation(_ invitation: NewInvitation) async throws -> Int64 {
        try await transaction { connection in
            var inviteeID: Int64?
            if let invitee = invitation.invitee {
                for try await id in try await connection.query(
                    "SELECT id FROM users WHERE name = \(invitee)", logger: logger
                ).decode(Int64.self) {
                    inviteeID = id
                }
                if inviteeID == nil { throw SyncAdminError.noSuchUser(invitee) }
            }
            for try await id in try await connection.query(
                """
                INSERT INTO invitations (zone_id, invitee_id, code_digest, role, created_at, expires_at)
                VALUES (\(invitation.zoneID), \(inviteeID), \(invitation.codeDigest), \(invitation.role.rawValue),
                        \(invitation.now), \(invitation.expiresAt))
                RETURNING id
                """, logger: logger
            ).decode(Int64.self) {
                return id
            }
            throw StorageFailure.malformedRow("an invitation's insert returned no number")
        }
    }

    func invitations(for user: SyncUser, now: Int64) async throws -> [Invitation] {
        var invitations: [Invitation] = []
        for try await (id, owner, zone, role, expires) in try await runningClient().query(
            """
            SELECT invitations.id, owners.name, zones.name, invitations.role, invitations.expires_at
            FROM invitations JOIN zones ON zones.id = invitations.zone_id JOIN users AS owners ON owners.id = zones.owner_id
            WHERE invitations.invitee_id = \(user.id) AND invitations.accepted_at IS NULL
            AND invitations.withdrawn_at IS NULL AND invitations.expires_at > \(now)
            ORDER BY invitations.id
            """, logger: logger
        ).decode((Int64, String, String, String, Int64).self) {
            invitations.append(
                Invitation(id: id, owner: owner, zone: zone, user: user.name, role: try Self.role(role), expiresAt: expires))
        }
        return invitations
    }

    func acceptInvitation(_ key: InvitationKey, by user: SyncUser, now: Int64) async throws -> InvitationCheck {
        try await transaction { connection in
            let condition: PostgresQuery
            // FOR UPDATE: two acceptances of one code at once; the second waits and finds it used.
            let select = """
                SELECT invitations.id, invitations.zone_id, invitations.invitee_id, invitations.role,
                       invitations.expires_at, invitations.accepted_at, invitations.withdrawn_at,
                       zones.owner_id, owners.name, zones.name
                FROM invitations JOIN zones ON zones.id = invitations.zone_id
                JOIN users AS owners ON owners.id = zones.owner_id
                """
            switch key {
            case .id(let id): condition = "\(unescaped: select) WHERE invitations.id = \(id) FOR UPDATE OF invitations"
            case .codeDigest(let digest):
                condition = try "\(unescaped: select) WHERE invitations.code_digest = \(digest) FOR UPDATE OF invitations"
            }
            typealias Found = (Int64, Int64, Int64?, String, Int64, Int64?, Int64?, Int64, String, String)
            var found: Found?
            for try await row in try await connection.query(condition, logger: logger).decode(Found.self) {
                found = row
            }
            guard let (id, zoneID, inviteeID, roleText, expires, accepted, withdrawn, ownerID, owner, zone) = found
            else { return .unknown }
            // An invitation by name is nobody else's to accept, nor to learn about.
            if case .id = key, inviteeID != user.id { return .unknown }
            if withdrawn != nil { return .withdrawn }
            if accepted != nil { return .used }
            if expires <= now { return .expired }
            if ownerID == user.id { return .ownZone }
            let role = try Self.role(roleText)
            try await connection.query(
                """
                INSERT INTO zone_members (zone_id, user_id, role, joined_at) VALUES (\(zoneID), \(user.id), \(role.rawValue), \(now))
                ON CONFLICT (zone_id, user_id) DO UPDATE SET role = excluded.role
                """, logger: logger)
            try await connection.query(
                "UPDATE invitations SET accepted_by = \(user.id), accepted_at = \(now) WHERE id = \(id)", logger: logger)
            return .accepted(
                Invitation(id: id, owner: owner, zone: zone, user: inviteeID == nil ? nil : user.name, role: role, expiresAt: expires))
        }
    }

    func deleteZone(_ zone: String, owner: SyncUser) async throws -> Bool {
        try await transaction { connection in
            // The zone's lock first: a push of it in flight commits before, one after finds it gone.
            var found: (Int64, Int64)?
            for try await row in try await connection.query(
                "SELECT id, last_position FROM zones WHERE owner_id = \(owner.id) AND name = \(zone) FOR UPDATE", logger: logger
            ).decode((Int64, Int64).self) {
                found = row
            }
            guard let (zoneID, lastPosition) = found else { return false }
            try await connection.query(
                """
                WITH freed AS (
                    DELETE FROM changes WHERE zone_id = \(zoneID)
                    RETURNING CASE WHEN position <= \(lastPosition) THEN \(unescaped: Self.storedBytesSQL) ELSE 0 END AS bytes)
                UPDATE users SET stored_bytes = stored_bytes - (SELECT COALESCE(SUM(bytes), 0) FROM freed) WHERE id = \(owner.id)
                """, logger: logger)
            for table in ["client_ledger", "zone_members", "invitations"] {
                try await connection.query("DELETE FROM \(unescaped: table) WHERE zone_id = \(zoneID)", logger: logger)
            }
            try await connection.query("DELETE FROM zones WHERE id = \(zoneID)", logger: logger)
            return true
        }
    }

    func withdrawInvitation(id: Int64, zoneID: Int64, now: Int64) async throws -> Bool {
        try await changesRows(
            """
            UPDATE invitations SET withdrawn_at = \(now)
            WHERE id = \(id) AND zone_id = \(zoneID) AND accepted_at IS NULL AND withdrawn_at IS NULL RETURNING 1
            """)
    }

    /// Runs a statement that returns a row per row it changed; true when it changed any.
    private func changesRows(_ query: PostgresQuery) async throws -> Bool {
        var changed = false
        for try await _ in try await runningClient().query(query, logger: logger).decode(Int.self) { changed = true }
        return changed
    }

    /// A role as the database keeps it.
    private static func role(_ text: String) throws -> ZoneRole {
        guard let role = ZoneRole(rawValue: text), role != .owner else {
            throw StorageFailure.malformedRow("a member's role is \(text.debugDescription)")
        }
        return role
    }
}
