import ObjectGraphContext
public import ObjectGraphModel

/// How a ``ListMonitor`` groups its objects into sections: by the value of an attribute, or of an
/// attribute reached through to-one relationships (`\Mood.country?.name`), with an optional
/// transform of that value into the section's displayed name.
///
/// The list's first sort descriptor must sort by the same key path, so that each section's objects
/// are together (NSFetchedResultsController's requirement too); the monitor refuses other orders.
public struct SectionBy<Object: Entity> {
    let keyPath: AnyKeyPath
    /// The value that identifies an object's section, as text; nil for a nil value.
    let key: (Object) -> String?
    /// The displayed name of the section with a key.
    let name: (String?) -> String?

    /// Sections by the value at `keyPath`, named by `name` (the value itself by default).
    ///
    /// - Parameters:
    ///   - keyPath: The attribute, or the path to a related object's attribute, that groups objects.
    ///   - name: Turns the section's value, as text (nil for nil), into the name to display.
    public init<Value>(_ keyPath: KeyPath<Object, Value>, name: @escaping (String?) -> String? = { $0 }) {
        self.keyPath = keyPath
        // Text is read as it is: the general path boxes the value and casts it twice, which cost
        // more than reading it (a third of opening a list sectioned by `\.country?.name`).
        if let text = keyPath as? KeyPath<Object, String?> {
            self.key = Self.relatedText(at: keyPath) ?? { object in object[keyPath: text] }
        } else if let text = keyPath as? KeyPath<Object, String> {
            self.key = { object in object[keyPath: text] }
        } else {
            self.key = { object in SectionBy.text(of: object[keyPath: keyPath]) }
        }
        self.name = name
    }

    /// For a key path to a related object's text attribute (`\Mood.country?.name`), a reading
    /// through the accessors it names, called directly: the key path's own walk cost more than
    /// both accessors together. Nil for any other key path.
    private static func relatedText(at keyPath: AnyKeyPath) -> ((Object) -> String?)? {
        guard let related = Object._$entity.relatedAttribute(at: keyPath),
            case .attribute(let attribute) = related.destination.properties[related.attributeIndex].kind,
            attribute.type == .string
        else { return nil }
        let relationship = related.relationshipIndex, index = related.attributeIndex
        // The same calls as `object.country?.name`: the relationship's getter (which hides a marked
        // object), then the attribute's, typed as it is declared.
        if attribute.isOptional {
            return { object in
                guard let destination = object._$state.relatedObject(at: relationship) else { return nil }
                return destination._$state.value(at: index) as String?
            }
        }
        return { object in
            guard let destination = object._$state.relatedObject(at: relationship) else { return nil }
            return destination._$state.value(at: index) as String
        }
    }

    private static func text(of value: Any) -> String? {
        if let optional = value as? any OptionalValue { return optional.wrappedText }
        return String(describing: value)
    }
}

/// An optional's wrapped value as text, without knowing its type.
private protocol OptionalValue {
    var wrappedText: String? { get }
}

extension Optional: OptionalValue {
    fileprivate var wrappedText: String? {
        switch self {
        case .none: return nil
        case .some(let value):
            if let nested = value as? any OptionalValue { return nested.wrappedText }
            return String(describing: value)
        }
    }
}
