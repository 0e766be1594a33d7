public import Foundation

/// An object's values as its state keeps them: 16 bytes each, and a byte per value saying what it
/// holds.
///
/// A ``StoredValue`` takes 24 bytes in an array: its integer and real cases leave no spare bits
/// for the case's tag, so Swift adds a byte, and the stride rounds it up to 24. Every fetched object
/// holds one per attribute and to-one relationship; with the tags kept apart, six values take 104
/// bytes rather than 144.
///
/// A view of memory its ``ObjectState`` owns (the tail after the header, laid out by
/// ``StateStorageLayout``); it neither allocates nor frees. Its invariant: each value's kind byte
/// says what its 16 bytes hold, an `Int64`, a `Double`, an initialized `String` or `Data`, or
/// nothing (null). Every access goes through the methods below, which keep it; debug builds check
/// the kind byte at every read.
@usableFromInline
package struct PackedValues {
    /// The kind bytes, one per value, from the start of the state's tail.
    @usableFromInline package let base: UnsafeMutableRawPointer
    /// The 16 bytes of value 0; value `n` follows at `16 * n`.
    @usableFromInline package let payloads: UnsafeMutableRawPointer

    @usableFromInline package static let null: UInt8 = 0
    @usableFromInline package static let integer: UInt8 = 1
    @usableFromInline package static let real: UInt8 = 2
    @usableFromInline package static let text: UInt8 = 3
    @usableFromInline package static let blob: UInt8 = 4

    @inlinable @inline(__always)
    package init(tail: UnsafeMutablePointer<UInt64>, payloadOffset: Int) {
        base = UnsafeMutableRawPointer(tail)
        payloads = base + payloadOffset
    }

    @inlinable @inline(__always)
    package func kind(at position: Int) -> UInt8 {
        base.load(fromByteOffset: position, as: UInt8.self)
    }

    /// A copy of the value at a position.
    @inlinable @inline(__always)
    package subscript(position: Int) -> StoredValue {
        let payload = payloads + position &* 16
        switch kind(at: position) {
        case Self.integer: return .integer(payload.load(as: Int64.self))
        case Self.real: return .real(payload.load(as: Double.self))
        case Self.text: return .text(payload.assumingMemoryBound(to: String.self).pointee)
        case Self.blob: return .blob(payload.assumingMemoryBound(to: Data.self).pointee)
        default:
            assert(kind(at: position) == Self.null, "value \(position) has no kind \(kind(at: position))")
            return .null
        }
    }

    /// Stores a value at a position that holds none (fresh memory, or after ``deinitialize(at:)``).
    @inline(__always)
    @inlinable package func initialize(at position: Int, to value: StoredValue) {
        let payload = payloads + position &* 16
        switch value {
        case .null:
            setKind(Self.null, at: position)
        case .integer(let integer):
            payload.storeBytes(of: integer, as: Int64.self)
            setKind(Self.integer, at: position)
        case .real(let real):
            payload.storeBytes(of: real, as: Double.self)
            setKind(Self.real, at: position)
        case .text(let text):
            payload.bindMemory(to: String.self, capacity: 1).initialize(to: text)
            setKind(Self.text, at: position)
        case .blob(let data):
            payload.bindMemory(to: Data.self, capacity: 1).initialize(to: data)
            setKind(Self.blob, at: position)
        }
    }

    /// Ends the value at a position: a text or blob is released; the position then holds nothing
    /// until ``initialize(at:to:)``.
    @inline(__always)
    @inlinable package func deinitialize(at position: Int) {
        let payload = payloads + position &* 16
        switch kind(at: position) {
        case Self.text: payload.assumingMemoryBound(to: String.self).deinitialize(count: 1)
        case Self.blob: payload.assumingMemoryBound(to: Data.self).deinitialize(count: 1)
        default: break
        }
    }

    /// Replaces the value at a position.
    @inline(__always)
    @inlinable package func assign(_ value: StoredValue, at position: Int) {
        deinitialize(at: position)
        initialize(at: position, to: value)
    }

    @inline(__always)
    @usableFromInline package func setKind(_ kind: UInt8, at position: Int) {
        base.storeBytes(of: kind, toByteOffset: position, as: UInt8.self)
    }
}

/// How an ``ObjectState``'s tail is laid out, in 8-byte words: the kind bytes of its values
/// (rounded up to whole words), then the to-many relationships' array when the entity has any,
/// then 16 bytes per value (see ``PackedValues``). An entity without to-many relationships keeps no
/// word for them.
@usableFromInline package struct StateStorageLayout: Sendable {
    /// Attributes, then to-one relationships.
    @usableFromInline package let valueCount: Int
    /// Where the to-many relationships' array is, in bytes from the tail's start; nil when the
    /// entity has none.
    @usableFromInline package let toManyOffset: Int?
    /// Where the values' payloads start, in bytes from the tail's start.
    @usableFromInline package let payloadOffset: Int
    /// The tail's size in words.
    @usableFromInline package let words: Int

    package init(valueCount: Int, hasToMany: Bool) {
        self.valueCount = valueCount
        let kindWords = (valueCount + 7) / 8
        toManyOffset = hasToMany ? kindWords * 8 : nil
        payloadOffset = (kindWords + (hasToMany ? 1 : 0)) * 8
        words = payloadOffset / 8 + 2 * valueCount
    }
}
