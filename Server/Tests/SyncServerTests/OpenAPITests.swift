import Foundation
import ObjectGraphSyncProtocol
import Testing

/// `Server/openapi.yaml` is what a client in another language is written from: it must keep
/// naming what the server does.
@Suite("The OpenAPI description agrees with the server", .timeLimit(.minutes(5)))
struct OpenAPITests {
    let description: String

    init() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../openapi.yaml").standardized
        description = try String(contentsOf: file, encoding: .utf8)
    }

    @Test("Every route and every error code is described")
    func routesAndCodes() {
        #expect(description.hasPrefix("openapi: 3.2"))
        for endpoint in Endpoint.allCases {
            for pattern in endpoint.pathPatterns {
                let route = pattern.split(separator: "/", omittingEmptySubsequences: false)
                    .map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
                #expect(description.contains("\n  \(route):\n"), "\(route) is not described")
            }
        }
        let codes = SyncErrorBody.Code.allCases.map(\.rawValue).joined(separator: ", ")
        #expect(description.contains("enum: [\(codes)]"), "the error codes are not [\(codes)]")
    }

    @Test("The wire format's keys are the described properties")
    func keys() throws {
        let mutation = Mutation.upsert(1, entity: "Mood", id: UUID(), baseVersion: 2, fields: ["text": .string("x")])
        let push = PushRequest(clientID: UUID(), mutations: [mutation])
        let page = ChangesPage(
            changes: [
                FeedChange(
                    position: 1, transaction: 1,
                    record: SyncedRecord(
                        entity: "Mood", id: mutation.id, version: 1, deleted: false, fields: [:]))
            ],
            cursor: FeedCursor(position: 1, zoneTag: 1), hasMore: false)
        let error = SyncErrorBody(
            error: .conflict, message: "m", conflicts: [.init(number: 1, server: page.changes[0].record)], lastAppliedNumber: 1)
        for value in [
            try keys(of: push), try keys(of: mutation), try keys(of: page), try keys(of: page.changes[0]),
            try keys(of: page.changes[0].record), try keys(of: error)
        ] {
            for key in value {
                #expect(description.contains("\n        \(key):"), "\(key) is not a described property")
            }
        }
    }

    private func keys(of value: some Encodable) throws -> [String] {
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(value))
        return (object as? [String: Any]).map { Array($0.keys) } ?? []
    }
}
