public import Foundation
public import Observation

/// What an object's state may ask of the context holding it: the one way up from Model/.
///
/// An object loads itself when touched and keeps a relationship's inverse in step when set, as
/// Core Data's objects do, so its state must reach its context: to be faulted in, to record a
/// change, to resolve a relationship. It does so through this protocol and nothing else, so that
/// the model names no type of the layers above it. The context gives each entity of its store a
/// host of its own (`EntityHost`), which knows the entity's mapping besides the context: one
/// reference in the state's header serves both.
///
/// Every requirement is called with the context's isolation, from a state the host holds.
@usableFromInline package protocol ObjectHost: AnyObject {
    /// Whether reads of the objects' properties are reported to Observation (copied into each
    /// state when it is attached, so that a read tests one flag).
    var observesReads: Bool { get }
    /// Marks the start of a read or write of a property, for the context's check that one thread
    /// at a time uses it (debug builds; see ``ExclusiveUse``).
    func beginUse() -> ExclusiveUse.Use
    /// The state is being deallocated.
    func forget(_ state: ObjectState)
    /// The state leaves this host for another one, or for none.
    func detach(_ state: ObjectState)

    // MARK: Fault me in

    /// Loads the state's values from its row; a failure is recorded, not thrown (the accessors
    /// cannot throw).
    func fulfillFault(_ state: ObjectState)
    /// The global ID of the state's row; nil when it cannot be read.
    func readGlobalID(of state: ObjectState) -> UUID?
    /// A stored value did not convert to its property's type.
    func recordReadFailure(_ failure: ObjectGraphError, of state: ObjectState, property: String)

    // MARK: Record a change

    /// Property `index` of the state is about to change; false when the change must not be made
    /// (the object cannot change here, which the host records).
    func willChange(_ state: ObjectState, property index: Int) -> Bool
    /// The state's mark for deletion (``EntityLayout/markedForDeletionSlot``) was written, after
    /// ``willChange(_:property:)`` allowed it.
    func didWriteMark(of state: ObjectState)
    /// The state's deletion flag changed.
    func didChangeDeletion(of state: ObjectState, isDeleted: Bool)
    /// The state's to-many relationships are about to change: what the host keeps of them is stale.
    func forgetCachedMembers(of state: ObjectState)

    // MARK: Resolve a relationship

    /// The object the to-one relationship at `slot` (property `index`) points to.
    func relatedObject(of state: ObjectState, slot: Int, property index: Int) -> (any Entity)?
    /// The objects of the to-many relationship at `slot` (property `index`).
    func relatedObjects(of state: ObjectState, slot: Int, property index: Int) -> [any Entity]
    /// Sets a to-one relationship, and its inverse.
    func setToOne(_ state: ObjectState, slot: Int, to object: (any Entity)?)
    /// Sets a to-many relationship, and its inverses.
    func setToMany(_ state: ObjectState, slot: Int, to objects: [any Entity])
    /// A to-many value read while the host keeps them (a deletion pass), if it has not changed since.
    func cachedMembers(of state: ObjectState, index: Int) -> Any?
    /// Keeps a to-many value read, while the host keeps them.
    func cacheMembers(_ members: Any, of state: ObjectState, index: Int)

    // MARK: Observation

    /// The state's registrar for the Observation framework, made at the first read that reports to
    /// it and kept by the context: few objects have one, and a field of every state would cost every
    /// object made. (Changes are told to it by the context, which records them.)
    func registrar(of state: ObjectState) -> ObservationRegistrar
}
