import Foundation
import NIOCore

/// A range of IP addresses, written as CIDR: `10.0.0.0/8`, `2001:db8::/32`, or one address
/// (`127.0.0.1` is `127.0.0.1/32`).
public struct AddressRange: Sendable, Hashable, CustomStringConvertible {
    /// The range's first address, in network order (4 bytes for IPv4, 16 for IPv6).
    private let bytes: [UInt8]
    /// How many leading bits an address shares with `bytes` to be in the range.
    private let prefixLength: Int

    /// The range `text` writes; nil when it is not an address, or a prefix longer than its
    /// address has bits.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let bytes = Self.bytes(of: String(parts[0])) else { return nil }
        let bits = bytes.count * 8
        guard let prefix = parts.count == 2 ? Int(parts[1]) : bits, (0...bits).contains(prefix) else { return nil }
        self.bytes = bytes
        self.prefixLength = prefix
    }

    /// Whether `address` (IPv4 or IPv6 text) is in the range; an IPv4 address is never in an
    /// IPv6 range, nor the other way round, but an IPv4 address mapped into IPv6 counts as IPv4.
    public func contains(_ address: String) -> Bool {
        guard let other = Self.bytes(of: address), other.count == bytes.count else { return false }
        var remaining = prefixLength
        for (mine, theirs) in zip(bytes, other) where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            guard mine & mask == theirs & mask else { return false }
            remaining -= 8
        }
        return true
    }

    public var description: String {
        let address = (try? SocketAddress(packedIPAddress: ByteBuffer(bytes: bytes), port: 0))?.ipAddress ?? "?"
        return "\(address)/\(prefixLength)"
    }

    /// The address's bytes in network order; nil for text that is not an IP address. An IPv4
    /// address mapped into IPv6 (`::ffff:10.0.0.1`, as a dual-stack socket reports an IPv4 peer)
    /// is its IPv4 address.
    private static func bytes(of text: String) -> [UInt8]? {
        guard let address = try? SocketAddress(ipAddress: text, port: 0) else { return nil }
        switch address {
        case .v4(let v4): return withUnsafeBytes(of: v4.address.sin_addr) { Array($0) }
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            let isMappedIPv4 = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
            return isMappedIPv4 ? Array(bytes[12...]) : bytes
        case .unixDomainSocket: return nil
        }
    }
}

/// The client a request comes from, as the limits per address count it.
public enum ClientAddress {
    /// The client's address: the peer's; or, when the peer is a trusted proxy, the nearest address
    /// the proxies say they forwarded for that is not a trusted proxy itself (read from the right
    /// of `X-Forwarded-For`, or of `Forwarded`'s `for=` values, RFC 7239). A header sent by a peer
    /// that is no trusted proxy is ignored: anyone can write one.
    public static func of(peer: String?, forwardedFor: [String], forwarded: [String], trusting proxies: [AddressRange]) -> String {
        guard let peer else { return "unknown" }
        guard proxies.contains(where: { $0.contains(peer) }) else { return peer }
        let hops =
            forwardedFor.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
            + forwarded.flatMap(Self.forValues)
        for hop in hops.reversed() where !proxies.contains(where: { $0.contains(hop) }) {
            return AddressRange(hop) != nil ? hop : peer  // an obfuscated or unknown node names no address
        }
        return hops.first ?? peer
    }

    /// The addresses of a `Forwarded` header's `for=` parameters, without quotes, brackets or port.
    private static func forValues(_ header: String) -> [String] {
        header.split(separator: ",").compactMap { element in
            for pair in element.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "for" else { continue }
                var value = parts[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                if value.hasPrefix("["), let end = value.firstIndex(of: "]") {
                    value = String(value[value.index(after: value.startIndex)..<end])  // [IPv6]:port
                } else if value.filter({ $0 == ":" }).count == 1, let colon = value.firstIndex(of: ":") {
                    value = String(value[..<colon])  // IPv4:port
                }
                return value
            }
            return nil
        }
    }
}
