public import SwiftSyntax
public import SwiftSyntaxMacros

/// `@_PersistedProperty(index:)`: routes a stored property through its object's state.
///
/// The init accessor lets declarations keep their default values (`var rating = 3`) and lets user
/// initializers assign properties before the object is inserted into a context.
public struct PersistedPropertyMacro: AccessorMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard case .argumentList(let arguments) = node.arguments,
            let index = arguments.first?.expression.trimmedDescription
        else { return [] }
        return [
            """
            @storageRestrictions(accesses: _$state)
            init(initialValue) {
                _$state.initialize(initialValue, at: \(raw: index))
            }
            """,
            "get { _$state.value(at: \(raw: index)) }",
            "set { _$state.setValue(newValue, at: \(raw: index)) }"
        ]
    }
}

/// `@Attribute`, `@Relationship` and `@Transient` only carry information that `@Entity` reads.
public struct MarkerMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] { [] }
}
