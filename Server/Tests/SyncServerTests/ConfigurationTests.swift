import AsyncHTTPClient
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import NIOSSL
import SyncServer
import Testing

@Suite("Configuration: TLS and CORS", .timeLimit(.minutes(5)))
struct ConfigurationTests {
    static let openssl = ["/usr/bin/openssl", "/usr/local/bin/openssl"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test(
        "With a certificate and key, the server speaks HTTPS; plain HTTP gets no answer",
        .enabled(if: openssl != nil, "openssl makes the test's certificate"))
    func tls() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("objectgraph-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificate = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        try await SpawnedProcess.run(
            URL(fileURLWithPath: try #require(Self.openssl)),
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "1",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"
            ])

        var server = try await SyncTestServer(.sqlite)
        server.configuration.tls = .init(certificateChain: certificate, privateKey: key)
        let token = try await server.addUser("alice")
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(certificate))
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls))
        try await server.serve { port in
            var request = HTTPClientRequest(url: "https://127.0.0.1:\(port)/v1/zones/moods/changes")
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
            let secure = try await client.execute(request, timeout: .seconds(30))
            #expect(secure.status == .ok)
            let plain = try? await HTTPClient.tests.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(port)/health"), timeout: .seconds(30))
            let status = plain?.status
            #expect(status != .ok)
        }
        try await client.shutdown()

        server.configuration.tls = .init(certificateChain: certificate, privateKey: directory.appendingPathComponent("none.pem").path)
        #expect(throws: SyncServerSetupError.self) { try SyncServer(configuration: server.configuration) }
    }

    @Test(
        "Web apps of the configured origins may call the API from a browser: preflights are answered, answers (errors too) carry the CORS headers; other origins get none"
    )
    func cors() async throws {
        var server = try await SyncTestServer(.sqlite)
        server.configuration.corsOrigins = ["https://app.example"]
        let token = try await server.addUser("alice")
        try await server.run { client in
            let preflight = try await client.client.execute(
                uri: "/v1/zones/moods/push", method: .options,
                headers: [
                    .origin: "https://app.example", .accessControlRequestMethod: "POST",
                    .accessControlRequestHeaders: "authorization, content-type"
                ], body: nil)
            #expect(preflight.status == .noContent)
            #expect(preflight.headers[.accessControlAllowOrigin] == "https://app.example")
            #expect(preflight.headers[.accessControlAllowMethods]?.contains("POST") == true)
            #expect(preflight.headers[.accessControlAllowHeaders]?.contains("Authorization") == true)

            for bearer in [token, "ogs_wrong"] {
                let answer = try await client.client.execute(
                    uri: "/v1/zones/moods/changes", method: .get,
                    headers: [.origin: "https://app.example", .authorization: "Bearer \(bearer)"], body: nil)
                #expect(answer.headers[.accessControlAllowOrigin] == "https://app.example", "\(answer.status)")
                #expect(answer.headers[.accessControlExposeHeaders]?.contains("X-Request-ID") == true)
            }
            let elsewhere = try await client.client.execute(
                uri: "/v1/zones/moods/changes", method: .get, headers: [.origin: "https://evil.example", .authorization: "Bearer \(token)"],
                body: nil)
            #expect(elsewhere.headers[.accessControlAllowOrigin] == nil)
            let otherPreflight = try await client.client.execute(
                uri: "/v1/zones/moods/push", method: .options,
                headers: [.origin: "https://evil.example", .accessControlRequestMethod: "POST"], body: nil)
            #expect(otherPreflight.headers[.accessControlAllowOrigin] == nil)
        }
        // `*` allows every origin that is one: never `null` (sandboxed frames, files, redirects).
        var open = try await SyncTestServer(.sqlite)
        open.configuration.corsOrigins = ["*"]
        try await open.run { client in
            let real = try await client.client.execute(
                uri: "/health", method: .get, headers: [.origin: "https://anywhere.example"], body: nil)
            #expect(real.headers[.accessControlAllowOrigin] == "https://anywhere.example")
            let null = try await client.client.execute(uri: "/health", method: .get, headers: [.origin: "null"], body: nil)
            #expect(null.headers[.accessControlAllowOrigin] == nil, "null is no origin to echo")
        }
        // Without origins, no CORS at all: OPTIONS is a method the routes do not take.
        let plain = try await SyncTestServer(.sqlite)
        try await plain.run { client in
            let preflight: TestResponse = try await client.client.execute(
                uri: "/v1/zones/moods/push", method: .options,
                headers: [.origin: "https://app.example", .accessControlRequestMethod: "POST"],
                body: nil)
            #expect(preflight.status == .methodNotAllowed)
        }
    }
}

@Suite("Configuration: the limits of serve", .timeLimit(.minutes(5)))
struct ServeOptionTests {
    @Test(
        "serve refuses limits that cannot hold, naming the option: reserved connections not below the maximum, negative quotas",
        arguments: [
            (["--max-connections", "10", "--reserved-connections", "10"], "--reserved-connections"),
            (["--max-zones-per-user=-1"], "Quotas are 0"),
            (["--live-streams-per-token", "0"], "--live-streams-per-token"),
            (["--pushes-applied-at-once-per-user", "0"], "--pushes-applied-at-once-per-user")
        ])
    func refusedLimits(_ arguments: [String], _ message: String) async throws {
        // A database that cannot be opened: were an option let through, serve would fail on it
        // (with another message) instead of serving for ever.
        let database = "/nonexistent-\(UUID().uuidString)/server.sqlite"
        do {
            _ = try await ServerProcess.run(["serve", "--database", database, "--port", "0"] + arguments)
            Issue.record("serve \(arguments) started")
        } catch let failure as TestFailure {
            #expect(failure.description.contains(message), "\(failure)")
        }
    }
}
