package import ObjectGraphModel

/// What a query reads of the object graph: the properties of each entity it looks at, and the
/// relationships it follows to reach other entities.
///
/// `#Predicate { $0.country?.continent?.name == "Europe" }` over moods reads `Mood.country`,
/// `Country.continent` and `Continent.name`, and follows the first two. A list monitor uses it to
/// find the objects that a change of a related object can move, filter in or out
/// (see ``ListMonitor``); a batch update, to know whether its condition selects the same rows again.
package struct PropertyReads {
    package init() {}

    /// A relationship followed, from the entity that declares it.
    package struct Followed {
        package let owner: EntityDeclaration
        package let relationship: RelationshipMapping
    }

    /// The names of the properties read, by entity name.
    package private(set) var properties: [String: Set<String>] = [:]
    package private(set) var followed: [Followed] = []

    /// Whether another row than the queried one is read (a relationship's key counts).
    package var followsRelationships: Bool { !followed.isEmpty }

    /// The entities the followed relationships lead to, each once.
    package var followedDestinations: [EntityDeclaration] {
        var seen = Set<ObjectIdentifier>()
        return followed.map(\.relationship.destinationDeclaration).filter { seen.insert(ObjectIdentifier($0)).inserted }
    }

    package mutating func read(_ propertyIndex: Int, of mapping: EntityMapping) {
        properties[mapping.name, default: []].insert(mapping.declaration.propertyNames[propertyIndex])
    }

    /// Notes a relationship followed from `mapping` to `destination`; the destination's mark for
    /// deletion is read too (a marked object is hidden from relationship reads).
    package mutating func follow(_ relationship: RelationshipMapping, from mapping: EntityMapping, to destination: EntityMapping) {
        read(relationship.propertyIndex, of: mapping)
        if let slot = destination.markedForDeletionSlot {
            read(destination.declaration.layout.attributeProperties[slot], of: destination)
        }
        insert(Followed(owner: mapping.declaration, relationship: relationship))
    }

    private mutating func insert(_ new: Followed) {
        let isKnown = followed.contains {
            $0.owner === new.owner && $0.relationship.propertyIndex == new.relationship.propertyIndex
        }
        if !isKnown { followed.append(new) }
    }

    /// Whether a change of these properties of an object of `entity` can change what the query
    /// reads; `changedKeys` empty means unknown (a refresh), which counts when anything of the entity
    /// is read.
    package func isAffected(by changedKeys: Set<String>, of entity: EntityDeclaration) -> Bool {
        guard let read = properties[entity.name] else { return false }
        return changedKeys.isEmpty || !read.isDisjoint(with: changedKeys)
    }

    /// The followed relationships that lead to `entity`: walking back along their inverses from a
    /// changed object of `entity` reaches the objects whose reads it changed.
    package func relationships(leadingTo entity: EntityDeclaration) -> [Followed] {
        followed.filter { $0.relationship.destinationDeclaration === entity }
    }
}
