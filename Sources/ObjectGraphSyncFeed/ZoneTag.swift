public import ObjectGraphSyncProtocol

/// The tag a zone's cursors carry (see `FeedCursor`): a mix of the zone's key in the database,
/// so that a cursor sent to another zone is told apart. Not a secret: a user reaches only their
/// own zones whatever the cursor says.
public enum ZoneTag {
    /// The tag of the zone whose key is `zoneID`.
    public static func of(zoneID: Int64) -> UInt32 {
        // SplitMix64's finalizer: neighbouring keys give unrelated tags.
        var z = UInt64(bitPattern: zoneID) &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return UInt32(truncatingIfNeeded: z ^ (z >> 31))
    }
}

extension FeedCursor {
    /// A cursor of the zone whose key is `zoneID`.
    public init(position: Int64, zoneID: Int64) {
        self.init(position: position, zoneTag: ZoneTag.of(zoneID: zoneID))
    }
}
