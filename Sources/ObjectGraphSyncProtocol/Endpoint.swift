import Foundation

/// The sync server's routes, which the server's router and the client's requests are both built
/// from: a route is spelled once.
///
/// A zone is named by its owner and its name. The zone routes take both forms: under
/// `/v1/zones/{zone}` for a zone of the caller's own, and under `/v1/users/{owner}/zones/{zone}`
/// for any zone the caller belongs to, its own included.
public enum Endpoint: String, Sendable, Hashable, CaseIterable {
    /// Whether the server process is up (no token).
    case health
    /// Whether the server can reach its database (no token).
    case ready
    /// The server's metrics, in Prometheus's text format.
    case metrics
    /// A batch of mutations for a zone (`POST`, a ``PushRequest``).
    case push
    /// A page of a zone's feed after a cursor (`since`, `limit`).
    case changes
    /// A zone's live route: server-sent events when its feed moves (`since`).
    case live
    /// Deletes a zone with its feed, members and invitations (`DELETE`): the owner only.
    case deleteZone
    /// The zones the caller owns or is a member of, with the caller's role in each (`GET`,
    /// ``ZoneList``).
    case zones
    /// A zone's owner and members with their roles (`GET`, ``ZoneMembers``).
    case members
    /// Changes a member's role (`PUT`, a ``MemberRoleChange``): the owner only.
    case memberRole
    /// Takes a member out of the zone (`DELETE`): the owner, or the member leaving.
    case memberRemoval
    /// Invites a user, or whoever holds a code, into a zone (`POST`, an ``InvitationRequest``):
    /// the owner only.
    case invite
    /// The invitations waiting for the caller (`GET`, ``Invitations``).
    case invitations
    /// Accepts an invitation (`POST`, an ``InvitationAcceptance``).
    case acceptInvitation
    /// Withdraws an invitation not yet accepted (`DELETE`): the owner only.
    case withdrawInvitation

    /// The path, with `:zone`, `:owner`, `:user` and `:invitation` where those go (the pattern a
    /// router matches). A zone route's pattern is the form for the caller's own zones.
    public var pathPattern: String {
        switch self {
        case .health: "/health"
        case .ready: "/ready"
        case .metrics: "/metrics"
        case .push: "/v1/zones/:zone/push"
        case .changes: "/v1/zones/:zone/changes"
        case .live: "/v1/zones/:zone/live"
        case .deleteZone: "/v1/zones/:zone"
        case .zones: "/v1/zones"
        case .members: "/v1/zones/:zone/members"
        case .memberRole, .memberRemoval: "/v1/zones/:zone/members/:user"
        case .invite: "/v1/zones/:zone/invitations"
        case .withdrawInvitation: "/v1/zones/:zone/invitations/:invitation"
        case .invitations: "/v1/invitations"
        case .acceptInvitation: "/v1/invitations/accept"
        }
    }

    /// For the routes of the caller's own zones, the same route for a zone named with its owner.
    public var ownedPathPattern: String? {
        switch self {
        case .push, .changes, .live, .deleteZone, .members, .memberRole, .memberRemoval, .invite, .withdrawInvitation:
            pathPattern.replacingOccurrences(of: "/v1/zones/", with: "/v1/users/:owner/zones/")
        case .health, .ready, .metrics, .zones, .invitations, .acceptInvitation: nil
        }
    }

    /// Every pattern the route answers on.
    public var pathPatterns: [String] { [pathPattern] + (ownedPathPattern.map { [$0] } ?? []) }

    /// The path for `zone` of `owner` (the caller's own zone when nil), with `user` and
    /// `invitation` for the routes that name them; each as given: the caller escapes them for a URL.
    public func path(zone: String = "", owner: String? = nil, user: String = "", invitation: Int64? = nil) -> String {
        let pattern = owner.flatMap { _ in ownedPathPattern } ?? pathPattern
        // Segment by segment: a name holding `:zone` is not a placeholder.
        return pattern.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
            switch segment {
            case ":owner": owner ?? ""
            case ":zone": zone
            case ":user": user
            case ":invitation": invitation.map(String.init) ?? ""
            default: String(segment)
            }
        }.joined(separator: "/")
    }

    /// The HTTP method the route takes: `GET` routes take `HEAD` too.
    public var method: String {
        switch self {
        case .push, .invite, .acceptInvitation: "POST"
        case .memberRole: "PUT"
        case .memberRemoval, .withdrawInvitation, .deleteZone: "DELETE"
        case .health, .ready, .metrics, .changes, .live, .members, .invitations, .zones: "GET"
        }
    }
}
