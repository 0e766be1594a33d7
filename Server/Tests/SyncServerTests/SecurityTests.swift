import AsyncHTTPClient
import Foundation
import GRDB
import HTTPTypes
import NIOCore
import NIOFoundationCompat
import ObjectGraphSync
import ObjectGraphSyncFeed
import ObjectGraphSyncProtocol
import PostgresNIO
import SyncServer
import Testing

@Suite("Security: authentication, isolation between users, bad input", .timeLimit(.minutes(5)))
struct SecurityTests {
    let device = UUID()

    @Test("Every route under /v1 answers 401 without a valid token, and reads or changes nothing", arguments: Backend.available)
    func everyRouteNeedsAToken(_ backend: Backend) async throws {
        let server = try await SyncTestServer(backend)
        let token = try await server.addUser("alice")
        try await server.run { client in
            try await client.pushApplied(
                "moods", PushRequest(device, .upsert(1, entity: "Mood", id: UUID(), fields: ["text": .string("Fine")])),
                token: token)
            let push =
                #"{"clientID":"\#(UUID().uuidString)","mutations":[{"number":2,"operation":"upsert","entity":"Mood","id":"\#(UUID().uuidString)","fields":{}}]}"#
            let routes: [(HTTPRequest.Method, String, String?)] = [
                (.post, "/v1/zones/moods/push", push),
                (.get, "/v1/zones/moods/changes", nil),
                (.get, "/v1/zones/moods/live", nil)
            ]
            // No token, an empty one, a made-up one, Alice's with its last letter changed, or longer.
            let badTokens: [String?] = [
                nil, "", "ogs_notAToken", String(token.dropLast()) + (token.hasSuffix("B") ? "C" : "B"), token + "x"
            ]
            for (method, uri, body) in routes {
                for bad in badTokens {
                    let response = try await client.request(method, uri, token: bad, body: body)
                    #expect(response.status == .unauthorized, "\(method) \(uri) with token \(bad ?? "none")")
                    #expect(response.error?.error == .unauthorized)
                    #expect(response.error?.message.isEmpty == false)
                }
                // A token sent as another scheme is no bearer token either.
                let basic = try await client.client.execute(
                    uri: uri, method: method, headers: [.authorization: "Basic \(token)"], body: nil)
                #expect(basic.status == .unauthorized)
            }
            #expect(try await client.allChanges("moods", token: token).changes.count == 1, "nothing was pushed")
        }
    }

    @Test(
        "A user reaches only their own zones: another user's records can be neither read, changed nor deleted", arguments: Backend.available
    )
    func usersAreIsolated(_ backend: Backend) async throws {
        let server = try await SyncTestServer(backend)
        let alice = try await server.addUser("alice")
        let bob = try await server.addUser("bob")
        let secret = UUID()
        try await server.run { client in
            try await client.pushApplied(
                "moods", PushRequest(device, .upsert(1, entity: "Mood", id: secret, fields: ["text": .string("Private")])),
                token: alice)
            let before = try await client.allChanges("moods", token: alice)

            // Bob's "moods" is his own zone: none of Alice's records are in it.
            #expect(try await client.allChanges("moods", token: bob).changes.isEmpty)
            #expect(try await client.changes("moods", since: before.cursor, token: bob).status == .gone)

            // Guessing Alice's record: updating or deleting it is "no such record" for Bob.
            let bobsDevice = UUID()
            for mutation in [
                Mutation.upsert(1, entity: "Mood", id: secret, baseVersion: 1, fields: ["text": .string("Stolen")]),
                .delete(1, entity: "Mood", id: secret, baseVersion: 1),
                .delete(1, entity: "Mood", id: secret, baseVersion: nil)
            ] {
                let response = try await client.push("moods", PushRequest(bobsDevice, mutation), token: bob)
                #expect(response.status == .notFound)
                #expect(response.error?.error == .notFound)
                #expect(response.error?.message.contains(secret.uuidString) == true)
            }
            // Creating a record with the same identifier creates Bob's own, apart from Alice's.
            let created = try await client.pushApplied(
                "moods", PushRequest(bobsDevice, .upsert(1, entity: "Mood", id: secret, fields: ["text": .string("Mine")])),
                token: bob)
            #expect(created.applied.map(\.version) == [1])

            let after = try await client.allChanges("moods", token: alice)
            #expect(after.changes == before.changes, "Alice's zone is as she left it")
            #expect(after.cursor == before.cursor)
            #expect(
                try await client.allChanges("moods", token: bob).changes.map(\.record.fields)
                    == [["text": .string("Mine")]])
        }
    }

    @Test(
        "Malformed JSON, wrong types, unknown keys and invalid values get 400 naming what is wrong; nothing is stored",
        arguments: Backend.available)
    func badRequestsAreRefused(_ backend: Backend) async throws {
        let server = try await SyncTestServer(backend)
        let token = try await server.addUser("alice")
        let mood = UUID()
        try await server.run { client in
            try await client.pushApplied(
                "moods", PushRequest(device, .upsert(1, entity: "Mood", id: mood, fields: ["text": .string("Ok")])),
                token: token)
            let before = try await client.allChanges("moods", token: token)
            let other = UUID().uuidString
            func mutation(_ body: String) -> String {
                #"{"clientID":"\#(device.uuidString)","mutations":[\#(body)]}"#
            }
            // Each body, and a fragment of what its message must say.
            let bodies: [(String, String)] = [
                ("{", "not a valid request"),
                ("", "not a valid request"),
                ("[]", "not a valid request"),
                (#"{"clientID":"nope","mutations":[]}"#, "clientID"),
                (#"{"clientID":"\#(device.uuidString)","mutations":[],"extra":1}"#, "extra"),
                (mutation(#"{"number":"two","operation":"upsert","entity":"Mood","id":"\#(other)","fields":{}}"#), "mutations[0].number"),
                (mutation(#"{"number":2,"operation":"rename","entity":"Mood","id":"\#(other)","fields":{}}"#), "operation"),
                (mutation(#"{"number":2,"operation":"upsert","entity":"Mood","id":"\#(other)","fields":{},"color":"red"}"#), "color"),
                (
                    mutation(#"{"number":2,"operation":"upsert","entity":"Mood","id":"\#(other)","fields":{"text":1e999}}"#),
                    "not a valid request"
                ),
                (#"{"clientID":"\#(device.uuidString)","mutations":[]}"#, "at least one mutation"),
                (mutation(#"{"number":0,"operation":"upsert","entity":"Mood","id":"\#(other)","fields":{}}"#), "start at 1"),
                (
                    mutation(
                        #"{"number":3,"operation":"upsert","entity":"Mood","id":"\#(other)","fields":{}},{"number":3,"operation":"upsert","entity":"Mood","id":"\#(UUID().uuidString)","fields":{}}"#
                    ), "increase"
                ),
                (mutation(#"{"number":2,"operation":"upsert","entity":"","id":"\#(other)","fields":{}}"#), "entity name"),
                (mutation(#"{"number":2,"operation":"upsert","entity":"Mood","id":"\#(other)","fields":{"":1}}"#), "field name"),
                (
                    mutation(#"{"number":2,"operation":"upsert","entity":"Mood","id":"\#(mood.uuidString)","baseVersion":0,"fields":{}}"#),
                    "baseVersion 0"
                ),
                (
                    mutation(
                        #"{"number":2,"operation":"delete","entity":"Mood","id":"\#(mood.uuidString)","baseVersion":1,"fields":{"a":1}}"#),
                    "carries no fields"
                ),
                (
                    mutation(#"{"number":2,"operation":"upsert","entity":"Tag","id":"\#(mood.uuidString)","baseVersion":1,"fields":{}}"#),
                    "is a Mood"
                ),
                // Values the server would have stored as another value: refused, never changed.
                (
                    mutation(
                        #"{"number":2,"operation":"upsert","entity":"Mood","id":"\#(other)","fields":{"count":18446744073709551616}}"#),
                    "beyond the 64-bit integer range"
                ),
                (
                    mutation(
                        #"{"number":2,"operation":"upsert","entity":"Mood","id":"\#(mood.uuidString)","baseVersion":9223372036854775808,"fields":{}}"#
                    ), "beyond the 64-bit integer range"
                ),
                (
                    mutation(#"{"number":2,"operation":"upsert","entity":"Mood","id":"\#(other)","fields":{"text":"a","text":"b"}}"#),
                    "appears twice"
                ),
                (
                    mutation(
                        #"{"number":2,"operation":"upsert","entity":"Mood","id":"\#(other)","fields":{"deep":\#(String(repeating: "[", count: 200) + String(repeating: "]", count: 200))}}"#
                    ), "nest deeper"
                ),
                (
                    mutation(#"{"number":2,"operation":"upsert","entity":"Mood","id":"\#(other)","fields":{"text":"tab\#t"}}"#),
                    "control character"
                ),
                (mutation(#"{"number":+2,"operation":"upsert","entity":"Mood","id":"\#(other)","fields":{}}"#), "not a valid request")
            ]
            for (body, fragment) in bodies {
                let response = try await client.request(.post, "/v1/zones/moods/push", token: token, body: body)
                #expect(response.status == .badRequest, "\(body)")
                #expect(response.error?.error == .badRequest)
                #expect(response.error?.message.contains(fragment) == true, "\(response.error?.message ?? response.text) for \(body)")
            }
            // Bad zone names, cursors and limits.
            let uris = [
                "/v1/zones/\(String(repeating: "z", count: 101))/changes",
                "/v1/zones/mo%20ods/changes",
                "/v1/zones/moods/changes?since=abc",
                "/v1/zones/moods/changes?since=-1",
                "/v1/zones/moods/changes?since=1e3",
                "/v1/zones/moods/changes?limit=0",
                "/v1/zones/moods/changes?limit=ten",
                "/v1/zones/moods/live?since=x",
                "/v1/zones/./changes",
                "/v1/zones/../changes",
                "/v1/zones/%2E%2E/changes"
            ]
            for uri in uris {
                let response = try await client.request(.get, uri, token: token)
                #expect(response.status == .badRequest, "\(uri)")
                #expect(response.error?.error == .badRequest, "\(uri)")
            }
            let unknown = try await client.request(.get, "/v1/nothing", token: token)
            #expect(unknown.status == .notFound)

            let after = try await client.allChanges("moods", token: token)
            #expect(after.changes == before.changes && after.cursor == before.cursor, "nothing was stored")
            // The server keeps serving.
            #expect(try await client.request(.get, "/health", token: nil).status == .ok)
            try await client.pushApplied(
                "moods", PushRequest(device, .upsert(2, entity: "Mood", id: mood, baseVersion: 1, fields: ["text": .string("Good")])),
                token: token)
        }
    }

    @Test(
        "A cursor given out for another zone is refused on changes and live (410: read the zone again), one without its zone's tag is not a cursor (400); 0 reads any zone from its start",
        arguments: Backend.available)
    func cursorsOfOtherZones(_ backend: Backend) async throws {
        let server = try await SyncTestServer(backend)
        let token = try await server.addUser("alice")
        try await server.run { client in
            for zone in ["moods", "notes"] {
                for number in Int64(1)...3 {
                    try await client.pushApplied(
                        zone, PushRequest(device, .upsert(number, entity: "Mood", id: UUID(), fields: [:])), token: token)
                }
            }
            let moods = try await client.allChanges("moods", token: token).cursor
            let notes = try await client.allChanges("notes", token: token).cursor
            #expect(moods.position == notes.position && moods != notes, "the same position, told apart by the zone")
            for uri in [
                "/v1/zones/notes/changes?since=\(moods)", "/v1/zones/notes/live?since=\(moods)",
                "/v1/zones/moods/changes?since=\(notes)", "/v1/zones/moods/live?since=\(notes)"
            ] {
                let response = try await client.request(.get, uri, token: token)
                #expect(response.status == .gone, "\(uri)")
                #expect(response.error?.error == .mustRefetch)
                #expect(response.error?.message.contains("another zone") == true, "\(response.text)")
            }
            for text in ["3", "1", "03.\(moods.description.suffix(8))", "3.ABCDEF01", "3.abc", "+3.\(moods.description.suffix(8))"] {
                let response = try await client.request(.get, "/v1/zones/moods/changes?since=\(text)", token: token)
                #expect(response.status == .badRequest, "\(text)")
            }
            #expect(try await client.allChanges("notes", since: notes, token: token).changes.isEmpty)
            #expect(try await client.allChanges("notes", since: .start, token: token).changes.count == 3)
        }
    }

    @Test("A method a route does not take answers 405 with the methods it takes, with or without a token")
    func methodsNotAllowed() async throws {
        let server = try await SyncTestServer(.sqlite)
        let token = try await server.addUser("alice")
        try await server.run { client in
            let routes: [(String, String, [HTTPRequest.Method])] = [
                ("/health", "GET, HEAD", [.post, .put, .delete, .patch]),
                ("/v1/zones/moods/push", "POST", [.get, .head, .put, .delete, .patch]),
                ("/v1/zones/moods/changes", "GET, HEAD", [.post, .put, .delete, .patch]),
                ("/v1/zones/moods/live", "GET, HEAD", [.post, .put, .delete])
            ]
            for (uri, allowed, methods) in routes {
                for method in methods {
                    for bearer in [token, nil] {
                        let response = try await client.request(method, uri, token: bearer)
                        #expect(response.status == .methodNotAllowed, "\(method) \(uri)")
                        #expect(response.headers[.allow] == allowed, "\(method) \(uri)")
                        if method != .head { #expect(response.error?.error == .methodNotAllowed, "\(method) \(uri)") }
                    }
                }
            }
            #expect(try await client.request(.get, "/v1/zones/moods/nothing", token: token).status == .notFound)
            #expect(try await client.request(.head, "/health", token: nil).status == .ok)
        }
    }

    @Test(
        "Entity and field names holding control characters (U+0000 among them) are refused with 400 on both databases; nothing is stored under another name",
        arguments: Backend.available)
    func controlCharactersInNames(_ backend: Backend) async throws {
        let server = try await SyncTestServer(backend)
        let token = try await server.addUser("alice")
        let mood = UUID()
        try await server.run { client in
            try await client.pushApplied(
                "moods", PushRequest(device, .upsert(1, entity: "Mood", id: mood, fields: ["text": .string("Ok")])),
                token: token)
            let before = try await client.allChanges("moods", token: token)
            for name in ["Mood\u{0}", "Mo\u{0}od", "Mood\n", "\u{1B}[31mMood", "Mood\u{7F}", "Mood\u{85}"] {
                for mutation in [
                    Mutation.upsert(2, entity: name, id: UUID(), fields: ["text": .string("x")]),
                    .upsert(2, entity: "Mood", id: UUID(), fields: [name: .string("x")]),
                    .upsert(2, entity: "Mood", id: mood, baseVersion: 1, fields: [name: .string("x")]),
                    .delete(2, entity: name, id: mood, baseVersion: 1)
                ] {
                    let response = try await client.push("moods", PushRequest(device, mutation), token: token)
                    #expect(response.status == .badRequest, "\(name.debugDescription)")
                    #expect(response.error?.message.contains("control character") == true, "\(response.text)")
                }
            }
            let after = try await client.allChanges("moods", token: token)
            #expect(after.changes == before.changes && after.cursor == before.cursor, "nothing was stored")
            // The record is as it was, and can be changed as before.
            try await client.pushApplied(
                "moods", PushRequest(device, .upsert(2, entity: "Mood", id: mood, baseVersion: 1, fields: ["text": .string("Fine")])),
                token: token)
        }
    }

    @Test("Absurd sizes get 413 naming the limit: the body, the number of mutations, a record's fields", arguments: Backend.available)
    func oversizedRequestsAreRefused(_ backend: Backend) async throws {
        let limits = ServerLimits(maxBodyBytes: 64 << 10, maxMutationsPerPush: 10, maxRecordBytes: 1 << 10)
        let server = try await SyncTestServer(backend, limits: limits)
        let token = try await server.addUser("alice")
        let mood = UUID()
        try await server.run { client in
            try await client.pushApplied(
                "moods", PushRequest(device, .upsert(1, entity: "Mood", id: mood, fields: ["text": .string("Ok")])),
                token: token)
            let before = try await client.allChanges("moods", token: token)

            let huge = PushRequest(
                device, .upsert(2, entity: "Mood", id: UUID(), fields: ["text": .string(String(repeating: "x", count: 100_000))]))
            let tooMany = PushRequest(
                clientID: device,
                mutations: (2...12).map {
                    .upsert(Int64($0), entity: "Mood", id: UUID(), fields: [:])
                })
            // Each field fits; the record they make together does not.
            let half = String(repeating: "y", count: 600)
            let bigRecord = PushRequest(
                device, .upsert(2, entity: "Mood", id: mood, baseVersion: 1, fields: ["note": .string(half), "more": .string(half)]))
            for (request, fragment) in [(huge, "\(64 << 10) bytes"), (tooMany, "at most 10 mutations"), (bigRecord, "the limit is 1024")] {
                let response = try await client.push("moods", request, token: token)
                #expect(response.status == .contentTooLarge)
                #expect(response.error?.error == .tooLarge)
                #expect(response.error?.message.contains(fragment) == true, "\(response.error?.message ?? response.text)")
            }
            // An unauthenticated body is refused before it is read, whatever its size.
            let anonymous = try await client.push("moods", huge, token: "")
            #expect(anonymous.status == .unauthorized)

            let after = try await client.allChanges("moods", token: token)
            #expect(after.changes == before.changes && after.cursor == before.cursor, "nothing was stored")
            #expect(try await client.request(.get, "/health", token: nil).status == .ok)
        }
    }
}

@Suite("Rates: no user, and no address without a valid token, can take the server for itself", .timeLimit(.minutes(5)))
struct RateLimitTests {
    @Test(
        "A user over the request rate gets 429 with Retry-After and nothing is done; another user is not slowed",
        arguments: Backend.available)
    func userRate(_ backend: Backend) async throws {
        var server = try await SyncTestServer(backend)
        server.configuration.rates = RateLimits(userRequests: .init(perSecond: 0.001, burst: 3))
        let alice = try await server.addUser("alice")
        let bob = try await server.addUser("bob")
        try await server.run { client in
            for _ in 0..<3 { #expect(try await client.changes("moods", token: alice).status == .ok) }
            let refused = try await client.push(
                "moods", PushRequest(UUID(), .upsert(1, entity: "Mood", id: UUID(), fields: [:])), token: alice)
            #expect(refused.status == .tooManyRequests)
            #expect(refused.error?.error == .tooManyRequests)
            #expect(Int(refused.headers[.retryAfter] ?? "") ?? 0 >= 1)
            #expect(try await client.allChanges("moods", token: bob).changes.isEmpty)
            try await client.pushApplied("moods", PushRequest(UUID(), .upsert(1, entity: "Mood", id: UUID(), fields: [:])), token: bob)
            #expect(try await client.changes("moods", token: alice).status == .tooManyRequests, "nothing of Alice's went through")
        }
    }

    @Test(
        "A user's live streams beyond the cap get 429, another user's stream is served meanwhile, and a stream that ends gives its place back"
    )
    func liveStreamCap() async throws {
        var server = try await SyncTestServer(.sqlite)
        server.configuration.rates = RateLimits(liveStreamsPerUser: 2)
        server.configuration.liveTickInterval = .milliseconds(200)  // a closed stream is noticed at its next tick
        let alice = try await server.addUser("alice")
        let bob = try await server.addUser("bob")
        try await server.run { client in
            let url = try #require(URL(string: "http://127.0.0.1:\(client.port)"))
            var held = [await LiveStreamAttempt(url: url, token: alice), await LiveStreamAttempt(url: url, token: alice)]
            #expect(held.allSatisfy { $0.isListening })
            let third = await LiveStreamAttempt(url: url, token: alice)
            #expect(third.isRefusedAsTooMany, "a third stream of the same user: \(third.first)")
            #expect(await LiveStreamAttempt(url: url, token: bob).isListening, "another user is served")

            held.removeLast()  // the stream's connection closes: its place comes back
            let deadline = ContinuousClock.now + .seconds(60)
            while await !LiveStreamAttempt(url: url, token: alice).isListening {
                guard ContinuousClock.now < deadline else { throw TestFailure("the place never came back") }
                try await Task.sleep(for: .milliseconds(50))
            }
            _ = held
        }
    }

    @Test("A token's live streams beyond its own cap get 429 even while its user has places left, and the user's cap holds across tokens")
    func liveStreamCapPerToken() async throws {
        var server = try await SyncTestServer(.sqlite)
        server.configuration.rates = RateLimits(liveStreamsPerUser: 3, liveStreamsPerToken: 2)
        let phone = try await server.addUser("alice")
        let laptop = try await SyncServer(configuration: server.configuration).createToken(forUser: "alice").text
        try await server.run { client in
            let url = try #require(URL(string: "http://127.0.0.1:\(client.port)"))
            var held: [LiveStreamAttempt] = []
            for _ in 0..<2 { held.append(await LiveStreamAttempt(url: url, token: phone)) }
            #expect(held.allSatisfy { $0.isListening })
            #expect(await LiveStreamAttempt(url: url, token: phone).isRefusedAsTooMany, "the phone's token is at its cap")
            held.append(await LiveStreamAttempt(url: url, token: laptop))
            #expect(held.last?.isListening == true, "another token of the same user is served")
            #expect(await LiveStreamAttempt(url: url, token: laptop).isRefusedAsTooMany, "the user is at its cap")
            _ = held
        }
    }

    @Test("While one user holds every live stream the server lets it open, /health, /ready and another user's push are served")
    func connectionsReservedFromLiveStreams() async throws {
        var server = try await SyncTestServer(.sqlite)
        server.configuration.connections = ConnectionLimits(maxConnections: 10, reservedConnections: 4)
        server.configuration.rates = RateLimits(liveStreamsPerUser: 100, liveStreamsPerToken: 100)
        let alice = try await server.addUser("alice")
        let bob = try await server.addUser("bob")
        try await server.serve { port in
            let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
            var held: [LiveStreamAttempt] = []
            while true {
                let attempt = await LiveStreamAttempt(url: url, token: alice)
                guard attempt.isListening else {
                    #expect(attempt.isRefusedAsTooMany, "\(attempt.first)")
                    break
                }
                held.append(attempt)
                guard held.count < 10 else { throw TestFailure("one user's live streams took every connection of the server") }
            }
            #expect(held.count == 6, "every connection but the reserved ones")
            for path in ["/health", "/ready"] {
                let answer = try await HTTPClient.tests.execute(HTTPClientRequest(url: "\(url)\(path)"), timeout: .seconds(60))
                #expect(answer.status == .ok, "\(path)")
            }
            var push = HTTPClientRequest(url: "\(url)/v1/zones/moods/push")
            push.method = .POST
            push.headers.add(name: "Authorization", value: "Bearer \(bob)")
            push.body = .bytes(
                ByteBuffer(bytes: try JSONEncoder().encode(PushRequest(UUID(), .upsert(1, entity: "Mood", id: UUID(), fields: [:])))))
            #expect(try await HTTPClient.tests.execute(push, timeout: .seconds(60)).status == .ok, "another user's push is served")
            _ = held
        }
    }

    @Test("A request with two Host headers gets 400 (RFC 9112): which host it is for is not said")
    func twoHostHeaders() async throws {
        let server = try await SyncTestServer(.sqlite)
        try await server.run { client in
            let connection = try await RawConnection(port: client.port)
            try await connection.send("GET /health HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\n\r\n")
            let first = try await connection.firstLine(within: .seconds(60))
            #expect(first == "HTTP/1.1 400 Bad Request")
            let single = try await RawConnection(port: client.port)
            try await single.send("GET /health HTTP/1.1\r\nHost: a.example\r\n\r\n")
            #expect(try await single.firstLine(within: .seconds(60)) == "HTTP/1.1 200 OK")
        }
    }

    @Test(
        "A user's pushes over the push cost budget get 429 with Retry-After and change nothing; mutations and body bytes both count; another user is not charged",
        arguments: Backend.available)
    func pushCostBudget(_ backend: Backend) async throws {
        var server = try await SyncTestServer(backend)
        // Units: one per mutation and one per KiB of body; none come back during the test.
        server.configuration.rates = RateLimits(pushCost: .init(perSecond: 0.001, burst: 1_500))
        let alice = try await server.addUser("alice")
        let bob = try await server.addUser("bob")
        @Sendable func many(_ count: Int) -> PushRequest {
            PushRequest(clientID: UUID(), mutations: (1...count).map { .upsert(Int64($0), entity: "Mood", id: UUID(), fields: [:]) })
        }
        @Sendable func large(_ kibibytes: Int) -> PushRequest {
            PushRequest(
                clientID: UUID(),
                mutations: (1...kibibytes / 200).map {
                    .upsert(Int64($0), entity: "Note", id: UUID(), fields: ["text": .string(String(repeating: "x", count: 200 << 10))])
                })
        }
        try await server.run { client in
            try await client.pushApplied("moods", many(1_000), token: alice)  // about 1,030 of 1,500
            // Three records but 600 KiB: admitted with units left, its cost puts Alice in debt.
            try await client.pushApplied("notes", large(600), token: alice)
            let refused = try await client.push("moods", many(1), token: alice)
            #expect(refused.status == .tooManyRequests, "a push of one mutation once the budget is spent")
            #expect(refused.error?.error == .tooManyRequests)
            #expect(Int(refused.headers[.retryAfter] ?? "") ?? 0 >= 1)
            #expect(try await client.allChanges("moods", token: alice).changes.count == 1_000, "nothing of the refused push")
            try await client.pushApplied("moods", many(1_000), token: bob)
        }
    }

    @Test("A user's pushes beyond the concurrent limit get 429 before their body is read; another user's push goes through meanwhile")
    func concurrentPushes() async throws {
        var server = try await SyncTestServer(.sqlite)
        server.configuration.rates = RateLimits(concurrentPushesPerUser: 2)
        let alice = try await server.addUser("alice")
        let bob = try await server.addUser("bob")
        try await server.run { client in
            // Two pushes of Alice's whose bodies have not all arrived: they hold her two places.
            let body = String(
                decoding: try JSONEncoder().encode(
                    PushRequest(UUID(), .upsert(1, entity: "Mood", id: UUID(), fields: ["text": .string("Slow")]))), as: UTF8.self)
            var slow: [RawConnection] = []
            for _ in 0..<2 {
                let connection = try await RawConnection(port: client.port)
                try await connection.send(
                    "POST /v1/zones/moods/push HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(alice)\r\n"
                        + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n{")
                slow.append(connection)
            }
            // The route counts a push in once it starts: wait until both are in (a third is refused).
            var third = try await client.push(
                "moods", PushRequest(UUID(), .upsert(1, entity: "Mood", id: UUID(), fields: [:])), token: alice)
            while third.status == .ok {
                // A place was still free: that push went through; try again until both slow ones hold theirs.
                third = try await client.push(
                    "moods", PushRequest(UUID(), .upsert(1, entity: "Mood", id: UUID(), fields: [:])), token: alice)
            }
            #expect(third.status == .tooManyRequests)
            #expect(third.headers[.retryAfter] == "1")
            try await client.pushApplied("moods", PushRequest(UUID(), .upsert(1, entity: "Mood", id: UUID(), fields: [:])), token: bob)
            // The slow bodies arrive: their pushes are answered, and Alice's places are free again.
            for connection in slow { try await connection.send(String(body.dropFirst())) }
            for connection in slow { #expect(try await connection.firstLine(within: .seconds(60)) == "HTTP/1.1 200 OK") }
            try await client.pushApplied("moods", PushRequest(UUID(), .upsert(1, entity: "Mood", id: UUID(), fields: [:])), token: alice)
        }
    }

    @Test(
        "An address sending tokens that are not valid, past the limit, gets 429; a valid token from the same address is never refused because of them"
    )
    func failedAuthentications() async throws {
        var server = try await SyncTestServer(.sqlite)
        server.configuration.rates = RateLimits(failedAuthenticationsPerAddress: .init(perSecond: 0.001, burst: 3))
        let alice = try await server.addUser("alice")
        try await server.run { client in
            #expect(try await client.changes("moods", token: alice).status == .ok, "valid tokens do not count")
            for _ in 0..<3 { #expect(try await client.changes("moods", token: "ogs_guess").status == .unauthorized) }
            let refused = try await client.changes("moods", token: "ogs_guess")
            #expect(refused.status == .tooManyRequests)
            #expect(refused.headers[.retryAfter] != nil)
            // Behind a proxy every client shares an address: another's failures refuse no valid token.
            let valid = try await client.changes("moods", token: alice).status
            #expect(valid == .ok)
            #expect(try await client.changes("moods", token: "ogs_guess").status == .tooManyRequests, "wrong tokens are still refused")
        }
    }

    @Test(
        "Behind a trusted proxy, failed authentications count against the client its X-Forwarded-For names; from any other peer the header is ignored"
    )
    func trustedProxy() async throws {
        for trusted in [true, false] {
            var server = try await SyncTestServer(.sqlite)
            server.configuration.rates = RateLimits(failedAuthenticationsPerAddress: .init(perSecond: 0.001, burst: 3))
            if trusted { server.configuration.trustedProxies = [try #require(AddressRange("127.0.0.0/8"))] }
            try await server.run { client in
                func wrongToken(from address: String) async throws -> HTTPResponse.Status {
                    try await client.client.execute(
                        uri: "/v1/zones/moods/changes", method: .get,
                        headers: [.authorization: "Bearer ogs_guess", HTTPField.Name("X-Forwarded-For")!: "198.51.100.9, \(address)"],
                        body: nil
                    ).status
                }
                for _ in 0..<3 {
                    let status = try await wrongToken(from: "203.0.113.7")
                    #expect(status == .unauthorized)
                }
                #expect(try await wrongToken(from: "203.0.113.7") == .tooManyRequests)
                // Another client behind the same proxy: its own count when the proxy is trusted;
                // otherwise every request is the proxy's, whatever the header says.
                #expect(try await wrongToken(from: "203.0.113.8") == (trusted ? .unauthorized : .tooManyRequests), "trusted: \(trusted)")
            }
        }
    }

    @Test(
        "Address ranges are read as CIDR and hold the addresses of their prefix; the client behind trusted proxies is the nearest hop that is not one"
    )
    func addressRanges() throws {
        let private10 = try #require(AddressRange("10.0.0.0/8"))
        #expect(private10.contains("10.200.3.4") && !private10.contains("11.0.0.1") && !private10.contains("2001:db8::1"))
        #expect(private10.contains("::ffff:10.0.0.1"), "an IPv4 peer of a dual-stack socket")
        let documentation = try #require(AddressRange("2001:db8::/32"))
        #expect(documentation.contains("2001:db8:1::7") && !documentation.contains("2001:db9::1"))
        let one = try #require(AddressRange("192.0.2.1"))
        #expect(one.contains("192.0.2.1") && !one.contains("192.0.2.2") && one.description == "192.0.2.1/32")
        #expect(try #require(AddressRange("0.0.0.0/0")).contains("8.8.8.8"))
        for text in ["10.0.0.0/33", "10.0.0/8", "example.com", "::1/129", "10.0.0.0/-1", ""] {
            #expect(AddressRange(text) == nil, "\(text)")
        }

        let proxies = [private10]
        func client(peer: String, xff: [String] = [], forwarded: [String] = []) -> String {
            ClientAddress.of(peer: peer, forwardedFor: xff, forwarded: forwarded, trusting: proxies)
        }
        #expect(client(peer: "10.0.0.1", xff: ["203.0.113.7, 10.0.0.2"]) == "203.0.113.7", "trusted hops skipped")
        #expect(
            client(peer: "10.0.0.1", xff: ["198.51.100.1, 203.0.113.7"]) == "203.0.113.7",
            "the nearest untrusted hop, not a spoofed first one")
        #expect(client(peer: "192.0.2.9", xff: ["203.0.113.7"]) == "192.0.2.9", "an untrusted peer's header is ignored")
        #expect(client(peer: "10.0.0.1", forwarded: [#"for=192.0.2.60;proto=http, for="[2001:db8::1]:4711""#]) == "2001:db8::1")
        #expect(client(peer: "10.0.0.1", forwarded: ["for=192.0.2.60:8080"]) == "192.0.2.60")
        #expect(client(peer: "10.0.0.1", xff: ["not-an-address"]) == "10.0.0.1", "a hop that names no address leaves the peer")
        #expect(client(peer: "10.0.0.1") == "10.0.0.1")
    }

    @Test("The Bearer scheme is matched whatever its case (RFC 9110); other schemes are not bearer tokens")
    func bearerScheme() async throws {
        let server = try await SyncTestServer(.sqlite)
        let alice = try await server.addUser("alice")
        try await server.run { client in
            for scheme in ["Bearer", "bearer", "BEARER", "bEaReR"] {
                let response = try await client.client.execute(
                    uri: "/v1/zones/moods/changes", method: .get, headers: [.authorization: "\(scheme) \(alice)"], body: nil)
                #expect(response.status == .ok, "\(scheme)")
            }
            for header in ["Bearer", "Bearer ", "Basic \(alice)", "Bearer\(alice)", "Token \(alice)"] {
                let response = try await client.client.execute(
                    uri: "/v1/zones/moods/changes", method: .get, headers: [.authorization: header], body: nil)
                #expect(response.status == .unauthorized, "\(header)")
            }
        }
    }

    @Test(
        "Four-megabyte bodies of every shape, pushed in parallel, are each refused or applied, and another user's small push goes through meanwhile",
        .timeLimit(.minutes(5)))
    func pathologicalBodies() async throws {
        let server = try await SyncTestServer(.sqlite)
        let alice = try await server.addUser("alice")
        let bob = try await server.addUser("bob")
        let size = (4 << 20) - 4096  // under the body limit: each is read whole
        let head =
            #"{"clientID":"\#(UUID().uuidString)","mutations":[{"number":1,"operation":"upsert","entity":"Mood","id":"\#(UUID().uuidString)","fields":{"a":"#
        let values = [
            "[" + String(repeating: "[],", count: size / 3 - 30) + "[]]",
            "[" + String(repeating: "{},", count: size / 3 - 30) + "{}]",
            "[" + String(repeating: "1,", count: size / 2 - 40) + "1]",
            String(repeating: "[", count: size / 2 - 40) + String(repeating: "]", count: size / 2 - 40)
        ]
        // Over a real connection with a deadline that only catches a hang: the test framework's
        // client gives up after 20 s without a byte, which a busy machine's debug build can take.
        try await server.serve { port in
            let client = HTTPSyncClient(port: port)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for value in values {
                    group.addTask {
                        let answer = try await client.push("moods", body: head + value + "}}]}", token: alice)
                        #expect([.badRequest, .payloadTooLarge, .tooManyRequests].contains(answer.status), "\(answer.status)")
                    }
                }
                group.addTask {
                    try await client.pushApplied(
                        "moods", PushRequest(UUID(), .upsert(1, entity: "Mood", id: UUID(), fields: ["text": .string("Small")])), token: bob
                    )
                }
                try await group.waitForAll()
            }
            #expect(try await client.allChanges("moods", token: alice).isEmpty)
        }
    }
}

/// A live stream asked of the server, held open while this value lives: its first message, or the
/// error it ended with.
struct LiveStreamAttempt {
    let remote: HTTPSyncRemote
    let stream: LiveMessages<AsyncThrowingStream<Data, any Error>>.AsyncIterator
    let first: Result<LiveMessage?, any Error>

    init(url: URL, token: String) async {
        remote = HTTPSyncRemote(url: url, token: token)
        var stream = LiveMessages(remote.live(zone: "moods", since: .start)).makeAsyncIterator()
        do {
            first = .success(try await stream.next())
        } catch {
            first = .failure(error)
        }
        self.stream = stream
    }

    var isListening: Bool { (try? first.get()) == .listening }

    /// Whether the server answered 429.
    var isRefusedAsTooMany: Bool {
        guard case .failure(let error) = first, let refusal = error as? SyncError else { return false }
        return refusal.code == .unreachable && refusal.reason?.contains("429") == true
    }
}

@Suite("Quotas: what one user may keep", .timeLimit(.minutes(5)))
struct QuotaTests {
    @Test(
        "A push that would give a user one zone more than the quota gets 403 quotaExceeded and creates nothing; the user's zones go on",
        arguments: Backend.available)
    func zonesPerUser(_ backend: Backend) async throws {
        var server = try await SyncTestServer(backend)
        server.configuration.quotas = Quotas(zonesPerUser: 2, storedBytesPerUser: nil)
        let alice = try await server.addUser("alice")
        let bob = try await server.addUser("bob")
        try await server.run { client in
            @Sendable func one() -> PushRequest { PushRequest(UUID(), .upsert(1, entity: "Mood", id: UUID(), fields: [:])) }
            try await client.pushApplied("a", one(), token: alice)
            try await client.pushApplied("b", one(), token: alice)
            let refused = try await client.push("c", one(), token: alice)
            #expect(refused.status == .forbidden)
            #expect(refused.error?.error == .quotaExceeded)
            #expect(refused.error?.message.contains("alice") == true, "\(refused.text)")
            try await client.pushApplied("a", one(), token: alice)
            try await client.pushApplied("c", one(), token: bob)  // another user's zones are theirs
            let alices = try #require(try await client.server.users().first { $0.user.name == "alice" })
            #expect(alices.zones == 2, "the refused zone was not created")
        }
    }

    @Test("A large push refused in a new zone leaves no zone behind: it does not count against the quota", arguments: Backend.available)
    func refusedLargePushCreatesNoZone(_ backend: Backend) async throws {
        var server = try await SyncTestServer(backend)
        server.configuration.quotas = Quotas(zonesPerUser: 1, storedBytesPerUser: nil)
        let alice = try await server.addUser("alice")
        try await server.run { client in
            // More mutations than one step of a SQLite push, the last an update of a record nobody made.
            var mutations: [Mutation] = (1...150).map { .upsert(Int64($0), entity: "Mood", id: UUID(), fields: [:]) }
            mutations.append(.upsert(151, entity: "Mood", id: UUID(), baseVersion: 1, fields: ["text": .string("stale")]))
            let refused = try await client.push("first", PushRequest(clientID: UUID(), mutations: mutations), token: alice)
            #expect(refused.status == .notFound)
            try await client.pushApplied("second", PushRequest(UUID(), .upsert(1, entity: "Mood", id: UUID(), fields: [:])), token: alice)
            #expect(try #require(try await client.server.users().first).zones == 1)
        }
    }

    @Test(
        "A push past the stored bytes quota gets 403 quotaExceeded and changes nothing; deletions still go through, and the purge gives the bytes back",
        arguments: Backend.available)
    func storedBytesPerUser(_ backend: Backend) async throws {
        var server = try await SyncTestServer(backend)
        server.configuration.quotas = Quotas(zonesPerUser: nil, storedBytesPerUser: 20_000)
        let alice = try await server.addUser("alice")
        let device = UUID()
        let ids = (0..<4).map { _ in UUID() }
        let text = JSONValue.string(String(repeating: "é", count: 2_500))  // 5,000 bytes of UTF-8
        try await server.run { client in
            func used() async throws -> Int64 {
                try #require(try await client.server.users().first { $0.user.name == "alice" }).storedBytes
            }
            for (index, id) in ids.prefix(3).enumerated() {
                try await client.pushApplied(
                    "notes", PushRequest(device, .upsert(Int64(index + 1), entity: "Note", id: id, fields: ["text": text])), token: alice)
            }
            let afterThree = try await used()
            #expect(afterThree > 15_000 && afterThree <= 16_000, "\(afterThree) bytes for three records of 5,000 bytes")
            let refused = try await client.push(
                "notes", PushRequest(device, .upsert(4, entity: "Note", id: ids[3], fields: ["text": text])), token: alice)
            #expect(refused.status == .forbidden)
            #expect(refused.error?.error == .quotaExceeded)
            #expect(try await client.allChanges("notes", token: alice).changes.count == 3, "nothing of the refused push")
            #expect(try await used() == afterThree)

            // Deletions free space: never refused for the quota.
            try await client.pushApplied(
                "notes", PushRequest(device, .delete(4, entity: "Note", id: ids[0], baseVersion: 1)), token: alice)
            #expect(try await used() > afterThree, "the tombstone is kept until the horizon")
            let later = Date().addingTimeInterval(31 * 24 * 3600)
            #expect(try await client.server.purgeExpiredTombstones(now: later) == 2, "the record's entry and its tombstone")
            #expect(try await used() == afterThree / 3 * 2, "the purge gave the deleted record's bytes back")
            try await client.pushApplied(
                "notes", PushRequest(device, .upsert(5, entity: "Note", id: ids[3], fields: ["text": text])), token: alice)
        }
    }
}

@Suite("Quotas: what users kept before the quotas", .timeLimit(.minutes(5)))
struct QuotaMigrationTests {
    @Test(
        "Opening a database of the schema before the quotas counts what each user keeps from their feeds, as pushes count it",
        arguments: Backend.available)
    func migrationCountsStoredBytes(_ backend: Backend) async throws {
        let server = try await SyncTestServer(backend)
        let alice = try await server.addUser("alice")
        _ = try await server.addUser("bob")  // keeps nothing
        let device = UUID()
        let ids = (0..<3).map { _ in UUID() }
        try await server.run { client in
            for (index, id) in ids.enumerated() {
                try await client.pushApplied(
                    "notes",
                    PushRequest(
                        device,
                        .upsert(Int64(index + 1), entity: "Note", id: id, fields: ["text": .string("Café 🎉 \(index)\u{301}")])),
                    token: alice)
            }
            try await client.pushApplied("notes", PushRequest(device, .delete(4, entity: "Note", id: ids[0], baseVersion: 1)), token: alice)
            try await client.pushApplied("other", PushRequest(device, .upsert(1, entity: "Note", id: UUID(), fields: [:])), token: alice)
        }
        let counted = try await SyncServer(configuration: server.configuration).users()
        #expect(counted.first { $0.user.name == "alice" }?.storedBytes ?? 0 > 0)

        // The schema as it was before the quotas: no column, the migration not run.
        switch server.configuration.database {
        case .sqlite(let path):
            try await DatabaseQueue(path: path).write { db in
                try db.execute(sql: "ALTER TABLE users DROP COLUMN stored_bytes")
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v3: stored bytes'")
            }
        case .postgres(let url):
            let client = PostgresClient(configuration: url.clientConfiguration)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await client.run() }
                // Back to version 3: what the versions after it made goes too.
                try await client.query("DROP TABLE invitations")
                try await client.query("DROP TABLE zone_members")
                try await client.query("ALTER TABLE changes DROP COLUMN author_id")
                try await client.query("ALTER TABLE users DROP COLUMN stored_bytes")
                try await client.query("UPDATE objectgraph_schema SET version = 3")
                group.cancelAll()
            }
        }
        let migrated = try await SyncServer(configuration: server.configuration).users()
        #expect(migrated.map(\.storedBytes) == counted.map(\.storedBytes), "counted from the feeds as the pushes counted")
        #expect(migrated.map(\.zones) == [2, 0])
    }
}
