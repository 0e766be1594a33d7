public import Foundation

/// The body of `POST /v1/zones/{zone}/push`: a batch of mutations the server applies in one
/// transaction, all or nothing.
public struct PushRequest: Sendable, Hashable, Codable {
    /// The pushing client's identifier (one per device and store), stable across launches.
    public var clientID: UUID
    /// The mutations, in increasing `number` order.
    public var mutations: [Mutation]

    public init(clientID: UUID, mutations: [Mutation]) {
        self.clientID = clientID
        self.mutations = mutations
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case clientID, mutations
    }

    public init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        clientID = try container.decode(UUID.self, forKey: .clientID)
        mutations = try container.decode([Mutation].self, forKey: .mutations)
    }
}

/// The answer to a push that was applied: each record's new version, and the feed position the
/// batch reached.
///
/// A replay of the same batch (same client, same mutation numbers) answers this same value again
/// and changes nothing, so a client that lost the first answer can simply send the batch again.
public struct PushResult: Sendable, Hashable, Codable {
    /// One result per mutation, in the batch's order.
    public struct Applied: Sendable, Hashable, Codable {
        /// The mutation's number.
        public var number: Int64
        /// The record's identifier.
        public var id: UUID
        /// The record's version after the mutation.
        public var version: Int64

        public init(number: Int64, id: UUID, version: Int64) {
            self.number = number
            self.id = id
            self.version = version
        }
    }

    /// The results, one per mutation.
    public var applied: [Applied]
    /// The zone's feed position once the batch was applied: the batch's changes are at or before it.
    public var cursor: FeedCursor

    public init(applied: [Applied], cursor: FeedCursor) {
        self.applied = applied
        self.cursor = cursor
    }
}
