import Foundation
import ObjectGraph

/// The record ID of a many-to-many link: the same on every device for the same two objects and
/// relationship, so that two devices adding the same member make one record, and a removal names
/// the record an addition made.
///
/// Two 64-bit FNV-1a hashes of the link's record type and the two global IDs, with different
/// offsets, laid out as a version 8 (RFC 9562, custom) UUID: deterministic across processes and
/// platforms (Swift's `Hasher` is seeded per process), and 122 bits make collisions a non-issue.
enum LinkID {
    static func make(recordType: String, source: UUID, target: UUID) -> UUID {
        var bytes = Array(recordType.utf8)
        withUnsafeBytes(of: source.uuid) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: target.uuid) { bytes.append(contentsOf: $0) }
        let high = fnv1a(bytes, offset: 0xcbf2_9ce4_8422_2325)
        let low = fnv1a(bytes, offset: 0x8422_2325_cbf2_9ce4)
        var uuid = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            uuid[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * index))
            uuid[8 + index] = UInt8(truncatingIfNeeded: low >> (56 - 8 * index))
        }
        uuid[6] = 0x80 | (uuid[6] & 0x0F)  // version 8
        uuid[8] = 0x80 | (uuid[8] & 0x3F)  // RFC 9562 variant
        return UUID(
            uuid: (
                uuid[0], uuid[1], uuid[2], uuid[3], uuid[4], uuid[5], uuid[6], uuid[7],
                uuid[8], uuid[9], uuid[10], uuid[11], uuid[12], uuid[13], uuid[14], uuid[15]
            ))
    }

    private static func fnv1a(_ bytes: [UInt8], offset: UInt64) -> UInt64 {
        var hash = offset
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}

extension LinkID {
    /// The ID of the link between `owner`, an object at `side` of the link, and `member`, an
    /// object of its list: the owner is the source or the target as `side` says.
    static func make(recordType: String, owner: any Entity, member: any Entity, side: RecordShape.LinkSide) -> UUID {
        side == .source
            ? make(recordType: recordType, source: owner.objectGlobalID, target: member.objectGlobalID)
            : make(recordType: recordType, source: member.objectGlobalID, target: owner.objectGlobalID)
    }
}
