import ObjectGraphSyncFeed

/// What one user may keep on the server. A push that would take a user past a quota is refused
/// with 403 `quotaExceeded` and changes nothing; the user's other requests go on.
///
/// `user list` shows each user's use. A user over a quota (the quota lowered, say) may still push
/// deletions; the bytes they free come back when the tombstone horizon purges what they replaced.
public struct Quotas: Sendable, Hashable {
    /// The zones one user may have; nil for no quota. A push that would create one more is refused.
    public var zonesPerUser: Int?
    /// The bytes one user's zones may hold: each entry of their feeds counts its fields and their
    /// versions as stored (JSON, UTF-8) and ``entryOverhead`` for the rest of its row. Nil for no
    /// quota. Superseded entries and tombstones count until the horizon purges them.
    public var storedBytesPerUser: Int64?

    /// What an entry costs beyond its fields' JSON: its keys, version, positions and dates.
    public static let entryOverhead = 64

    public init(zonesPerUser: Int? = 1_000, storedBytesPerUser: Int64? = 1 << 30) {
        self.zonesPerUser = zonesPerUser
        self.storedBytesPerUser = storedBytesPerUser
    }
}

extension Quotas {
    /// The bytes entries take, as ``storedBytesPerUser`` counts them.
    static func storedBytes(of entries: some Sequence<FeedEntry>) -> Int64 {
        entries.reduce(0) { $0 + Int64($1.fieldsJSON.utf8.count + $1.fieldVersionsJSON.utf8.count + entryOverhead) }
    }

    /// Refuses zone `zone` to a user who would have `zones` with it.
    func checkZones(_ zones: Int, adding zone: String, user: SyncUser) throws(SyncRefusal) {
        guard let limit = zonesPerUser, zones > limit else { return }
        throw .quotaExceeded(
            "User \(user.name.debugDescription) has \(limit) zones, the most this server allows one user: zone \"\(zone)\" "
                + "was not created and nothing was applied.")
    }

    /// Refuses a push of `plan`, whose entries take `added` bytes, that would take its user from
    /// `used` bytes past the stored bytes quota; a push of deletions alone is never refused, so
    /// that a user can always free space.
    func checkStoredBytes(_ used: Int64, adding added: Int64, of plan: PushPlan, zone: String, user: SyncUser) throws(SyncRefusal) {
        guard let limit = storedBytesPerUser, used + added > limit, !plan.entries.allSatisfy(\.state.deleted) else { return }
        throw .quotaExceeded(
            "User \(user.name.debugDescription) keeps \(used) bytes, and this push to zone \"\(zone)\" adds \(added): "
                + "more than the \(limit) bytes this server allows one user. Nothing was applied.")
    }
}
