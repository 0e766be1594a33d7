import Foundation
public import ObjectGraphModel

/// What an object answers through its context: the context itself, reads that throw, counts of
/// relationships from their IDs.
extension Entity {
    /// The context the object belongs to; nil before it is inserted.
    public var objectContext: ObjectContext? { _$state.context }

    /// Reads a property, throwing if the object's row is gone or cannot be read.
    ///
    /// The plain accessors never throw: a fault whose row another context deleted reads default
    /// values, and one whose row cannot be read now (an I/O error, say) reads default values too
    /// while staying a fault. This one loads what the property needs first and throws instead:
    /// ``ObjectGraphError/inaccessibleFault(_:)`` for a row that is gone,
    /// ``ObjectGraphError/readFailed(_:property:_:)`` for a read that failed.
    public func checkedValue<Value>(_ property: KeyPath<Self, Value>) throws -> Value {
        let context = _$state.context
        context?.forgetReadFailure(of: _$state)
        if let context { try context.loadFault(_$state) }
        let value = self[keyPath: property]
        if let failure = context?.readFailures[objectID] { throw failure }
        if _$state.isInaccessible { throw ObjectGraphError.inaccessibleFault(objectID) }
        return value
    }

    /// How many objects a to-many relationship holds, not counting deleted ones, without making
    /// them.
    ///
    /// `country.moods.count` makes an object for every mood of the country (a fault for those not
    /// in memory) to build the set; this does not. Use it where only the number matters, such as a
    /// rule that deletes a country once its last mood goes.
    ///
    /// Members marked for deletion (``DelayedDeletable``) are not counted, as the relationship
    /// hides them. The members' IDs are loaded the first time, and the relationship follows the
    /// context's changes from then on; but when the rules of a deletion count the unloaded
    /// relationships of several objects (the countries of many deleted moods), the keys of their
    /// members are read from the store's index in one read and corrected for this context's
    /// unsaved changes, and the relationships stay unloaded.
    public func count<Destination: Entity>(of relationship: KeyPath<Self, Set<Destination>>) -> Int {
        _$state.liveMemberCount(of: relationship)
    }

    /// How many objects an ordered to-many relationship holds, not counting deleted ones, without
    /// making them.
    public func count<Destination: Entity>(of relationship: KeyPath<Self, [Destination]>) -> Int {
        _$state.liveMemberCount(of: relationship)
    }
}
