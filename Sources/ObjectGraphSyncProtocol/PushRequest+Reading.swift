import Foundation

/// A request body that is not what the protocol says: where (`mutations[2].baseVersion`) and why.
public struct RequestBodyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where in the body: a path of keys and indexes, or `the body`.
    public var path: String
    /// What is wrong there.
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}

extension PushRequest {
    /// Reads a push body as the server does: strict JSON (``JSONTextReader``), then the request's
    /// shape, refusing an unknown key (a misspelt `baseVerison` must not turn an update into an
    /// unconditional write), a missing one and a value of the wrong kind, each with its path.
    ///
    /// It costs a pass over the bytes, whatever the body's shape. Foundation's `JSONDecoder` reads
    /// the same bodies (``init(from:)``) as this does, except for the text ``JSONTextReader``
    /// refuses and Foundation does not (a key twice, a whole number past 64 bits).
    public init(jsonBytes: [UInt8]) throws(RequestBodyError) {
        let value: JSONValue
        do {
            value = try JSONTextReader.value(of: jsonBytes)
        } catch {
            throw RequestBodyError(path: "the body", reason: "not JSON: \(error.reason) (byte \(error.offset))")
        }
        var body = try BodyObject(value, at: "")
        let clientID = try body.uuid("clientID")
        let mutations = try body.array("mutations").enumerated().map { (index, element) throws(RequestBodyError) in
            try Mutation(element, at: "mutations[\(index)]")
        }
        try body.refuseOthers()
        self.init(clientID: clientID, mutations: mutations)
    }
}

extension Mutation {
    fileprivate init(_ value: JSONValue, at path: String) throws(RequestBodyError) {
        var members = try BodyObject(value, at: path)
        let number = try members.integer("number")
        let operationText = try members.string("operation")
        guard let operation = Operation(rawValue: operationText) else {
            throw RequestBodyError(
                path: members.path("operation"), reason: "\"\(operationText.prefix(40))\" is not upsert or delete")
        }
        let entity = try members.string("entity")
        let id = try members.uuid("id")
        let baseVersion = try members.optionalInteger("baseVersion")
        let fields = try members.optionalObject("fields") ?? [:]
        try members.refuseOthers()
        self.init(number: number, operation: operation, entity: entity, id: id, baseVersion: baseVersion, fields: fields)
    }
}

/// The members of a JSON object of a request, taken one by one; what is left is unknown.
private struct BodyObject {
    private var members: [String: JSONValue]
    private let prefix: String

    init(_ value: JSONValue, at path: String) throws(RequestBodyError) {
        guard case .object(let members) = value else {
            throw RequestBodyError(path: path.isEmpty ? "the body" : path, reason: "expected an object")
        }
        self.members = members
        self.prefix = path
    }

    func path(_ key: String) -> String { prefix.isEmpty ? key : "\(prefix).\(key)" }

    private mutating func take(_ key: String) throws(RequestBodyError) -> JSONValue {
        guard let value = members.removeValue(forKey: key) else {
            throw RequestBodyError(path: path(key), reason: "is missing")
        }
        return value
    }

    /// The member, nil when absent or null.
    private mutating func takeOptional(_ key: String) -> JSONValue? {
        switch members.removeValue(forKey: key) {
        case nil, .null?: nil
        case let value?: value
        }
    }

    mutating func integer(_ key: String) throws(RequestBodyError) -> Int64 {
        let value = try take(key)
        guard case .integer(let integer) = value else { throw mismatch(key, "a whole number", value) }
        return integer
    }

    mutating func optionalInteger(_ key: String) throws(RequestBodyError) -> Int64? {
        guard let value = takeOptional(key) else { return nil }
        guard case .integer(let integer) = value else { throw mismatch(key, "a whole number", value) }
        return integer
    }

    mutating func string(_ key: String) throws(RequestBodyError) -> String {
        let value = try take(key)
        guard case .string(let string) = value else { throw mismatch(key, "a string", value) }
        return string
    }

    mutating func uuid(_ key: String) throws(RequestBodyError) -> UUID {
        let value = try take(key)
        guard case .string(let string) = value else { throw mismatch(key, "a UUID string", value) }
        guard let uuid = UUID(uuidString: string) else {
            throw RequestBodyError(path: path(key), reason: "\"\(string.prefix(40))\" is not a UUID")
        }
        return uuid
    }

    mutating func array(_ key: String) throws(RequestBodyError) -> [JSONValue] {
        let value = try take(key)
        guard case .array(let elements) = value else { throw mismatch(key, "an array", value) }
        return elements
    }

    mutating func optionalObject(_ key: String) throws(RequestBodyError) -> [String: JSONValue]? {
        guard let value = takeOptional(key) else { return nil }
        guard case .object(let members) = value else { throw mismatch(key, "an object", value) }
        return members
    }

    /// Refuses the members nobody took.
    func refuseOthers() throws(RequestBodyError) {
        if let unknown = members.keys.min() {
            throw RequestBodyError(path: path(unknown), reason: "is not a key of this object")
        }
    }

    private func mismatch(_ key: String, _ expected: String, _ found: JSONValue) -> RequestBodyError {
        let kind =
            switch found {
            case .null: "null"
            case .bool: "a boolean"
            case .integer: "a whole number"
            case .double: "a number with a fraction"
            case .string: "a string"
            case .array: "an array"
            case .object: "an object"
            }
        return RequestBodyError(path: path(key), reason: "expected \(expected), found \(kind)")
    }
}
