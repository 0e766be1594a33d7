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
            let index = arguments.first?.expression.trimmedDescription,
            let owner = arguments.first(where: { $0.label?.text == "owner" })?.expression
                .as(StringLiteralExprSyntax.self)?.representedLiteralValue
        else { return [] }
        // The class's own handle on the state, and its properties' place after the inherited ones
        // (a constant 0 in a class without an `@Entity` superclass: see `EntityHierarchyMembers`).
        let state = "_$ownState_\(owner)"
        let position = "\(owner)._$firstIndex_\(owner) &+ \(index)"
        return [
            """
            @storageRestrictions(accesses: \(raw: state))
            init(initialValue) {
                \(raw: state).initialize(initialValue, at: \(raw: position))
            }
            """,
            "get { \(raw: state).value(at: \(raw: position)) }",
            "set { \(raw: state).setValue(newValue, at: \(raw: position)) }"
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
