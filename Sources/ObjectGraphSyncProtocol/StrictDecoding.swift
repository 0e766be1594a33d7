/// A coding key for any name: lets a decoder list every key an object has.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension Decoder {
    /// Refuses an object that has a key its type does not know.
    ///
    /// The protocol is strict on purpose: a misspelt field name (`baseVerison`) must fail loudly,
    /// not be ignored and turn an update into a conflict or, worse, into an unconditional write.
    func refuseUnknownKeys<Key: CodingKey & CaseIterable>(_ known: Key.Type) throws {
        let container = try container(keyedBy: AnyCodingKey.self)
        let names = Set(Key.allCases.map(\.stringValue))
        if let unknown = container.allKeys.first(where: { !names.contains($0.stringValue) }) {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: codingPath + [unknown],
                    debugDescription: "unknown key \"\(unknown.stringValue)\""))
        }
    }
}
