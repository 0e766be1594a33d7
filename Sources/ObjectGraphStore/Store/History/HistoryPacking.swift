package import Foundation
package import ObjectGraphModel

/// How a history record packs the objects it names (see ``HistoryTables``): their keys as runs,
/// their global IDs side by side, in the same order.
///
/// Keys: each run of consecutive ascending keys is two unsigned LEB128 varints, the zigzag-encoded
/// difference between its first key and the previous run's last one (from 0 for the first run),
/// then its length less one. The rows a save inserts are one run whatever their number (a few
/// bytes); scattered keys take two to four bytes each. Arithmetic wraps, so every `Int64` packs.
///
/// Global IDs: 16 bytes each, as ``UUID/storedValue`` stores them.
package enum HistoryPacking {
    /// The keys packed, in their order.
    package static func packKeys(_ keys: some Collection<Int64>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(4)
        var previous: Int64 = 0
        var iterator = keys.makeIterator()
        guard var start = iterator.next() else { return bytes }
        var last = start
        func appendRun() {
            appendVarint(zigzag(start &- previous), to: &bytes)
            appendVarint(UInt64(bitPattern: last &- start), to: &bytes)
            previous = last
        }
        while let key = iterator.next() {
            if key == last &+ 1 && key > last {
                last = key
            } else {
                appendRun()
                (start, last) = (key, key)
            }
        }
        appendRun()
        return bytes
    }

    /// The keys packed in `bytes`, which must be `count` of them.
    ///
    /// - Throws: ``StoreError`` (`corrupt`) when the bytes are not such keys.
    package static func unpackKeys(_ bytes: UnsafeRawBufferPointer, count: Int) throws -> [Int64] {
        var keys: [Int64] = []
        keys.reserveCapacity(max(0, min(count, bytes.count * 64)))
        var offset = 0
        var previous: Int64 = 0
        while offset < bytes.count {
            let start = previous &+ unzigzag(try readVarint(bytes, &offset))
            let extra = try readVarint(bytes, &offset)
            guard extra < UInt64(count), keys.count + Int(extra) < count else { throw corrupt("more keys than the record counts") }
            for step in 0...Int64(extra) { keys.append(start &+ step) }
            previous = start &+ Int64(extra)
        }
        guard keys.count == count else { throw corrupt("\(keys.count) keys where the record counts \(count)") }
        return keys
    }

    /// The global ID at `index` of packed global IDs.
    package static func globalID(in bytes: UnsafeRawBufferPointer, at index: Int) -> UUID {
        // The caller checked that the bytes hold 16 per key (see `HistoryRecordRow`).
        assert(bytes.count >= (index + 1) * 16, "a packed global ID is 16 bytes")
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[index * 16..<(index + 1) * 16]))
        }
        return UUID(uuid: uuid)
    }

    /// Appends a global ID's 16 bytes.
    package static func append(_ globalID: UUID, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: globalID.uuid) { bytes.append(contentsOf: $0) }
    }

    /// A store error for history bytes this version did not write.
    package static func corrupt(_ message: String) -> StoreError {
        StoreError(resultCode: .corrupt, message: "history: " + message)
    }

    private static func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }

    private static func unzigzag(_ value: UInt64) -> Int64 {
        Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
    }

    private static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    private static func readVarint(_ bytes: UnsafeRawBufferPointer, _ offset: inout Int) throws -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.count {
            let byte = bytes[offset]
            offset += 1
            // The tenth byte of a 64-bit varint holds its last bit; more is not a varint.
            guard shift < 64, shift < 63 || byte <= 1 else { break }
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
        throw corrupt("a packed key ends early")
    }
}
