import Foundation

/// A zone on a sync server, as a client names it: its name, and its owner's name when it is not
/// one of the caller's own zones.
///
/// Zone identity is the owner and the name together: alice's "family" and bob's "family" are two
/// zones. A client that does not know its own user name names its own zones by name alone.
///
/// ```swift
/// let mine: ZoneID = "moods"
/// let shared = ZoneID("family", owner: "alice")
/// ```
public struct ZoneID: Sendable, Hashable, Codable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The zone's name.
    public var name: String
    /// The owner's user name; nil for a zone of the caller's own.
    public var owner: String?

    /// The zone `name` of `owner` (of the caller when nil).
    public init(_ name: String, owner: String? = nil) {
        self.name = name
        self.owner = owner
    }

    /// A zone of the caller's own.
    public init(stringLiteral name: String) {
        self.init(name)
    }

    /// The zone of a membership, named with its owner.
    public init(_ membership: ZoneMembership) {
        self.init(membership.zone, owner: membership.owner)
    }

    /// `owner/name`, or the name alone for a zone of the caller's own. A zone's name holds no `/`
    /// (the server refuses one), so the text names one zone: the owner is what comes before its
    /// last `/` (see ``init(parsing:)``).
    public var description: String {
        owner.map { "\($0)/\(name)" } ?? name
    }

    /// The zone a ``description`` names; nil for an empty text or an empty owner or name.
    public init?(parsing text: String) {
        guard let slash = text.lastIndex(of: "/") else {
            guard !text.isEmpty else { return nil }
            self.init(text)
            return
        }
        let (owner, name) = (String(text[..<slash]), String(text[text.index(after: slash)...]))
        guard !owner.isEmpty, !name.isEmpty else { return nil }
        self.init(name, owner: owner)
    }

    /// The same zone named as a zone of `user`'s own when `user` owns it: how a client that knows
    /// its user name compares a zone it was given with one it names by name alone.
    public func relative(to user: String) -> ZoneID {
        owner == user ? ZoneID(name) : self
    }

    /// Own zones first, then by owner and name, comparing their Unicode scalars (as the server
    /// sorts them), so that the order is the same on every platform.
    public static func < (left: ZoneID, right: ZoneID) -> Bool {
        switch (left.owner, right.owner) {
        case (nil, .some): return true
        case (.some, nil): return false
        case (let leftOwner?, let rightOwner?) where leftOwner != rightOwner:
            return leftOwner.unicodeScalars.lexicographicallyPrecedes(rightOwner.unicodeScalars)
        default: return left.name.unicodeScalars.lexicographicallyPrecedes(right.name.unicodeScalars)
        }
    }
}

extension Endpoint {
    /// The path of this zone route for `zone`, with `user` and `invitation` for the routes that
    /// name them; each as given: the caller escapes them for a URL.
    public func path(zone: ZoneID, user: String = "", invitation: Int64? = nil) -> String {
        path(zone: zone.name, owner: zone.owner, user: user, invitation: invitation)
    }
}

extension SyncedRecord {
    /// The field of a forward: a record that moved to another zone leaves, in the zone it left, an
    /// upsert whose only field with a value is this one, the text of the ``ZoneID`` it moved to
    /// (named with its owner). A client that syncs that zone moves its object there; one that does
    /// not deletes it. The server stores it as any field.
    public static let forwardField = "_movedTo"

    /// The zone a forward names; nil for a record that is not one.
    public var forwardedTo: ZoneID? {
        guard !deleted, case .string(let text)? = fields[Self.forwardField] else { return nil }
        return ZoneID(parsing: text)
    }
}
