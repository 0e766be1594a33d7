import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Passes a prepared state to the `_$state` initializer of the object being materialized.
///
/// `@Entity` classes initialize `_$state` with a default value (the init accessors of persisted
/// properties need it before any initializer body runs), so the state cannot arrive as an argument.
/// A per-thread handoff carries it instead, without allocating a state that would be thrown away.
package enum MaterializationSlot {
    /// The handoff of one thread. Reading the thread-specific pointer is cheap; setting it is not, so
    /// it is set once per thread and the handoff's field changes instead.
    private final class Handoff {
        @exclusivity(unchecked) package var state: Unmanaged<ObjectState>?
        /// States set aside under ``state``: a subclass's new object made while another object's
        /// state waits (by a `@Transient` property's initial value, say). Empty nearly always.
        @exclusivity(unchecked) package var below: [Unmanaged<ObjectState>] = []

        /// Puts a state on top of the waiting ones.
        func push(_ state: ObjectState) {
            if let waiting = self.state { below.append(waiting) }
            self.state = Unmanaged.passUnretained(state)
        }

        /// Takes the state on top away.
        func pop() {
            state = below.popLast()
        }

        /// Takes `state` away, wherever it waits.
        func remove(_ state: ObjectState) {
            if self.state?.toOpaque() == Unmanaged.passUnretained(state).toOpaque() {
                pop()
            } else {
                below.removeAll { $0.toOpaque() == Unmanaged.passUnretained(state).toOpaque() }
            }
        }
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            // Glibc passes the pointer as optional, Darwin does not.
            let pointer: UnsafeMutableRawPointer? = pointer
            if let pointer { Unmanaged<Handoff>.fromOpaque(pointer).release() }
        }
        return key
    }()

    /// An object of `type` whose `_$state` is `state`.
    package static func materialize(_ type: any Entity.Type, with state: ObjectState) -> any Entity {
        state.isMaterializing = true
        defer { state.isMaterializing = false }
        let handoff = handoff
        if handoff.state == nil {
            handoff.state = Unmanaged.passUnretained(state)
        } else {
            handoff.push(state)
        }
        let object = type.init(_$materializing: MaterializationToken())
        assert(object._$state === state, "\(type) did not claim the state prepared for it")
        return object
    }

    /// The state waiting to be claimed by an object of `entity` (or of one of its subentities: the
    /// object is of a subclass, whose own initializer claimed it first), if any; it no longer
    /// waits afterwards. A state prepared for another entity stays: an object made while another
    /// one is materialized (by a `@Transient` property's initial value, say) must not take it.
    package static func take(for entity: EntityDeclaration) -> ObjectState? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        let handoff = Unmanaged<Handoff>.fromOpaque(pointer).takeUnretainedValue()
        guard let state = handoff.state?.takeUnretainedValue(), state.entity.isKind(of: entity) else { return nil }
        handoff.pop()
        state.awaitsSuperclassClaim = false
        return state
    }

    /// The state of an object of a subentity, for the handle of the class `entity` on it: the state
    /// waiting for an object of `entity` or of one of its subentities, which stays waiting for the
    /// superclasses' initializers; else a new object's, which waits for them from now on.
    package static func claimForSubclass(_ entity: EntityDeclaration, makeNew: () -> ObjectState) -> ObjectState {
        let handoff = handoff
        if let state = handoff.state?.takeUnretainedValue(), state.entity.isKind(of: entity) { return state }
        let state = makeNew()
        // Held by the subclass's handle only: if its initializer fails before its superclasses'
        // claim the state, the state goes with the object, and takes itself away (``forget(_:)``).
        state.awaitsSuperclassClaim = true
        handoff.push(state)
        return state
    }

    /// Takes away a state that waits for its superclasses' claim and will never get it: the object
    /// that claimed it for its subclass is gone (a failable initializer returned nil before
    /// `super.init`). Called by the state's `deinit`.
    package static func forget(_ state: ObjectState) {
        guard let pointer = pthread_getspecific(key) else { return }
        Unmanaged<Handoff>.fromOpaque(pointer).takeUnretainedValue().remove(state)
    }

    /// This thread's handoff, made on first use.
    private static var handoff: Handoff {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<Handoff>.fromOpaque(pointer).takeUnretainedValue()
        }
        let handoff = Handoff()
        pthread_setspecific(key, Unmanaged.passRetained(handoff).toOpaque())
        return handoff
    }
}

/// Values assigned by `init(_$materializing:)` to properties without a default and not written `T?`
/// or `T!`; the state ignores them.
@_documentation(visibility: internal)
public func _placeholder<Value: AttributeValue>() -> Value { Value.defaultValue }
/// A placeholder for a to-one relationship.
@_documentation(visibility: internal)
public func _placeholder<Destination: Entity>() -> Destination? { nil }
/// A placeholder for a to-many relationship.
@_documentation(visibility: internal)
public func _placeholder<Destination: Entity>() -> Set<Destination> { [] }
/// A placeholder for an ordered to-many relationship.
@_documentation(visibility: internal)
public func _placeholder<Destination: Entity>() -> [Destination] { [] }
