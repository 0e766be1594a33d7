import Foundation

/// The body of every error answer: a code a program can switch on, and a message for people.
public struct SyncErrorBody: Sendable, Hashable, Codable {
    /// What went wrong, for a program: one of the codes below, or one a newer server added, which
    /// an older client decodes and keeps (its ``rawValue`` names it) instead of failing to read
    /// the answer. Match it like an enumeration, with a `default` for codes to come.
    public struct Code: RawRepresentable, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
        /// The code as the answer spells it.
        public let rawValue: String

        /// A code, known to this version or not.
        public init(rawValue: String) { self.rawValue = rawValue }

        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }

        public var description: String { rawValue }

        /// The request is malformed: bad JSON, a wrong type, an unknown key, an invalid value.
        public static let badRequest = Code(rawValue: "badRequest")
        /// No valid bearer token.
        public static let unauthorized = Code(rawValue: "unauthorized")
        /// No such route, or a mutation updates or deletes a record the zone does not hold.
        public static let notFound = Code(rawValue: "notFound")
        /// The body, the batch or a record is over the server's limits.
        public static let tooLarge = Code(rawValue: "tooLarge")
        /// A mutation was made from a version that is no longer current: see `conflicts`.
        public static let conflict = Code(rawValue: "conflict")
        /// The batch reuses mutation numbers of this client that the server has already applied,
        /// and is not a replay of the last batch.
        public static let mutationNumberUsed = Code(rawValue: "mutationNumberUsed")
        /// The cursor is older than the zone's tombstone horizon: drop what was synced and read
        /// the zone again from the start.
        public static let mustRefetch = Code(rawValue: "mustRefetch")
        /// The user, or the address, is over the server's request rate or concurrent pushes:
        /// nothing was done; try again after the answer's `Retry-After` seconds.
        public static let tooManyRequests = Code(rawValue: "tooManyRequests")
        /// The push would take the user past a quota of the server (zones, stored bytes): nothing
        /// was applied, and sending it again is refused alike until the operator raises the quota
        /// or the user's data shrinks.
        public static let quotaExceeded = Code(rawValue: "quotaExceeded")
        /// The user's role in the zone does not allow it: a reader's push, a member's change of
        /// the members. (A zone the user does not belong to is `notFound`, whether or not it exists.)
        public static let forbidden = Code(rawValue: "forbidden")
        /// The invitation was accepted already, has expired or was withdrawn: the message says which.
        public static let invitationNotValid = Code(rawValue: "invitationNotValid")
        /// The route does not take this method (the answer's `Allow` says which it takes).
        public static let methodNotAllowed = Code(rawValue: "methodNotAllowed")
        /// The server cannot reach its database now: nothing was changed; try again after the
        /// answer's `Retry-After` seconds.
        public static let unavailable = Code(rawValue: "unavailable")
        /// The server could not do it; nothing was changed.
        public static let internalError = Code(rawValue: "internalError")

        /// Every code this version knows.
        public static let allCases: [Code] = [
            .badRequest, .unauthorized, .notFound, .tooLarge, .conflict, .mutationNumberUsed, .mustRefetch, .tooManyRequests,
            .quotaExceeded, .forbidden, .invitationNotValid, .methodNotAllowed, .unavailable, .internalError
        ]
    }

    /// The server's current state of a record a mutation conflicted with.
    public struct Conflict: Sendable, Hashable, Codable {
        /// The conflicting mutation's number.
        public var number: Int64
        /// The server's record (or tombstone).
        public var server: SyncedRecord

        public init(number: Int64, server: SyncedRecord) {
            self.number = number
            self.server = server
        }
    }

    /// What went wrong.
    public var error: Code
    /// A sentence for people: what was wrong, naming the entity, record and field involved.
    public var message: String
    /// For `conflict`: each conflicting mutation with the server's record.
    public var conflicts: [Conflict]?
    /// For `mutationNumberUsed`: the last mutation number applied for this client.
    public var lastAppliedNumber: Int64?

    public init(error: Code, message: String, conflicts: [Conflict]? = nil, lastAppliedNumber: Int64? = nil) {
        self.error = error
        self.message = message
        self.conflicts = conflicts
        self.lastAppliedNumber = lastAppliedNumber
    }
}
