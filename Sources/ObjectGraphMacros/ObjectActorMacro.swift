import SwiftDiagnostics
public import SwiftSyntax
import SwiftSyntaxBuilder
public import SwiftSyntaxMacros

/// `@ObjectActor`: gives an actor a background context of its own (SwiftData's `@ModelActor`).
///
/// It adds the container (`objectContainer`, nonisolated: a container is `Sendable`), the context
/// (`objectContext`, isolated to the actor, so the compiler keeps every use of it on the actor), an
/// initializer taking the container, and the conformance to `ObjectActor`.
public struct ObjectActorMacro: MemberMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let actor = declaration.as(ActorDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: ObjectActorDiagnostic.notAnActor))
            return []
        }
        // The members are as visible as the actor (a public actor's are public).
        let access =
            actor.modifiers.first { modifier in
                [.keyword(.public), .keyword(.package), .keyword(.open)].contains(modifier.name.tokenKind)
            }.map { $0.name.tokenKind == .keyword(.open) ? "public " : "\($0.name.text) " } ?? ""
        return [
            """
            /// The container whose store the actor works on.
            \(raw: access)nonisolated let objectContainer: ObjectGraph.ObjectContainer
            """,
            """
            /// The actor's own background context, named after the actor: every use of it is on the actor.
            \(raw: access)let objectContext: ObjectGraph.ObjectContext
            """,
            """
            /// An actor working on `objectContainer`'s store through a background context of its own.
            \(raw: access)init(objectContainer: ObjectGraph.ObjectContainer) {
                self.objectContainer = objectContainer
                let context = objectContainer.newBackgroundContext()
                context.name = String(describing: Self.self)
                self.objectContext = context
            }
            """
        ]
    }

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self) else { return [] }
        return [try ExtensionDeclSyntax("extension \(type.trimmed): ObjectGraph.ObjectActor {}")]
    }
}

enum ObjectActorDiagnostic: String, DiagnosticMessage {
    case notAnActor

    var message: String { "@ObjectActor applies to actors only" }
    var diagnosticID: MessageID { MessageID(domain: "ObjectGraphMacros", id: rawValue) }
    var severity: DiagnosticSeverity { .error }
}
