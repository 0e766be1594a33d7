import Foundation

/// A rule an attribute's values must follow, declared with `@Attribute`: a range, a length or a
/// pattern (see ``AttributeOption``). A save that would store a value breaking it fails with
/// ``ValidationFailure/Reason/violatesRule(_:value:)``, naming the entity, object, attribute and rule.
///
/// A nil value follows every rule: whether a value is required is the attribute's type's business.
public struct AttributeRule: Sendable, Hashable, CustomStringConvertible {
    package enum Kind: Hashable {
        /// Bounds as stored values: a numeric kind compares with the other (`.integer` bounds suit a
        /// `.real` attribute), as SQLite and ``StoredValue``'s order do.
        case range(minimum: StoredValue?, maximum: StoredValue?)
        case length(minimum: Int?, maximum: Int?)
        case matches(String)
    }
    package let kind: Kind
    /// Why a bound could not be stored, for the model's error.
    package private(set) var boundFailure: String?

    package init(kind: Kind) {
        self.kind = kind
    }

    package init<Bound: AttributeValue>(range minimum: Bound?, _ maximum: Bound?) {
        var failure: String?
        func stored(_ bound: Bound?) -> StoredValue? {
            guard let bound else { return nil }
            do {
                return try bound.checkedStoredValue()
            } catch {
                failure = "a bound of the range cannot be stored: \(error)"
                return nil
            }
        }
        self.kind = .range(minimum: stored(minimum), maximum: stored(maximum))
        self.boundFailure = failure
        self.boundType = Bound.attributeType
    }

    /// The attribute type of a range's bounds.
    package private(set) var boundType: AttributeType?

    /// What the rule asks of a value, for messages: `in 1...5`, `at least 0`, `at most 100`, `of a
    /// length in 1...200`, `of a length of at least 1`, `matching "[A-Z]{2}"`.
    public var description: String {
        func bounds(_ minimum: String?, _ maximum: String?) -> String {
            switch (minimum, maximum) {
            case let (minimum?, maximum?): "in \(minimum)...\(maximum)"
            case let (minimum?, nil): "at least \(minimum)"
            case let (nil, maximum?): "at most \(maximum)"
            case (nil, nil): "anything"
            }
        }
        switch kind {
        case let .range(minimum, maximum):
            return bounds(minimum.map(Self.text), maximum.map(Self.text))
        case let .length(minimum, maximum):
            let length = bounds(minimum.map(String.init), maximum.map(String.init))
            return "of a length \(length.hasPrefix("in") ? "" : "of ")\(length)"
        case .matches(let pattern):
            return "matching \"\(pattern)\""
        }
    }

    private static func text(_ value: StoredValue) -> String {
        switch value {
        case .integer(let integer): "\(integer)"
        case .real(let real): "\(real)"
        case .text(let text): text
        case .null, .blob: "\(value)"
        }
    }

    /// Why the rule cannot apply to an attribute of `type`, or nil when it can.
    package func problem(for type: AttributeType) -> String? {
        if let boundFailure { return boundFailure }
        switch kind {
        case .range:
            guard [.integer, .double, .date].contains(type) else {
                return "a range applies to integer, floating-point and date attributes, not \(type)"
            }
            guard let boundType else { return nil }
            let numeric: Set<AttributeType> = [.integer, .double]
            if boundType == type || (numeric.contains(boundType) && numeric.contains(type)) { return nil }
            return "the range's bounds are of type \(boundType), the attribute of type \(type)"
        case .length:
            guard [.string, .data].contains(type) else {
                return "a length applies to string and data attributes, not \(type)"
            }
            return nil
        case .matches(let pattern):
            guard type == .string else { return "a pattern applies to string attributes, not \(type)" }
            do {
                _ = try Regex(pattern)
                return nil
            } catch {
                return "the pattern \"\(pattern)\" does not compile: \(error)"
            }
        }
    }

    /// The compiled pattern of a `matches` rule.
    package func compiledPattern() -> Regex<AnyRegexOutput>? {
        guard case .matches(let pattern) = kind else { return nil }
        return try? Regex(pattern)
    }
}
