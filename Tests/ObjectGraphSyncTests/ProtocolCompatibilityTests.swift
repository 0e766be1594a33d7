import Foundation
import ObjectGraphSyncProtocol
import Testing

@Suite("Wire protocol: what a newer server adds, an older client reads")
struct ProtocolCompatibilityTests {
    @Test("An error code a newer server added decodes, keeps its name and encodes back as it came; known codes match as before")
    func unknownErrorCodeDecodes() throws {
        let body = try JSONDecoder().decode(
            SyncErrorBody.self, from: Data(#"{"error":"quotaExceeded","message":"The zone is over its quota"}"#.utf8))
        #expect(body.error.rawValue == "quotaExceeded" && body.error.description == "quotaExceeded")
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
}
