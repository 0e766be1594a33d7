import Foundation
import SwiftDiagnostics
public import SwiftSyntax
import SwiftSyntaxBuilder
public import SwiftSyntaxMacros

/// `@Entity`: turns a class into an ObjectGraph entity; a subclass of an `@Entity` class is a
/// subentity (see `EntityMembers`).
///
/// It marks every stored `var` (but `@Transient` ones) as persisted, adds the object's state storage,
/// the initializer ObjectGraph uses to materialize fetched objects, and the static declaration from which
/// the schema is built. The macro cannot see types, so it never decides between attribute and relationship:
/// the generated calls are overloaded on the property's type and the compiler picks the right one.
public struct EntityMacro: MemberMacro, MemberAttributeMacro, ExtensionMacro {

    // MARK: MemberAttributeMacro

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        guard let variable = member.as(VariableDeclSyntax.self),
            let property = PersistedProperty(variable)
        else { return [] }
        let persisted = PersistedProperty.all(in: declaration)
        guard let index = persisted.firstIndex(where: { $0.name == property.name }) else { return [] }
        guard let owner = declaration.as(ClassDeclSyntax.self)?.name.trimmedDescription else { return [] }
        return ["@_PersistedProperty(index: \(raw: index), owner: \(literal: owner))"]
    }

    // MARK: MemberMacro

    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let classDecl = declaration.as(ClassDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: EntityDiagnostic.notAClass))
            return []
        }
        let typeName = classDecl.name.trimmedDescription
        let isFinal = classDecl.modifiers.contains { $0.name.tokenKind == .keyword(.final) }
        // The compiler lists the conformances the class does not have yet: a class without
        // `Entity` among them inherits it from an `@Entity` superclass, its first inherited type.
        let superclass: String?
        if protocols.contains(where: { $0.trimmedDescription.hasSuffix("Entity") }) {
            superclass = nil
        } else if let first = classDecl.inheritanceClause?.inheritedTypes.first?.type.trimmedDescription {
            superclass = first.split(separator: ".").last.map(String.init) ?? first
        } else {
            context.diagnose(Diagnostic(node: classDecl.name, message: EntityDiagnostic.notAClass))
            return []
        }
        let (nameArgument, originalName) = entityArguments(of: node)
        let entityName = nameArgument ?? "\"\(typeName)\""
        let properties = PersistedProperty.all(in: declaration)
        for invalid in PersistedProperty.letProperties(in: declaration) {
            context.diagnose(Diagnostic(node: invalid, message: EntityDiagnostic.letProperty))
        }
        // `#Unique` and `#Index` groups, copied as written: the key paths are checked here, against
        // the class (see `PropertyGroupsMacro`).
        var groupArguments = ""
        let uniqueness = PropertyGroupsMacro.groups(named: "Unique", in: declaration)
        let indexes = PropertyGroupsMacro.groups(named: "Index", in: declaration)
        if !uniqueness.isEmpty { groupArguments += ", uniqueness: [\(uniqueness.joined(separator: ", "))]" }
        if !indexes.isEmpty { groupArguments += ", indexes: [\(indexes.joined(separator: ", "))]" }
        // The materializing initializer gives each property without a default a placeholder, which
        // the state ignores (it holds the row's values already). An optional one starts as nil
        // through its init accessor, as a stored optional does: a placeholder would then be an
        // assignment, a setter call per property and object made.
        let placeholders = properties.filter { !$0.hasInitializer && !$0.isOptional }
            .map { "self.\($0.name) = ObjectGraph._placeholder()" }
            .joined(separator: "\n")
        let hierarchy = EntityHierarchyMembers(
            typeName: typeName, entityName: entityName, originalName: originalName ?? "nil", superclass: superclass,
            isFinal: isFinal, properties: properties, groupArguments: groupArguments, placeholders: placeholders,
            declaredMembers: Set(declaration.memberBlock.members.compactMap { $0.decl.as(FunctionDeclSyntax.self)?.name.text }),
            declaresInitializer: declaration.memberBlock.members.contains { $0.decl.is(InitializerDeclSyntax.self) })
        return hierarchy.members()
    }

    // MARK: ExtensionMacro

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        // A subclass of an `@Entity` class has the conformances of its superclass.
        guard declaration.is(ClassDeclSyntax.self), protocols.contains(where: { $0.trimmedDescription.hasSuffix("Entity") }) else {
            return []
        }
        // Objects are unique per context, so equality is identity.
        return [
            try ExtensionDeclSyntax(
                """
                extension \(type.trimmed): ObjectGraph.Entity, Swift.Hashable, Swift.Equatable {
                    public static func == (lhs: \(type.trimmed), rhs: \(type.trimmed)) -> Bool { lhs === rhs }
                    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
                }
                """)
        ]
    }

    /// The entity's name (the unlabelled argument) and former name (`originalName:`), as written.
    private static func entityArguments(of node: AttributeSyntax) -> (name: String?, originalName: String?) {
        guard case .argumentList(let arguments) = node.arguments else { return (nil, nil) }
        let name = arguments.first { $0.label == nil }?.expression.trimmedDescription
        let originalName = arguments.first { $0.label?.text == "originalName" }?.expression.trimmedDescription
        return (name, originalName)
    }
}

/// A stored `var` of an entity class that ObjectGraph persists.
struct PersistedProperty {
    let name: String
    let hasInitializer: Bool
    /// Declared with an optional type written `T?` or `T!`.
    let isOptional: Bool
    let initializer: String?
    let attributeArguments: String?
    let relationshipArguments: String?

    init?(_ variable: VariableDeclSyntax) {
        guard variable.bindingSpecifier.tokenKind == .keyword(.var),
            !variable.modifiers.contains(where: {
                [.keyword(.static), .keyword(.class), .keyword(.lazy)].contains($0.name.tokenKind)
            }),
            variable.bindings.count == 1,
            let binding = variable.bindings.first,
            let identifier = binding.pattern.as(IdentifierPatternSyntax.self),
            binding.accessorBlock == nil,  // computed properties are not persisted
            !Self.has(attribute: "Transient", in: variable)
        else { return nil }
        name = identifier.identifier.trimmedDescription
        initializer = binding.initializer?.value.trimmedDescription
        hasInitializer = binding.initializer != nil
        isOptional = binding.typeAnnotation.map { Self.isOptional($0.type) } ?? false
        attributeArguments = Self.arguments(of: "Attribute", in: variable)
        relationshipArguments = Self.arguments(of: "Relationship", in: variable)
    }

    static func all(in declaration: some DeclGroupSyntax) -> [PersistedProperty] {
        declaration.memberBlock.members.compactMap { member in
            member.decl.as(VariableDeclSyntax.self).flatMap(PersistedProperty.init)
        }
    }

    /// Stored `let` properties, which cannot be change-tracked.
    static func letProperties(in declaration: some DeclGroupSyntax) -> [VariableDeclSyntax] {
        declaration.memberBlock.members.compactMap { member in
            guard let variable = member.decl.as(VariableDeclSyntax.self),
                variable.bindingSpecifier.tokenKind == .keyword(.let),
                !variable.modifiers.contains(where: { $0.name.tokenKind == .keyword(.static) }),
                !has(attribute: "Transient", in: variable)
            else { return nil }
            return variable
        }
    }

    /// The expression that declares this property in the entity's `_$entity`; `root` is the type
    /// its key paths start from (the class, or the generic subclass of a class that has some).
    func declarationExpression(root: String) -> String {
        // The optional-chained key path (`\Mood?.?.text`) lets sorts match `\Other.mood?.text`.
        var arguments = ["\"\(name)\"", "\\\(root).\(name)", "chained: \\\(root)?.?.\(name)"]
        let function: String
        if let relationshipArguments {
            function = "relationship"
            if !relationshipArguments.isEmpty { arguments.append(relationshipArguments) }
        } else if let attributeArguments {
            function = "attribute"
            if !attributeArguments.isEmpty { arguments.append(attributeArguments) }
        } else {
            function = "property"
        }
        if let initializer { arguments.append("default: \(initializer)") }
        return ".\(function)(\(arguments.joined(separator: ", ")))"
    }

    /// Only the sugared spellings: like a stored `var x: Optional<T>`, a property spelled that way
    /// gets no implicit nil, and keeps its placeholder.
    private static func isOptional(_ type: TypeSyntax) -> Bool {
        type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self)
    }

    static func has(attribute name: String, in variable: VariableDeclSyntax) -> Bool {
        variable.attributes.contains { element in
            element.as(AttributeSyntax.self)?.attributeName.trimmedDescription == name
        }
    }

    private static func arguments(of name: String, in variable: VariableDeclSyntax) -> String? {
        for element in variable.attributes {
            guard let attribute = element.as(AttributeSyntax.self),
                attribute.attributeName.trimmedDescription == name
            else { continue }
            if case .argumentList(let list) = attribute.arguments {
                return list.map { argument in
                    // Unlabelled attribute options become the `options:` argument.
                    argument.label == nil && name == "Attribute"
                        ? "options: [\(argument.expression.trimmedDescription)]"
                        : argument.trimmedDescription.trimmingSuffix(",")
                }.joined(separator: ", ")
                    .mergingAttributeOptions()
            }
            return ""
        }
        return nil
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }

    /// `options: [.unique], options: [.indexed]` → `options: [.unique, .indexed]`.
    func mergingAttributeOptions() -> String {
        let parts = components(separatedBy: ", options: [")
        guard parts.count > 1 else { return self }
        var merged = parts[0]
        for part in parts.dropFirst() {
            merged = merged.trimmingSuffix("]") + ", " + part
        }
        return merged
    }
}

enum EntityDiagnostic: String, DiagnosticMessage {
    case notAClass
    case letProperty

    var message: String {
        switch self {
        case .notAClass: "@Entity applies to classes only"
        case .letProperty:
            "a stored 'let' cannot be persisted: declare it 'var', or mark it @Transient"
        }
    }
    var diagnosticID: MessageID { MessageID(domain: "ObjectGraphMacros", id: rawValue) }
    var severity: DiagnosticSeverity { .error }
}
