import Crypto
import Foundation

/// A bearer token: 32 random bytes, shown once to the person who creates it; the server keeps
/// only its SHA-256 digest, so a copy of the database does not let anyone in.
public struct AccessToken: Sendable, Hashable, CustomStringConvertible {
    /// The token's ID: what `user list` shows and `token revoke` takes (not a secret).
    public let id: Int64
    /// The token as a client sends it (`Authorization: Bearer <token>`).
    public let text: String

    init(id: Int64, text: String) {
        self.id = id
        self.text = text
    }

    public var description: String { text }

    /// A new random secret: a token (`ogs_`), or an invitation's code (`ogi_`).
    static func newSecret(prefix: String = "ogs_") -> String {
        var generator = SystemRandomNumberGenerator()  // the system's cryptographic generator
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let encoded = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return prefix + encoded
    }

    /// What the database stores and looks tokens up by.
    static func digest(of text: String) -> Data {
        Data(SHA256.hash(data: Data(text.utf8)))
    }

    /// Whether `given` is `expected`, in a time that tells nothing of where they differ: their
    /// digests (of one length whatever the texts') are compared byte by byte, every byte read.
    static func matches(_ given: String, _ expected: String) -> Bool {
        zip(digest(of: given), digest(of: expected)).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
