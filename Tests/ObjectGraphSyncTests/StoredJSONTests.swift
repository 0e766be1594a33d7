import Foundation
import ObjectGraphSyncFeed
import ObjectGraphSyncProtocol
import Testing

/// The server's own JSON writer and reader (what every push stores and every update reads back)
/// agree with each other and with Foundation's JSON on every kind of value.
@Suite("Stored JSON")
struct StoredJSONTests {
    static let values: [JSONValue] = [
        .null, .bool(true), .bool(false), .integer(0), .integer(-1), .integer(.max), .integer(.min),
        .double(0.1), .double(-2.5e-300), .double(1e19), .double(1.7976931348623157e308), .double(-0.5),
        .string(""), .string(#"quote " backslash \ slash /"#), .string("\u{0}\u{1}\u{1F}\u{7F}\t\n\r\u{8}\u{C}"),
        .string("e\u{301} é 🧭 𝄞 \u{FFFF} \u{10FFFF}"),
        .array([]), .object([:]),
        .object(["b": .array([.integer(1), .object(["z": .null, "a": .string("x")])]), "a": .double(2.5), "ключ": .bool(true)])
    ]

    @Test("What the writer writes, the reader reads back exactly", arguments: values)
    func roundTrip(_ value: JSONValue) throws {
        var writer = JSONTextWriter()
        try writer.write(value)
        let read = try JSONTextReader.value(of: writer.text)
        #expect(read == value)
        #expect(Self.scalars(read) == Self.scalars(value), "canonically equal strings must keep their scalars")
        // And Foundation reads the same text as the same value.
        #expect(try JSONDecoder().decode(JSONValue.self, from: Data(writer.text.utf8)) == value)
    }

    @Test("The reader reads Foundation's and PostgreSQL's forms: spaces, escaped slashes, \\u escapes and surrogate pairs")
    func otherForms() throws {
        let text = #" { "a" : [ 1 , -2.5e3 , true , null ] , "b" : "\/\u00e9\ud83e\udded\n" , "c" : { } } "#
        #expect(
            try JSONTextReader.value(of: text)
                == .object([
                    "a": .array([.integer(1), .integer(-2500), .bool(true), .null]), "b": .string("/é🧭\n"), "c": .object([:])
                ]))
        // Numbers as JSON writes them, read as Foundation reads them.
        for number in ["2", "2.0", "2.5e1", "1e+16", "-0.0", "1e19", "0.5", "-9223372036854775808", "9223372036854775807", "9.3e18"] {
            #expect(try JSONTextReader.value(of: number) == JSONDecoder().decode(JSONValue.self, from: Data(number.utf8)), "\(number)")
        }
        for value in Self.values {
            let foundation = String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
            #expect(try JSONTextReader.value(of: foundation) == JSONDecoder().decode(JSONValue.self, from: Data(foundation.utf8)))
        }
    }

    @Test(
        "Text that is not JSON is an error naming where, never a value",
        arguments: [
            "", "{", "[1,]", #"{"a" 1}"#, #"{"a":1,}"#, #""abc"#, #""\x""#, #""\u12""#, #""\udc00""#, "tru", "nul", "1 2",
            "--1", "1e999", "{1:2}",
            // What Foundation or a lax reader lets through.
            "+1", "01", "-01", "1.", ".5", "1e", "1e+", "-", "0x10", "NaN", "Infinity", #""\u+abc""#, #""\ud83eX""#,
            "\"tab\t\"", "\"nul\u{0}\"", #"{"a":1,"a":2}"#,
            // A whole number written as one that no Int64 holds would come back as another number.
            "9223372036854775808", "-9223372036854775809", "18446744073709551616"
        ])
    func malformed(_ text: String) {
        #expect(throws: JSONTextReader.Malformed.self) { try JSONTextReader.value(of: text) }
    }

    @Test("Bytes that are not UTF-8 are an error, never replacement characters")
    func invalidUTF8() {
        for bytes: [UInt8] in [[0x22, 0xFF, 0x22], [0x22, 0xC3, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0x5C, 0x6E, 0xC0, 0xAF, 0x22]]
        {
            #expect(throws: JSONTextReader.Malformed.self) { try JSONTextReader.value(of: bytes) }
        }
    }

    @Test("Nesting deeper than the reader's limit is an error, not a recursion as deep as the sender likes")
    func depth() throws {
        let limit = JSONTextReader.maximumDepth
        let deepest = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        #expect(try JSONTextReader.value(of: deepest) != .null)
        let deeper = String(repeating: #"{"a":"#, count: limit + 1) + "1" + String(repeating: "}", count: limit + 1)
        #expect(throws: JSONTextReader.Malformed.self) { try JSONTextReader.value(of: deeper) }
        // Four megabytes of opening brackets: refused at the limit, not a stack overflow.
        #expect(throws: JSONTextReader.Malformed.self) { try JSONTextReader.value(of: String(repeating: "[", count: 4 << 20)) }
    }

    @Test("A push body reads as Foundation's decoder reads it, and where it does not fit, the error names the path")
    func pushBodies() throws {
        let request = PushRequest(
            clientID: UUID(),
            mutations: [
                .upsert(
                    1, entity: "Mood", id: UUID(), fields: ["text": .string("Fine"), "rating": .integer(4), "tags": .array([.string("a")])]),
                .upsert(2, entity: "Mood", id: UUID(), baseVersion: 3, fields: [:]),
                .delete(3, entity: "Country", id: UUID(), baseVersion: 7)
            ])
        let body = try JSONEncoder().encode(request)
        #expect(try PushRequest(jsonBytes: Array(body)) == request)
        #expect(try PushRequest(jsonBytes: Array(body)) == JSONDecoder().decode(PushRequest.self, from: body))
        let id = UUID().uuidString
        for (text, path) in [
            (#"{"clientID":"\#(id)"}"#, "mutations"),
            (
                #"{"clientID":"\#(id)","mutations":[{"number":1,"operation":"upsert","entity":"Mood","id":"\#(id)","baseVerison":2}]}"#,
                "mutations[0].baseVerison"
            ),
            (
                #"{"clientID":"\#(id)","mutations":[{"number":1.5,"operation":"upsert","entity":"Mood","id":"\#(id)"}]}"#,
                "mutations[0].number"
            ),
            (#"{"clientID":"\#(id)","mutations":[1]}"#, "mutations[0]"),
            (#"{"clientID":7,"mutations":[]}"#, "clientID"),
            ("[]", "the body")
        ] {
            #expect(throws: RequestBodyError.self, "\(text)") { try PushRequest(jsonBytes: Array(text.utf8)) }
            do {
                _ = try PushRequest(jsonBytes: Array(text.utf8))
            } catch {
                #expect(error.path == path, "\(text): \(error)")
            }
        }
    }

    @Test("A push's answer, written by hand, is the PushResult Foundation reads; UUIDs are their uuidString")
    func pushResult() throws {
        let result = PushResult(
            applied: (1...3).map { .init(number: Int64($0), id: UUID(), version: Int64($0 * 7)) }
                + [.init(number: .max, id: UUID(uuid: (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 255)), version: 0)],
            cursor: FeedCursor(position: 42, zoneTag: 0x0badcafe))
        let text = StoredJSON.encode(result)
        #expect(try JSONDecoder().decode(PushResult.self, from: Data(text.utf8)) == result)
        for applied in result.applied {
            #expect(text.contains("\"\(applied.id.uuidString)\""))
        }
        #expect(StoredJSON.encode(PushResult(applied: [], cursor: .start)) == #"{"applied":[],"cursor":"0"}"#)
    }

    @Test("A feed page with its stored fields spliced in is the ChangesPage Foundation reads")
    func feedPage() throws {
        let changes = try Self.values.enumerated().map { index, value in
            var writer = JSONTextWriter()
            try writer.writeObject(["value": value, "index": .integer(Int64(index))]) { writer, member in try writer.write(member) }
            return StoredChange(
                position: Int64(index + 1), transaction: Int64(index / 3 * 3 + 1), entity: "Kind \"\(index)\"", id: UUID(),
                version: Int64(index), deleted: index % 4 == 0, fieldsJSON: writer.text)
        }
        for page in [
            FeedPage(changes: changes, cursor: FeedCursor(position: 99, zoneTag: 7), hasMore: true),
            FeedPage(changes: [], cursor: .start, hasMore: false)
        ] {
            let decoded = try JSONDecoder().decode(ChangesPage.self, from: Data(StoredJSON.encode(page).utf8))
            #expect(decoded == (try page.decoded()))
        }
    }

    @Test("The writer refuses numbers JSON cannot hold")
    func nonFinite() {
        for number in [Double.infinity, -.infinity, .nan] {
            var writer = JSONTextWriter()
            #expect(throws: JSONTextWriter.NonFiniteNumber.self) { try writer.write(.double(number)) }
        }
    }

    private static func scalars(_ value: JSONValue) -> [[Unicode.Scalar]] {
        switch value {
        case .string(let text): [Array(text.unicodeScalars)]
        case .array(let elements): elements.flatMap(scalars)
        case .object(let members): members.sorted { $0.key < $1.key }.flatMap { [Array($0.key.unicodeScalars)] + scalars($0.value) }
        default: []
        }
    }
}
