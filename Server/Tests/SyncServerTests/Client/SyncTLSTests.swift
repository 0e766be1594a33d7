import Foundation
import MoodyModel
import ObjectGraph
import ObjectGraphSync
import Testing

@Suite("Sync client: TLS to a server whose certificate comes from a private authority", .timeLimit(.minutes(5)))
struct SyncTLSTests {
    /// Runs openssl with `arguments`, in `directory`.
    static func openssl(_ arguments: [String], in directory: URL) async throws {
        try await SpawnedProcess.run(
            URL(fileURLWithPath: try #require(ConfigurationTests.openssl)), arguments, directory: directory)
    }

    /// A certificate authority made for the test, and a certificate it signed for 127.0.0.1.
    static func makeAuthorityAndServerCertificate(in directory: URL) async throws {
        try await openssl(
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "1", "-subj",
                "/CN=ObjectGraph Test CA", "-addext", "basicConstraints=critical,CA:TRUE", "-addext",
                "keyUsage=critical,keyCertSign,cRLSign"
            ], in: directory)
        try await openssl(
            ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1"], in: directory
        )
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\n".write(
            to: directory.appendingPathComponent("server.ext"), atomically: true, encoding: .utf8)
        try await openssl(
            [
                "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.pem", "-days",
                "1",
                "-extfile", "server.ext"
            ], in: directory)
    }

    @Test(
        "A remote given the private authority syncs with a server run with --tls-certificate; one without it is refused as unreachable, naming the certificate; a file that is not PEM is refused when the configuration is made",
        .enabled(if: ConfigurationTests.openssl != nil, "openssl makes the test's authority"))
    func privateAuthority() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("objectgraph-sync-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await Self.makeAuthorityAndServerCertificate(in: directory)
        let authority = try Data(contentsOf: directory.appendingPathComponent("ca.pem"))

        var server = try await SyncTestServer(.sqlite)
        server.configuration.tls = .init(
            certificateChain: directory.appendingPathComponent("server.pem").path,
            privateKey: directory.appendingPathComponent("server.key").path)
        let token = try await server.addUser("alice")
        try await server.serve { port in
            let url = try #require(URL(string: "https://127.0.0.1:\(port)"))
            let container = try ObjectContainer(schema: MoodyStore.schema(), configuration: .file(SyncDevice.newStorePath()))
            let context = container.newBackgroundContext()
            context.insert(Mood(text: "over TLS"))
            try context.save()

            let untrusting = try SyncCoordinator(
                container: container, remote: HTTPSyncRemote(url: url, token: token), syncing: MoodyStore.syncedTypes)
            do {
                try await untrusting.syncNow()
                Issue.record("a certificate of an unknown authority was trusted")
            } catch let error as SyncError where error.code == .unreachable {
                let reason = error.reason ?? ""
                #expect(reason.lowercased().contains("certificate") || reason.contains("handshake"), "\(reason)")
            }

            let trusting = try SyncCoordinator(
                container: container, remote: HTTPSyncRemote(url: url, token: token, tls: SyncTLSConfiguration(trusting: authority)),
                syncing: MoodyStore.syncedTypes)
            try await trusting.syncNow()
            #expect(trusting.status.current.pendingChanges == 0 && trusting.status.current.lastError == nil)
        }

        #expect(throws: SyncError.self) { try SyncTLSConfiguration(trusting: Data("not a certificate".utf8)) }
        #expect(throws: SyncError.self) { try SyncTLSConfiguration(clientCertificateChain: authority) }
    }
}
