import SwiftDiagnostics
public import SwiftSyntax
public import SwiftSyntaxMacros

/// `#Unique<Root>(…)` and `#Index<Root>(…)`: groups of properties, declared in an `@Entity` class.
///
/// They expand to nothing: `@Entity`, which sees the class's members, copies their groups into the
/// entity's declaration, where the key paths are checked against the class. This expansion checks
/// what `@Entity` cannot say well once the text is copied: that the macro sits in an `@Entity`
/// class, names that class, and lists at least one non-empty group.
public struct PropertyGroupsMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        let macro = "#" + node.macroName.text
        guard let entity = context.lexicalContext.lazy.compactMap({ $0.as(ClassDeclSyntax.self) }).first,
            entity.attributes.contains(where: { $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription == "Entity" })
        else {
            context.diagnose(Diagnostic(node: node, message: PropertyGroupsDiagnostic.outsideEntity(macro)))
            return []
        }
        let className = entity.name.text
        if let root = node.genericArgumentClause?.arguments.first?.argument.trimmedDescription,
            root != className, root != "Self"
        {
            context.diagnose(
                Diagnostic(node: node, message: PropertyGroupsDiagnostic.otherRoot(macro, root: root, entity: className)))
        }
        if node.arguments.isEmpty {
            context.diagnose(Diagnostic(node: node, message: PropertyGroupsDiagnostic.noGroup(macro)))
        }
        for argument in node.arguments {
            if let array = argument.expression.as(ArrayExprSyntax.self), array.elements.isEmpty {
                context.diagnose(Diagnostic(node: argument, message: PropertyGroupsDiagnostic.emptyGroup(macro)))
            }
        }
        return []
    }

    /// The groups `#Unique` (or `#Index`, per `macroName`) declares among `declaration`'s members,
    /// each as written (`[\.firstName, \.lastName]`), in order.
    static func groups(named macroName: String, in declaration: some DeclGroupSyntax) -> [String] {
        declaration.memberBlock.members.flatMap { member -> [String] in
            guard let expansion = member.decl.as(MacroExpansionDeclSyntax.self), expansion.macroName.text == macroName
            else { return [] }
            return expansion.arguments.map(\.expression.trimmedDescription)
        }
    }
}

enum PropertyGroupsDiagnostic: DiagnosticMessage {
    case outsideEntity(String)
    case otherRoot(String, root: String, entity: String)
    case noGroup(String)
    case emptyGroup(String)

    var message: String {
        switch self {
        case .outsideEntity(let macro): "\(macro) belongs in the body of an @Entity class"
        case let .otherRoot(macro, root, entity): "\(macro)<\(root)> in \(entity): name the class it is in, \(macro)<\(entity)>"
        case .noGroup(let macro): "\(macro) needs at least one group of properties, such as [\\.name]"
        case .emptyGroup(let macro): "a group of \(macro) needs at least one property"
        }
    }
    var diagnosticID: MessageID {
        let id =
            switch self {
            case .outsideEntity: "outsideEntity"
            case .otherRoot: "otherRoot"
            case .noGroup: "noGroup"
            case .emptyGroup: "emptyGroup"
            }
        return MessageID(domain: "ObjectGraphMacros", id: id)
    }
    var severity: DiagnosticSeverity { .error }
}
