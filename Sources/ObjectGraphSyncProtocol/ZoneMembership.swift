import Foundation

/// What a user may do in a zone.
///
/// A zone belongs to the user who first pushed to it, its owner; other users become its members
/// by accepting an invitation, with the role the invitation gave.
public enum ZoneRole: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// Reads the zone's feed and live route.
    case reader
    /// Also pushes to the zone.
    case writer
    /// Also invites, changes and removes members, and deletes the zone: the user whose zone it is.
    case owner

    /// Whether the role lets its user push.
    public var canWrite: Bool { self != .reader }

    /// Roles order by what they allow: reader < writer < owner.
    public static func < (lhs: ZoneRole, rhs: ZoneRole) -> Bool { lhs.rank < rhs.rank }

    private var rank: Int {
        switch self {
        case .reader: 0
        case .writer: 1
        case .owner: 2
        }
    }
}

/// A user of a zone and their role.
public struct ZoneMember: Sendable, Hashable, Codable {
    /// The user's name.
    public var user: String
    /// What the user may do in the zone.
    public var role: ZoneRole

    public init(user: String, role: ZoneRole) {
        self.user = user
        self.role = role
    }
}

/// The answer to `GET /v1/users/{owner}/zones/{zone}/members`: the zone's owner first, then its
/// members by name.
public struct ZoneMembers: Sendable, Hashable, Codable {
    /// Every user of the zone, the owner first.
    public var members: [ZoneMember]

    public init(members: [ZoneMember]) {
        self.members = members
    }
}

/// A zone a user belongs to, and their role in it.
public struct ZoneMembership: Sendable, Hashable, Codable {
    /// The zone's owner.
    public var owner: String
    /// The zone's name.
    public var zone: String
    /// The user's role: `owner` for their own zones.
    public var role: ZoneRole

    public init(owner: String, zone: String, role: ZoneRole) {
        self.owner = owner
        self.zone = zone
        self.role = role
    }
}

/// The answer to `GET /v1/zones`: the zones the caller owns, then those shared with them, each
/// group by owner and name.
public struct ZoneList: Sendable, Hashable, Codable {
    /// The caller's user name, as zones' owners are named: how a client that knows only its token
    /// tells its own zones from others'. Nil from a server that does not say.
    public var user: String?
    /// The zones.
    public var zones: [ZoneMembership]

    public init(user: String?, zones: [ZoneMembership]) {
        self.user = user
        self.zones = zones
    }
}

/// The body of `PUT /v1/users/{owner}/zones/{zone}/members/{user}`: the member's new role.
public struct MemberRoleChange: Sendable, Hashable, Codable {
    /// `reader` or `writer`.
    public var role: ZoneRole

    public init(role: ZoneRole) {
        self.role = role
    }
}

/// The body of `POST /v1/users/{owner}/zones/{zone}/invitations`: whom to invite, with which role,
/// until when.
public struct InvitationRequest: Sendable, Hashable, Codable {
    /// The invited user's name; nil for an invitation by code, which whoever holds the code
    /// accepts once.
    public var user: String?
    /// `reader` or `writer`.
    public var role: ZoneRole
    /// When the invitation stops being accepted, in milliseconds since 1970; nil for the server's
    /// default (seven days).
    public var expiresAt: Int64?

    public init(user: String?, role: ZoneRole, expiresAt: Int64? = nil) {
        self.user = user
        self.role = role
        self.expiresAt = expiresAt
    }
}

/// An invitation to a zone, as its owner and its invitee see it.
public struct Invitation: Sendable, Hashable, Codable {
    /// The invitation's number, for accepting or withdrawing it.
    public var id: Int64
    /// The zone's owner.
    public var owner: String
    /// The zone's name.
    public var zone: String
    /// The invited user; nil for an invitation by code.
    public var user: String?
    /// The role accepting it gives.
    public var role: ZoneRole
    /// When it stops being accepted, in milliseconds since 1970.
    public var expiresAt: Int64
    /// The code to accept it with: only in the answer that created an invitation by code (the
    /// server keeps only its digest).
    public var code: String?

    public init(id: Int64, owner: String, zone: String, user: String?, role: ZoneRole, expiresAt: Int64, code: String? = nil) {
        self.id = id
        self.owner = owner
        self.zone = zone
        self.user = user
        self.role = role
        self.expiresAt = expiresAt
        self.code = code
    }
}

/// The answer to `GET /v1/invitations`: the invitations waiting for the caller.
public struct Invitations: Sendable, Hashable, Codable {
    /// The invitations, oldest first.
    public var invitations: [Invitation]

    public init(invitations: [Invitation]) {
        self.invitations = invitations
    }
}

/// The body of `POST /v1/invitations/accept`: an invitation by its number (one made for the
/// caller) or by its code.
public struct InvitationAcceptance: Sendable, Hashable, Codable {
    /// The number of an invitation made for the caller by name.
    public var id: Int64?
    /// The code of an invitation by code.
    public var code: String?

    public init(id: Int64? = nil, code: String? = nil) {
        self.id = id
        self.code = code
    }
}

// The request bodies refuse unknown keys, as a push does: a misspelt `rol` must not become the
// default.
extension MemberRoleChange {
    private enum CodingKeys: String, CodingKey, CaseIterable { case role }

    public init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(role: try container.decode(ZoneRole.self, forKey: .role))
    }
}

extension InvitationRequest {
    private enum CodingKeys: String, CodingKey, CaseIterable { case user, role, expiresAt }

    public init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            user: try container.decodeIfPresent(String.self, forKey: .user), role: try container.decode(ZoneRole.self, forKey: .role),
            expiresAt: try container.decodeIfPresent(Int64.self, forKey: .expiresAt))
    }
}

extension InvitationAcceptance {
    private enum CodingKeys: String, CodingKey, CaseIterable { case id, code }

    public init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decodeIfPresent(Int64.self, forKey: .id), code: try container.decodeIfPresent(String.self, forKey: .code))
    }
}
