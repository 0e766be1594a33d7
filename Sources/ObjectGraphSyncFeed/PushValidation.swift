import Foundation
public import ObjectGraphSyncProtocol

extension PushRequest {
    /// Refuses a batch that is malformed or over the limits, naming the mutation, entity, record
    /// and field at fault. Nothing has been read or written when it throws.
    public func validate(against limits: ServerLimits) throws(SyncRefusal) {
        guard !mutations.isEmpty else {
            throw .badRequest("A push needs at least one mutation.")
        }
        guard mutations.count <= limits.maxMutationsPerPush else {
            throw .tooLarge(
                "A push holds at most \(limits.maxMutationsPerPush) mutations; this one has \(mutations.count).")
        }
        var previous: Int64 = 0
        for mutation in mutations {
            guard mutation.number > previous else {
                throw .badRequest(
                    "Mutation numbers must increase within a push and start at 1 or more: "
                        + "\(mutation.number) follows \(previous).")
            }
            previous = mutation.number
            try mutation.validate(against: limits)
        }
    }
}

extension Mutation {
    /// Where a message names this mutation.
    public var label: String { "mutation \(number) (\(entity) \(id.uuidString))" }

    fileprivate func validate(against limits: ServerLimits) throws(SyncRefusal) {
        guard !entity.isEmpty, entity.unicodeScalars.count <= limits.maxNameLength else {
            throw .badRequest("Mutation \(number): the entity name must have 1 to \(limits.maxNameLength) characters.")
        }
        if let fault = entity.nameFault {
            throw .badRequest("Mutation \(number): the entity name \(entity.prefix(40).debugDescription) \(fault).")
        }
        if let baseVersion, baseVersion < 1 {
            throw .badRequest("\(label): baseVersion \(baseVersion) is not a version (versions start at 1).")
        }
        switch operation {
        case .delete:
            guard fields.isEmpty else {
                throw .badRequest("\(label): a delete carries no fields.")
            }
        case .upsert:
            for name in fields.keys where name.isEmpty || name.unicodeScalars.count > limits.maxNameLength {
                throw .badRequest(
                    "\(label): the field name \(name.prefix(40).debugDescription) must have 1 to \(limits.maxNameLength) characters.")
            }
            for name in fields.keys {
                if let fault = name.nameFault {
                    throw .badRequest("\(label): the field name \(name.prefix(40).debugDescription) \(fault).")
                }
            }
        }
    }
}

extension StringProtocol {
    /// Whether the text holds a control character (Unicode's category Cc: U+0000 to U+001F, U+007F
    /// to U+009F). Names holding one are refused: SQLite cut a name at U+0000 (the record was then
    /// stored under another entity), PostgreSQL refused it, and names reach log lines and terminals.
    public var holdsControlCharacter: Bool {
        unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// Why the text cannot name an entity or a field, or nil when it can.
    ///
    /// One rule, so that a name means one thing to every client, to SQLite and PostgreSQL (which
    /// compare bytes) and to Swift (which compares by canonical equivalence): a name is in
    /// Unicode's composed form (NFC), so that two names are equal exactly when their bytes are, and
    /// holds nothing that is not seen where it is shown: no control character (Cc), no format
    /// character (Cf: a soft hyphen, a zero-width space, a direction override) and no line or
    /// paragraph separator (Zl, Zp).
    public var nameFault: String? {
        // Every mutation's names pass here: ASCII text, nearly every name, is checked without
        // Unicode's tables and is NFC as it stands.
        var isASCII = true
        for scalar in unicodeScalars {
            if scalar.isASCII {
                if scalar.value < 0x20 || scalar.value == 0x7F { return "holds a control character (\(Self.code(scalar)))" }
                continue
            }
            isASCII = false
            switch scalar.properties.generalCategory {
            case .control: return "holds a control character (\(Self.code(scalar)))"
            case .format: return "holds a format character (\(Self.code(scalar))), unseen where the name is shown"
            case .lineSeparator, .paragraphSeparator: return "holds a line or paragraph separator (\(Self.code(scalar)))"
            default: continue
            }
        }
        if isASCII { return nil }
        let text = String(self)
        guard text.unicodeScalars.elementsEqual(text.precomposedStringWithCanonicalMapping.unicodeScalars) else {
            return "is not in Unicode's composed form (NFC): send it composed"
        }
        return nil
    }

    /// `U+00AD`: how a refusal names a character.
    private static func code(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: Swift.max(0, 4 - hex.count)) + hex
    }
}
