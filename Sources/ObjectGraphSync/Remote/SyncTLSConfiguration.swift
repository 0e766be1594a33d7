public import Foundation
import NIOSSL

/// How ``HTTPSyncRemote`` secures its connections: which certificate authorities it trusts, and
/// the certificate it presents, when a server asks for one.
///
/// A server run with a certificate from a private authority (a company's, or one made for a test)
/// is trusted by naming that authority:
///
/// ```swift
/// let tls = try SyncTLSConfiguration(trusting: Data(contentsOf: URL(fileURLWithPath: "ca.pem")))
/// let remote = HTTPSyncRemote(url: URL(string: "https://sync.internal:8443")!, token: token, tls: tls)
/// ```
///
/// The certificates are read when the configuration is made, so that a file that is not one fails
/// there, naming it, rather than at the first request.
public struct SyncTLSConfiguration: Sendable {
    let trustRoots: [NIOSSLCertificate]
    let trustsSystemAuthorities: Bool
    let certificateChain: [NIOSSLCertificate]
    let privateKey: NIOSSLPrivateKey?

    /// A configuration trusting the authorities of `certificateAuthorities` (PEM, one or more
    /// certificates each), and the system's too unless `trustingSystemAuthorities` is false;
    /// presenting `clientCertificateChain` (PEM, the certificate first) with `clientPrivateKey`
    /// (PEM) to a server that asks for a client certificate.
    ///
    /// - Throws: ``SyncError`` (``SyncError/Code/invalidConfiguration``) when a certificate or the key
    ///   is not PEM, or only one of the client's certificate and key is given.
    public init(
        trusting certificateAuthorities: [Data] = [], trustingSystemAuthorities: Bool = true,
        clientCertificateChain: Data? = nil, clientPrivateKey: Data? = nil
    ) throws {
        func failure(_ reason: String) -> SyncError { .invalidConfiguration(entity: "SyncTLSConfiguration", reason: reason) }
        do {
            trustRoots = try certificateAuthorities.flatMap { try NIOSSLCertificate.fromPEMBytes(Array($0)) }
        } catch {
            throw failure("a trusted authority is not a PEM certificate: \(error)")
        }
        if !certificateAuthorities.isEmpty && trustRoots.isEmpty {
            throw failure("the trusted authorities hold no certificate")
        }
        trustsSystemAuthorities = trustingSystemAuthorities
        switch (clientCertificateChain, clientPrivateKey) {
        case (nil, nil):
            certificateChain = []
            privateKey = nil
        case let (chain?, key?):
            do {
                certificateChain = try NIOSSLCertificate.fromPEMBytes(Array(chain))
            } catch {
                throw failure("the client's certificate chain is not PEM: \(error)")
            }
            do {
                privateKey = try NIOSSLPrivateKey(bytes: Array(key), format: .pem)
            } catch {
                throw failure("the client's private key is not PEM: \(error)")
            }
        default:
            throw failure("a client certificate needs its private key, and a key its certificate")
        }
    }

    /// A configuration trusting one authority (PEM): its certificate, read from `data`.
    ///
    /// - Throws: ``SyncError`` (``SyncError/Code/invalidConfiguration``) when it is not one.
    public init(trusting certificateAuthority: Data) throws {
        try self.init(trusting: [certificateAuthority])
    }

    /// NIOSSL's configuration of a client.
    var clientConfiguration: TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if !trustRoots.isEmpty {
            if trustsSystemAuthorities {
                configuration.additionalTrustRoots = [.certificates(trustRoots)]
            } else {
                configuration.trustRoots = .certificates(trustRoots)
            }
        }
        if let privateKey {
            configuration.certificateChain = certificateChain.map { .certificate($0) }
            configuration.privateKey = .privateKey(privateKey)
        }
        return configuration
    }
}
