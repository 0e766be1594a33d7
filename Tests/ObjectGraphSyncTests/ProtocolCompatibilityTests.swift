import Foundation
import ObjectGraphSyncProtocol
import Testing

@Suite("Wire protocol: what a newer server adds, an older client reads")
struct ProtocolCompatibilityTests {
    @Test("An error code a newer server added decodes, keeps its name and encodes back as it came; known codes match as before")
    func unknownErrorCodeDecodes() throws {
        let body = try JSONDecoder().decode(
            SyncErrorBody.self, from: Data(#"{"error":"zoneArchived","message":"The zone is archived"}"#.utf8))
        #expect(body.error.rawValue == "zoneArchived" && body.error.description == "zoneArchived")
        #expect(!SyncErrorBody.Code.allCases.contains(body.error))
        let again = try JSONDecoder().decode(SyncErrorBody.self, from: try JSONEncoder().encode(body))
        #expect(again == body)

        let known = try JSONDecoder().decode(SyncErrorBody.self, from: Data(#"{"error":"mustRefetch","message":"m"}"#.utf8))
        let matched: Bool =
            switch known.error {
            case .mustRefetch: true
            default: false
            }
        #expect(matched)
    }

    @Test("A live message of a kind this client does not know is skipped, and the messages around it are read")
    func unknownLiveEventIsSkipped() throws {
        var parser = LiveMessage.Parser()
        let text = ": listening\n\nevent: presence\ndata: {\"who\":\"bob\"}\n\n: tick\n\n"
        let messages = try parser.append(Array(text.utf8))
        #expect(messages == [LiveMessage.listening, LiveMessage.keepAlive])
    }

    @Test("A page, a change and a record holding keys a newer server added decode, those keys ignored")
    func unknownKeysAreIgnored() throws {
        let text = #"""
            {"changes":[{"position":3,"transaction":3,"region":"eu",
              "record":{"entity":"Mood","id":"6F9619FF-8B86-D011-B42D-00C04FC964FF","version":2,"deleted":false,
                        "fields":{"text":"hi"},"owner":"alice"}}],
             "cursor":"3.0000002a","hasMore":false,"serverTime":1764316800}
            """#
        let page = try JSONDecoder().decode(ChangesPage.self, from: Data(text.utf8))
        #expect(page.changes.map(\.record.fields) == [["text": .string("hi")]] && page.cursor.position == 3 && !page.hasMore)
    }
}
