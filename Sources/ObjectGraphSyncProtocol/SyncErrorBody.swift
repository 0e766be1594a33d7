import Foundation

/// The body of every error answer: a code a program can switch on, and a message for people.
public struct SyncErrorBody: Sendable, Hashable, Codable {
    /// What went wrong, for a program.
    public enum Code: String, Sendable, Hashable, Codable, CaseIterable {
        /// The request is malformed: bad JSON, a wrong type, an unknown key, an invalid value.
        case badRequest
        /// No valid bearer token.
        case unauthorized
        /// No such route, or a mutation updates or deletes a record the zone does not hold.
        case notFound
        /// The body, the batch or a record is over the server's limits.
        case tooLarge
        /// A mutation was made from a version that is no longer current: see `conflicts`.
        case conflict
        /// The batch reuses mutation numbers of this client that the server has already applied,
        /// and is not a replay of the last batch.
        case mutationNumberUsed
        /// The cursor is older than the zone's tombstone horizon: drop what was synced and read
        /// the zone again from the start.
        case mustRefetch
        /// The user, or the address, is over the server's request rate or concurrent pushes:
        /// nothing was done; try again after the answer's `Retry-After` seconds.
        case tooManyRequests
        /// The route does not take this method (the answer's `Allow` says which it takes).
        case methodNotAllowed
        /// The server cannot reach its database now: nothing was changed; try again after the
        /// answer's `Retry-After` seconds.
        case unavailable
        /// The server could not do it; nothing was changed.
        case internalError
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
