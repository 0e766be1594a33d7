import Foundation

/// Random (version 4) UUIDs for new objects, drawn from the system's randomness in bulk.
///
/// Every inserted object gets a global ID. On Linux, Foundation's `UUID()` opens, reads and closes
/// `/dev/urandom` for each one: three system calls, more than the rest of an insert costs. This reads
/// 4 KiB (256 IDs) at a time from a descriptor kept open, falling back to the standard library's
/// system generator where the device cannot be read.
enum GlobalIDs {
    private static let pool = Locked(RandomPool())

    static func next() -> UUID {
        pool.withLock { $0.nextUUID() }
    }

    /// The ID faults carry until their row is read.
    static let placeholder = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
}

private struct RandomPool {
    private static let size = 4096
    private let source = FileHandle(forReadingAtPath: "/dev/urandom")
    private var bytes: [UInt8] = []
    private var offset = 0

    mutating func nextUUID() -> UUID {
        if offset + 16 > bytes.count { refill() }
        defer { offset += 16 }
        return bytes.withUnsafeBufferPointer { buffer in
            var uuid = GlobalIDs.placeholder.uuid
            withUnsafeMutableBytes(of: &uuid) { target in
                target.copyMemory(from: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: buffer[offset..<offset + 16])))
            }
            uuid.6 = (uuid.6 & 0x0F) | 0x40  // version 4
            uuid.8 = (uuid.8 & 0x3F) | 0x80  // RFC 4122 variant
            return UUID(uuid: uuid)
        }
    }

    private mutating func refill() {
        offset = 0
        if let data = try? source?.read(upToCount: Self.size), data.count == Self.size {
            bytes = [UInt8](data)
            return
        }
        var generator = SystemRandomNumberGenerator()
        bytes = (0..<Self.size / 8).flatMap { _ in withUnsafeBytes(of: generator.next()) { Array($0) } }
    }
}
