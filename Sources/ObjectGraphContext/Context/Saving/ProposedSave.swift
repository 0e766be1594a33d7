public import ObjectGraphModel

/// A save about to be written, as a container's save rules see it (see
/// ``ObjectContainer/addSaveRule(named:_:)``): the objects it inserts, updates and deletes, after
/// the delete rules and `willSave()` ran and before anything is written. A rule refuses an object
/// with ``refuse(_:property:because:)``; the save then throws
/// ``ObjectGraphError/validationFailed(_:)`` with ``ValidationFailure/Reason/refused(rule:message:)``
/// among its failures, and writes nothing.
///
/// A proposal belongs to the saving context and is handed to the rules on its thread: read the
/// objects there, and keep nothing of them after the rule returns.
public final class ProposedSave {
    /// The saving context.
    public let context: ObjectContext
    /// The objects the save inserts.
    public let insertedObjects: [any Entity]
    /// The objects the save updates (an object marked for deletion in two steps is one of them).
    public let updatedObjects: [any Entity]
    /// The objects the save deletes.
    public let deletedObjects: [any Entity]
    /// The rule being asked, whose name its refusals carry.
    package var rule = ""
    private(set) var refusals: [ValidationFailure] = []

    init(context: ObjectContext, insertedObjects: [any Entity], updatedObjects: [any Entity], deletedObjects: [any Entity]) {
        self.context = context
        self.insertedObjects = insertedObjects
        self.updatedObjects = updatedObjects
        self.deletedObjects = deletedObjects
    }

    /// The saving context's name, which the save's history and notifications carry as its author.
    public var author: String? { context.name }

    /// Refuses the save of `object` (of its `property`, when one is to blame), saying why.
    public func refuse(_ object: any Entity, property: String? = nil, because message: String) {
        refusals.append(
            ValidationFailure(
                entity: object.objectID.entityName, objectID: object.objectID, property: property,
                reason: .refused(rule: rule, message: message)))
    }
}
