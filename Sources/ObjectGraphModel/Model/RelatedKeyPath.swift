import Foundation

/// Which to-one relationship, and which attribute of its destination, a key path such as
/// `\Mood.country?.name` reads: what a sort by a related object's attribute needs to know; and which
/// relationships a key path such as `\Mood.country?.continent` follows: what a monitor of related
/// objects needs to know.
///
/// Comparing the key path with the relationship's key path appended with the attribute's works
/// within one module, but a key path written in another module can name the same accessors through
/// other symbols once optimized, and then compares unequal. So when no composed key path is equal,
/// the key path is read on a probe: a detached object of this entity whose relationship leads to a
/// detached destination holding a sentinel in one attribute. The attribute whose sentinel comes back
/// is the one read. Answers are kept, per key path.
extension EntityDeclaration {
    /// A to-one relationship and an attribute of its destination, by property index in each entity.
    package struct RelatedAttribute: Sendable {
        package let relationshipIndex: Int
        package let destination: EntityDeclaration
        package let attributeIndex: Int
    }

    /// The relationship and attribute `keyPath` reads; nil for any other key path.
    package func relatedAttribute(at keyPath: AnyKeyPath) -> RelatedAttribute? {
        let key = AnswerKey(entity: ObjectIdentifier(self), keyPath: keyPath)
        if let known = keptAnswers.withLock({ $0[key] }) { return known }
        let found = composedMatch(keyPath) ?? probedMatch(keyPath)
        keptAnswers.withLock { $0[key] = found }
        return found
    }

    /// The candidates: each to-one relationship, with each attribute of its destination.
    private var candidates: [RelatedAttribute] {
        layout.toOneProperties.flatMap { relationshipIndex -> [RelatedAttribute] in
            guard case .relationship(let relationship) = properties[relationshipIndex].kind else { return [] }
            let destination = relationship.destination()
            return destination.layout.attributeProperties.map {
                RelatedAttribute(relationshipIndex: relationshipIndex, destination: destination, attributeIndex: $0)
            }
        }
    }

    private func composedMatch(_ keyPath: AnyKeyPath) -> RelatedAttribute? {
        candidates.first { candidate in
            let base: AnyKeyPath = properties[candidate.relationshipIndex].keyPath
            let chained = candidate.destination.properties[candidate.attributeIndex].chainedKeyPath as AnyKeyPath
            return base.appending(path: chained)?.namesSameProperties(as: keyPath) == true
        }
    }

    private func probedMatch(_ keyPath: AnyKeyPath) -> RelatedAttribute? {
        candidates.first { candidate in
            let destination = candidate.destination
            guard case .attribute(let slot) = destination.layout.slots[candidate.attributeIndex],
                case .attribute(let attribute) = destination.properties[candidate.attributeIndex].kind,
                let sentinel = Self.sentinel(for: attribute.type, replacing: destination.layout.initialValues[slot])
            else { return false }
            let related = MaterializationSlot.materialize(destination.type, with: ObjectState.makeNew(of: destination))
            related._$state.write(sentinel, atPosition: slot)
            let root = MaterializationSlot.materialize(type, with: ObjectState.makeNew(of: self))
            root._$state.detachedRelatives[candidate.relationshipIndex] = [related]
            return Self.read(keyPath, on: root) == sentinel
        }
    }

    /// The value `keyPath` reads on `object`, as stored; nil when it reads no attribute value.
    private static func read(_ keyPath: AnyKeyPath, on object: any Entity) -> StoredValue? {
        func read<Root: Entity>(_ root: Root) -> Any? {
            (keyPath as? PartialKeyPath<Root>).map { root[keyPath: $0] }
        }
        return (read(object) as? any AttributeValue)?.storedValue
    }

    /// A value of `type` that no default is likely to equal, and that reads back as itself.
    private static func sentinel(for type: AttributeType, replacing initial: StoredValue) -> StoredValue? {
        switch type {
        case .string: .text("\u{1}probe")
        case .integer: .integer(0x5EED_1234)
        case .bool: initial == .integer(1) ? .integer(0) : .integer(1)
        case .double, .date: .real(1_234_567.25)
        case .decimal: .text("1234567.25")
        case .data, .uuid: .blob(Data(repeating: 0xA5, count: 16))
        case .json: nil
        }
    }
}

extension EntityDeclaration {
    /// The relationships `keyPath` follows, in order, each by its property index in the entity it
    /// starts from: `[country]` for `\Mood.country`, `[country, continent]` for
    /// `\Mood.country?.continent`; nil for a key path that is not a chain of relationships (a
    /// computed property).
    ///
    /// A single relationship is found by its key path. A chain (to-one relationships only: a chain
    /// cannot continue past a set) is found on a probe, as a related attribute is: a tree of
    /// detached objects in which each to-one relationship of each one leads to an object of its
    /// own, down to `maximumChainLength` links; the object the key path reads names the chain.
    package func relationshipPath(at keyPath: AnyKeyPath) -> [Int]? {
        if let index = propertyIndex(for: keyPath) {
            return properties[index].isRelationship ? [index] : nil
        }
        let key = AnswerKey(entity: ObjectIdentifier(self), keyPath: keyPath)
        if let known = keptPaths.withLock({ $0[key] }) { return known }
        let found = probedPath(keyPath)
        keptPaths.withLock { $0[key] = found }
        return found
    }

    /// The longest chain a probe looks for, and the most objects it makes.
    private static let maximumChainLength = 4
    private static let maximumProbes = 4_096

    private func probedPath(_ keyPath: AnyKeyPath) -> [Int]? {
        var paths: [ObjectIdentifier: [Int]] = [:]
        var made = 0
        func probe(of entity: EntityDeclaration, path: [Int]) -> any Entity {
            let object = MaterializationSlot.materialize(entity.type, with: ObjectState.makeNew(of: entity))
            paths[ObjectIdentifier(object)] = path
            made += 1
            guard path.count < Self.maximumChainLength else { return object }
            for index in entity.layout.toOneProperties where made < Self.maximumProbes {
                guard case .relationship(let relationship) = entity.properties[index].kind else { continue }
                object._$state.detachedRelatives[index] = [probe(of: relationship.destination(), path: path + [index])]
            }
            return object
        }
        let root = probe(of: self, path: [])
        func read<Root: Entity>(_ root: Root) -> Any? {
            (keyPath as? PartialKeyPath<Root>).map { root[keyPath: $0] }
        }
        // The probes are alive (the root holds the tree), so an identifier names one of them.
        guard let reached = read(root) as? any Entity, let path = paths[ObjectIdentifier(reached)], !path.isEmpty else {
            return nil
        }
        return path
    }
}

/// An entity and a key path, the key of the answers kept across calls.
private struct AnswerKey: Hashable, @unchecked Sendable {
    // Safety: key paths are immutable once made.
    package let entity: ObjectIdentifier
    package let keyPath: AnyKeyPath
}

/// The answers of ``EntityDeclaration/relatedAttribute(at:)``, nil ones too.
private let keptAnswers = Locked<[AnswerKey: EntityDeclaration.RelatedAttribute?]>([:])

/// The answers of ``EntityDeclaration/relationshipPath(at:)`` for chains, nil ones too.
private let keptPaths = Locked<[AnswerKey: [Int]?]>([:])
