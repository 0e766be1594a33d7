package import Foundation

/// Time-ordered (version 7, RFC 9562) UUIDs for new objects.
///
/// Every inserted object gets a global ID, and every table keeps a unique index of them. Random IDs
/// would land anywhere in that index, so that each insert and each delete touches a different page;
/// IDs that grow with time keep the index in insertion order, like the rows. Each ID is the Unix time
/// in milliseconds, a 12-bit counter that keeps IDs of the same millisecond increasing in this
/// process, and 62 random bits.
///
/// On Linux, Foundation's `UUID()` opens, reads and closes `/dev/urandom` for each ID: three system
/// calls, more than the rest of an insert costs. The random bits come from 4 KiB read at a time from a
/// descriptor kept open, falling back to the standard library's system generator where the device
/// cannot be read.
package enum GlobalIDs {
    private static let pool = Locked(RandomPool())

    package static func next() -> UUID {
        pool.withLock { $0.nextUUID() }
    }

    /// The ID faults carry until their row is read.
    package static let placeholder = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
}

private struct RandomPool {
    private static let size = 4096
    private let source = FileHandle(forReadingAtPath: "/dev/urandom")
    private var bytes: [UInt8] = []
    private var offset = 0
    private var milliseconds: UInt64 = 0
    private var counter: UInt16 = 0

    package mutating func nextUUID() -> UUID {
        if offset + 16 > bytes.count { refill() }
        // One 16-byte load: copying through a rebased slice of the buffer cost about as much again
        // as the rest of making the ID.
        var uuid = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: uuid_t.self) }
        offset += 16
        let (milliseconds, counter) = nextTimestamp()
        uuid.0 = UInt8(truncatingIfNeeded: milliseconds >> 40)
        uuid.1 = UInt8(truncatingIfNeeded: milliseconds >> 32)
        uuid.2 = UInt8(truncatingIfNeeded: milliseconds >> 24)
        uuid.3 = UInt8(truncatingIfNeeded: milliseconds >> 16)
        uuid.4 = UInt8(truncatingIfNeeded: milliseconds >> 8)
        uuid.5 = UInt8(truncatingIfNeeded: milliseconds)
        uuid.6 = 0x70 | UInt8(counter >> 8)  // version 7
        uuid.7 = UInt8(truncatingIfNeeded: counter)
        uuid.8 = (uuid.8 & 0x3F) | 0x80  // RFC 9562 variant
        return UUID(uuid: uuid)
    }

    /// The time and counter of the next ID: the counter orders IDs of one millisecond, and when it
    /// runs out the time moves on a millisecond early.
    private mutating func nextTimestamp() -> (UInt64, UInt16) {
        let now = UInt64(max(0, Date().timeIntervalSince1970 * 1000))
        if now > milliseconds {
            milliseconds = now
            counter = 0
        } else if counter < 0xFFF {
            counter += 1
        } else {
            milliseconds += 1
            counter = 0
        }
        return (milliseconds, counter)
    }

    private mutating func refill() {
        offset = 0
        // Random bytes, not data: a source that cannot be read is replaced by the system's generator.
        if let data = try? source?.read(upToCount: Self.size), data.count == Self.size {
            bytes = [UInt8](data)
            return
        }
        var generator = SystemRandomNumberGenerator()
        bytes = (0..<Self.size / 8).flatMap { _ in withUnsafeBytes(of: generator.next()) { Array($0) } }
    }
}
