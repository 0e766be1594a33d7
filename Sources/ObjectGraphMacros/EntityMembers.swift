import SwiftSyntax

/// The members `@Entity` adds to a class, by its place in a hierarchy:
///
/// - a final class with no `@Entity` superclass (most entities): its state, its declaration as a
///   `static let`, and property accessors whose index is a constant;
/// - a class that can have subclasses (not final): the same, with its declaration behind a
///   `class var` that subclasses override, its persisted properties listed by a generic function
///   whose key paths start from any subclass (`\Sub.title` equals the subclass's own
///   `\WorkEvent.title`, which a predicate on the subclass writes), and the lifecycle hooks it does
///   not declare, so that subclasses can override them;
/// - a subclass of an `@Entity` class (a subentity): its own handle on the state, which its
///   superclasses' initializers take over (`ObjectState._claimForSubclass(_:)`), its declaration
///   naming its parent, and properties indexed after the inherited ones.
///
/// Every accessor reads `_$ownState_<Type>` at `<Type>._$firstIndex_<Type> &+ index`: the first
/// index is a constant 0 in a class without an `@Entity` superclass, which the optimizer folds, so
/// that an entity without a hierarchy pays nothing for them.
struct EntityHierarchyMembers {
    let typeName: String
    let entityName: String
    let originalName: String
    /// The `@Entity` superclass's name; nil for a root.
    let superclass: String?
    let isFinal: Bool
    let properties: [PersistedProperty]
    let groupArguments: String
    let placeholders: String
    /// The names of the functions the class declares (hooks it overrides itself).
    let declaredMembers: Set<String>
    /// Whether the class declares an initializer. A subclass that declares none, and whose
    /// properties all have a default, inherits its superclass's initializers, the materializing
    /// one included: declaring that one here would keep it from inheriting the others.
    let declaresInitializer: Bool

    /// The lifecycle hooks of `Entity`, with their signatures.
    static let hooks: [(name: String, signature: String)] = [
        ("awakeFromInsert", "func awakeFromInsert()"), ("prepareForDeletion", "func prepareForDeletion()"),
        ("willSave", "func willSave()"), ("didSave", "func didSave()"),
        ("validateForInsert", "func validateForInsert() throws"), ("validateForUpdate", "func validateForUpdate() throws"),
        ("validateForDelete", "func validateForDelete() throws")
    ]

    func members() -> [DeclSyntax] {
        let declarationName = "_$declaration_\(typeName)"
        let ownState = "_$ownState_\(typeName)"
        var members: [DeclSyntax] = []
        if let superclass {
            members += [
                """
                /// This class's handle on the object's state, which its superclasses' take over.
                @_documentation(visibility: internal)
                public let \(raw: ownState): ObjectGraph.ObjectState = ObjectGraph.ObjectState._claimForSubclass(\(raw: typeName).\(raw: declarationName))
                """,
                """
                /// Where this class's persisted properties start among the entity's.
                @_documentation(visibility: internal)
                public static let _$firstIndex_\(raw: typeName): Int = \(raw: superclass)._$entity.properties.count
                """,
                """
                /// The declaration ObjectGraph builds this entity's schema from.
                @_documentation(visibility: internal)
                override public class var _$entity: ObjectGraph.EntityDeclaration { \(raw: typeName).\(raw: declarationName) }
                """,
                """
                @_documentation(visibility: internal)
                public static let \(raw: declarationName) = ObjectGraph.EntityDeclaration(\(raw: typeName).self, name: \(raw: entityName), originalName: \(raw: originalName), parent: \(raw: superclass)._$entity, properties: \(raw: typeName)._$properties_\(raw: typeName)(\(raw: typeName).self)\(raw: groupArguments))
                """,
                propertiesFunction(inherited: "\(superclass)._$properties_\(superclass)(Sub.self) + ")
            ]
            if declaresInitializer || !placeholders.isEmpty {
                members.append(
                    """
                    /// Materializes an object whose state ObjectGraph prepared; not for direct use.
                    @_documentation(visibility: internal)
                    public required init(_$materializing token: ObjectGraph.MaterializationToken) {
                    \(raw: placeholders)
                    super.init(_$materializing: token)
                    }
                    """)
            }
            return members
        }
        members += [
            """
            /// Storage of this object's persistent values, managed by ObjectGraph.
            @_documentation(visibility: internal)
            public let \(raw: ownState): ObjectGraph.ObjectState = ObjectGraph.ObjectState._claim(\(raw: typeName)._$entity)
            """,
            """
            /// Storage of this object's persistent values, managed by ObjectGraph.
            @_documentation(visibility: internal)
            public var _$state: ObjectGraph.ObjectState { \(raw: ownState) }
            """,
            """
            /// Where this class's persisted properties start among the entity's: it has no superclass.
            @_documentation(visibility: internal)
            public static var _$firstIndex_\(raw: typeName): Int { 0 }
            """
        ]
        if isFinal {
            let declarations = properties.map { $0.declarationExpression(root: typeName) }.joined(separator: ",\n")
            members += [
                """
                /// Materializes an object whose state ObjectGraph prepared; not for direct use.
                @_documentation(visibility: internal)
                public init(_$materializing token: ObjectGraph.MaterializationToken) {
                \(raw: placeholders)
                }
                """,
                """
                /// The declaration ObjectGraph builds this entity's schema from.
                @_documentation(visibility: internal)
                public static let _$entity = ObjectGraph.EntityDeclaration(\(raw: typeName).self, name: \(raw: entityName), originalName: \(raw: originalName), properties: [
                \(raw: declarations)
                ]\(raw: groupArguments))
                """
            ]
            return members
        }
        members += [
            """
            /// Materializes an object whose state ObjectGraph prepared; not for direct use.
            @_documentation(visibility: internal)
            public required init(_$materializing token: ObjectGraph.MaterializationToken) {
            \(raw: placeholders)
            }
            """,
            """
            /// The declaration ObjectGraph builds this entity's schema from; each subclass has its own.
            @_documentation(visibility: internal)
            public class var _$entity: ObjectGraph.EntityDeclaration { \(raw: typeName).\(raw: declarationName) }
            """,
            """
            @_documentation(visibility: internal)
            public static let \(raw: declarationName) = ObjectGraph.EntityDeclaration(\(raw: typeName).self, name: \(raw: entityName), originalName: \(raw: originalName), properties: \(raw: typeName)._$properties_\(raw: typeName)(\(raw: typeName).self)\(raw: groupArguments))
            """,
            propertiesFunction(inherited: "")
        ]
        // A hook the class does not declare, declared here with the protocol's default behavior
        // (none), so that a subclass's own is an override that ObjectGraph calls.
        for hook in Self.hooks where !declaredMembers.contains(hook.name) {
            members.append(
                """
                /// Does nothing; a subclass overrides it.
                public \(raw: hook.signature) {}
                """)
        }
        return members
    }

    /// `_$properties_<Type>(_:)`: the persisted properties of the class and its superclasses, with
    /// key paths from `Sub`, any subclass.
    private func propertiesFunction(inherited: String) -> DeclSyntax {
        let declarations = properties.map { $0.declarationExpression(root: "Sub") }.joined(separator: ",\n")
        return """
            /// The persisted properties of this class and its superclasses, in order, their key paths
            /// starting from `Sub`.
            @_documentation(visibility: internal)
            public static func _$properties_\(raw: typeName)<Sub: \(raw: typeName)>(_: Sub.Type) -> [ObjectGraph.PropertyDeclaration] {
                \(raw: inherited)[
                \(raw: declarations)
                ]
            }
            """
    }
}
