import Foundation

/// The model: every entity, built from `@Entity` classes.
///
/// Pass the classes you use; entities they reach through relationships, and the parents of
/// subentities, are included too: `try Schema(Mood.self)` holds Mood, Country and Continent. A
/// subentity is included only when its class is passed (or reached): `Schema(Event.self)` cannot
/// know `WorkEvent`.
public struct Schema: Sendable {
    /// The entities, sorted by name.
    public let entities: [EntityDescription]
    /// A hash of everything that shapes the store; it differs whenever a migration is needed.
    public let versionHash: String
    package let declarations: [EntityDeclaration]

    /// Builds the schema of the given entity classes and of every entity they reach.
    ///
    /// - Throws: ``ObjectGraphError/invalidModel(_:)`` naming the entity and property at fault, for
    ///   example a relationship without an inverse, or two entities with the same name.
    public init(_ types: any Entity.Type...) throws {
        try self.init(types)
    }

    /// Builds the schema of the given entity classes and of every entity they reach.
    public init(_ types: [any Entity.Type]) throws {
        var found: [String: EntityDeclaration] = [:]
        var pending = types.map { $0._$entity }
        while let declaration = pending.popLast() {
            if let existing = found[declaration.name] {
                guard existing === declaration else {
                    throw ObjectGraphError.invalidModel(
                        "two classes declare the entity '\(declaration.name)': \(existing.type) and \(declaration.type)")
                }
                continue
            }
            found[declaration.name] = declaration
            // A subentity's parent is part of the model: its objects are the parent's too.
            if let parent = declaration.parent { pending.append(parent) }
            for property in declaration.properties {
                if case .relationship(let relationship) = property.kind {
                    pending.append(relationship.destination())
                }
            }
        }
        declarations = found.values.sorted { $0.name < $1.name }
        entities = try declarations.map(Schema.describe)
        versionHash = try Schema.hash(of: entities)
    }

    /// The entity named `name`.
    public func entity(named name: String) -> EntityDescription? {
        entities.first { $0.name == name }
    }

    private static func describe(_ declaration: EntityDeclaration) throws -> EntityDescription {
        var attributes: [AttributeDescription] = []
        var relationships: [RelationshipDescription] = []
        for property in declaration.properties {
            let location = "\(declaration.name).\(property.name)"
            if property.name.hasPrefix("Z_") {
                throw ObjectGraphError.invalidModel("\(location): names starting with 'Z_' are reserved")
            }
            switch property.kind {
            case .attribute(let attribute):
                if !attribute.isInhabited, !attribute.isOptional {
                    throw ObjectGraphError.invalidModel(
                        "\(location): \(attribute.typeName) has no case, so no value of it can be stored")
                }
                if let failure = attribute.defaultValueFailure {
                    throw ObjectGraphError.invalidModel("\(location): the default value cannot be stored: \(failure)")
                }
                for rule in attribute.rules {
                    if let problem = rule.problem(for: attribute.type) {
                        throw ObjectGraphError.invalidModel("\(location): the rule that its values be \(rule) cannot apply: \(problem)")
                    }
                }
                if attribute.options.contains(.searchable), attribute.type != .string {
                    throw ObjectGraphError.invalidModel(
                        "\(location): only text can be searchable, and \(attribute.typeName) is not text")
                }
                if attribute.options.contains(.externalStorage) {
                    if attribute.type != .data {
                        throw ObjectGraphError.invalidModel(
                            "\(location): only data can be stored outside the rows, and \(attribute.typeName) is not data")
                    }
                    let clashing: [(AttributeOption, String)] = [
                        (.unique, "unique"), (.indexed, "indexed"), (.preserveValueOnDeletion, "preserved on deletion")
                    ]
                    if let (_, name) = clashing.first(where: { attribute.options.contains($0.0) }) {
                        throw ObjectGraphError.invalidModel(
                            "\(location): a value stored outside the rows cannot be \(name) (the row holds only the file's name)")
                    }
                }
                if case .real(let value)? = attribute.defaultValue, !value.isFinite {
                    throw ObjectGraphError.invalidModel(
                        "\(location): the default value \(value) is not finite, and SQLite cannot store it")
                }
                attributes.append(
                    AttributeDescription(
                        name: property.name, type: attribute.type, isOptional: attribute.isOptional,
                        defaultValue: attribute.defaultValue, isUnique: attribute.options.contains(.unique),
                        isIndexed: attribute.options.contains(.indexed), originalName: attribute.originalName,
                        isSearchable: attribute.options.contains(.searchable),
                        allowsExternalStorage: attribute.options.contains(.externalStorage)))
            case .relationship(let relationship):
                let inverse = try inverseName(of: property, relationship, in: declaration)
                if let minimum = relationship.minimumCount, let maximum = relationship.maximumCount,
                    minimum > maximum
                {
                    throw ObjectGraphError.invalidModel(
                        "\(location): minimumCount \(minimum) is greater than maximumCount \(maximum)")
                }
                relationships.append(
                    RelationshipDescription(
                        name: property.name, destination: relationship.destination().name, inverse: inverse,
                        isToMany: relationship.isToMany, isOrdered: relationship.isOrdered,
                        deleteRule: relationship.deleteRule,
                        minimumCount: relationship.minimumCount, maximumCount: relationship.maximumCount))
            }
        }
        var description = EntityDescription(
            name: declaration.name, attributes: attributes, relationships: relationships,
            originalName: declaration.originalName)
        description.parentEntity = declaration.parent?.name
        try describeGroups(of: declaration, into: &description)
        return description
    }

    /// Adds `#Unique` and `#Index` groups to `description`, by property name. A group of one
    /// attribute becomes the attribute's `isUnique` or `isIndexed`, so that it has one form only.
    private static func describeGroups(of declaration: EntityDeclaration, into description: inout EntityDescription) throws {
        for (macro, groups) in [("#Unique", declaration.uniquenessGroups), ("#Index", declaration.indexGroups)] {
            for group in groups {
                var names: [String] = []
                for index in group {
                    guard let index else {
                        throw ObjectGraphError.invalidModel(
                            "\(declaration.name): a key path of \(macro) names no persisted property (a computed or "
                                + "@Transient property cannot be in a group)")
                    }
                    let property = declaration.properties[index]
                    let location = "\(declaration.name).\(property.name)"
                    if case .relationship(let relationship) = property.kind, relationship.isToMany {
                        throw ObjectGraphError.invalidModel(
                            "\(location): a to-many relationship cannot be in a \(macro) group (its members are rows of "
                                + "another table); use the to-one relationship on the other side")
                    }
                    if case .attribute(let attribute) = property.kind, attribute.options.contains(.externalStorage) {
                        throw ObjectGraphError.invalidModel(
                            "\(location): a value stored outside the rows cannot be in a \(macro) group (the row holds "
                                + "only the file's name)")
                    }
                    guard !names.contains(property.name) else {
                        throw ObjectGraphError.invalidModel("\(location) is named twice in one \(macro) group")
                    }
                    names.append(property.name)
                }
                let isUnique = macro == "#Unique"
                if names.count == 1, let slot = description.attributes.firstIndex(where: { $0.name == names[0] }) {
                    if isUnique { description.attributes[slot].isUnique = true } else { description.attributes[slot].isIndexed = true }
                } else if isUnique, !description.uniquenessConstraints.contains(names) {
                    description.uniquenessConstraints.append(names)
                } else if !isUnique, !description.indexes.contains(names) {
                    description.indexes.append(names)
                }
            }
        }
    }

    /// Finds the inverse: declared on this side, declared on the other side, or the only candidate.
    private static func inverseName(
        of property: PropertyDeclaration, _ relationship: RelationshipDeclaration,
        in declaration: EntityDeclaration
    ) throws -> String {
        let destination = relationship.destination()
        let location = "\(declaration.name).\(property.name)"
        func relationshipDeclaration(_ candidate: PropertyDeclaration) -> RelationshipDeclaration? {
            if case .relationship(let r) = candidate.kind { return r }
            return nil
        }
        // The property a key path names in the entity `candidate` points to: a subentity's
        // inherited relationship is the one its parent declares, whose key paths start there.
        func names(_ keyPath: any AnyKeyPath & Sendable, _ target: EntityDeclaration) -> Bool {
            guard keyPath != property.keyPath else { return true }
            return target.propertyIndex(for: keyPath).map { target.properties[$0].name } == property.name
        }
        if let inverse = relationship.inverse {
            guard let index = destination.propertyIndex(for: inverse),
                let candidate = relationshipDeclaration(destination.properties[index]),
                declaration.isKind(of: candidate.destination())
            else {
                throw ObjectGraphError.invalidModel(
                    "\(location): its inverse must be a relationship of \(destination.name) that points back to \(declaration.name)")
            }
            let name = destination.properties[index].name
            if let declaredBack = candidate.inverse, !names(declaredBack, candidate.destination()) {
                throw ObjectGraphError.invalidModel(
                    "\(location) names \(destination.name).\(name) as inverse, but that one names another property")
            }
            return name
        }
        let pointingBack = destination.properties.filter { candidate in
            guard let r = relationshipDeclaration(candidate), declaration.isKind(of: r.destination()) else { return false }
            if let inverse = r.inverse { return names(inverse, r.destination()) }
            return !(destination === declaration && candidate.name == property.name)
        }
        let declaredHere = pointingBack.filter { relationshipDeclaration($0)?.inverse != nil }
        let candidates = declaredHere.isEmpty ? pointingBack : declaredHere
        guard candidates.count == 1, let inverse = candidates.first else {
            throw ObjectGraphError.invalidModel(
                candidates.isEmpty
                    ? "\(location) has no inverse: add a relationship to \(destination.name) that points back to \(declaration.name)"
                    : "\(location) has several possible inverses (\(candidates.map(\.name).joined(separator: ", "))): name one with @Relationship(inverse:)"
            )
        }
        return inverse.name
    }

    /// FNV-1a over a canonical JSON encoding: stable across runs and platforms.
    package static func hash(of entities: [EntityDescription]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data: Data
        do {
            data = try encoder.encode(entities)
        } catch {
            // Hashing nothing would make every model look alike, and skip a migration.
            throw ObjectGraphError.invalidModel("the model's description cannot be encoded for its version hash: \(error)")
        }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}
