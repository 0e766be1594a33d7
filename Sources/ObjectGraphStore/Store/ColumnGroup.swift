import ObjectGraphModel

/// Properties of an entity kept unique or indexed together (`#Unique`, `#Index`, or one unique
/// attribute), as the columns of its table.
package struct ColumnGroup: Sendable, Equatable {
    /// The properties, by name, in the group's order.
    package let properties: [String]
    /// Their columns: an attribute's own, a to-one relationship's foreign key.
    package let columns: [String]
    /// Their positions in a row's values (``RowValues``): an attribute's slot, or the number of
    /// attributes plus a to-one relationship's slot.
    package let positions: [Int]

    /// The group of `properties` in `description`'s table, whose to-one relationships are `toOne`;
    /// nil when a property is neither an attribute nor a to-one relationship with its foreign key in
    /// this table (see ``problem(with:description:toOne:)``).
    init?(_ properties: [String], description: EntityDescription, toOne: [RelationshipMapping]) {
        var columns: [String] = []
        var positions: [Int] = []
        for name in properties {
            if let slot = description.attributes.firstIndex(where: { $0.name == name }) {
                columns.append(name)
                positions.append(slot)
            } else if let slot = toOne.firstIndex(where: { $0.name == name }), let column = toOne[slot].foreignKeyColumn {
                columns.append(column)
                positions.append(description.attributes.count + slot)
            } else {
                return nil
            }
        }
        self.properties = properties
        self.columns = columns
        self.positions = positions
    }

    /// Why a group cannot be kept by an index of the entity's table, naming the property; nil when
    /// it can.
    static func problem(with properties: [String], description: EntityDescription, toOne: [RelationshipMapping]) -> String? {
        for name in properties where description.attribute(named: name) == nil {
            guard let relationship = toOne.first(where: { $0.name == name }) else {
                return "\(description.name).\(name) is not an attribute or a to-one relationship, so it cannot be in a group"
            }
            if relationship.foreignKeyColumn == nil {
                return """
                    \(description.name).\(name) cannot be in a group: the key of this one-to-one relationship is \
                    stored with \(relationship.description.destination).\(relationship.description.inverse) (the \
                    side whose name sorts first); group the properties on that side instead
                    """
            }
        }
        return nil
    }

    /// The group's properties as a failure names them: `(firstName, lastName)`.
    package var name: String { "(" + properties.joined(separator: ", ") + ")" }
}
