import Foundation
import ObjectGraphSyncProtocol
import Testing

@Suite("The live route's server-sent events, as a client in any language reads them", .timeLimit(.minutes(5)))
struct LiveMessageTests {
    let messages: [LiveMessage] = [
        .listening, .changes(LiveEvent(cursor: FeedCursor(position: 7, zoneTag: 0xffffffff))), .keepAlive,
        .changes(LiveEvent(cursor: FeedCursor(position: 1_234_567, zoneTag: 1)))
    ]

    @Test("Messages come back whole, however the network cuts the bytes")
    func everyCut() throws {
        let bytes = Array(try messages.map { try $0.text() }.joined().utf8)
        for cut in 0...bytes.count {
            var parser = LiveMessage.Parser()
            let parsed = try parser.append(bytes[..<cut]) + parser.append(bytes[cut...])
            #expect(parsed == messages, "cut at byte \(cut)")
        }
        var parser = LiveMessage.Parser()
        #expect(try bytes.flatMap { try parser.append([$0]) } == messages, "one byte at a time")
    }

    @Test("The message sequence over a body gives each message once, in order, whatever its chunks")
    func messageSequence() async throws {
        let bytes = Array(try messages.map { try $0.text() }.joined().utf8)
        for chunkSize in [1, 2, 5, 13, bytes.count] {
            let chunks = AsyncStream<[UInt8]> { continuation in
                for start in stride(from: 0, to: bytes.count, by: chunkSize) {
                    continuation.yield(Array(bytes[start..<min(start + chunkSize, bytes.count)]))
                }
                continuation.finish()
            }
            var received: [LiveMessage] = []
            for try await message in LiveMessages(chunks) { received.append(message) }
            #expect(received == messages, "chunks of \(chunkSize) bytes")
        }
    }

    @Test("CRLF line ends, an `id` field and a multi-line comment are read as the format allows")
    func otherLineEnds() throws {
        var parser = LiveMessage.Parser()
        let text = ": listening\r\n\r\nid: 9\r\nevent: changes\r\ndata: {\"cursor\":\"9.0000002a\"}\r\n\r\n: tick\n: more\n\n"
        let cursor = try #require(FeedCursor("9.0000002a"))
        #expect(try parser.append(Array(text.utf8)) == [.listening, .changes(LiveEvent(cursor: cursor)), .keepAlive])
    }

    @Test("Events of a kind this version does not know are skipped; bad data in a changes event throws")
    func unknownAndMalformed() throws {
        var parser = LiveMessage.Parser()
        #expect(try parser.append(Array("event: presence\ndata: {}\n\n: hello\n\n".utf8)).isEmpty)
        #expect(throws: DecodingError.self) { try parser.append(Array("event: changes\ndata: {\"cursor\": 3}\n\n".utf8)) }
    }
}
