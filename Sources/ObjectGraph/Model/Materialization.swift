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
/// A thread-local slot hands it over without allocating a state that would be thrown away.
enum MaterializationSlot {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// An object of `type` whose `_$state` is `state`.
    static func materialize(_ type: any Entity.Type, with state: ObjectState) -> any Entity {
        prepare(state)
        defer { state.isMaterializing = false }
        return type.init(_$materializing: MaterializationToken())
    }

    /// Puts `state` in the slot; the next `@Entity` object initialized on this thread claims it.
    private static func prepare(_ state: ObjectState) {
        state.isMaterializing = true
        pthread_setspecific(key, Unmanaged.passUnretained(state).toOpaque())
    }

    /// The state waiting to be claimed, if any; clears the slot.
    static func take() -> ObjectState? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        pthread_setspecific(key, nil)
        return Unmanaged<ObjectState>.fromOpaque(pointer).takeUnretainedValue()
    }
}

/// Values assigned by `init(_$materializing:)` to properties without a default; the state ignores them.
public func _placeholder<Value: AttributeValue>() -> Value { Value.defaultValue }
/// A placeholder for a to-one relationship.
public func _placeholder<Destination: Entity>() -> Destination? { nil }
/// A placeholder for a to-many relationship.
public func _placeholder<Destination: Entity>() -> Set<Destination> { [] }
/// A placeholder for an ordered to-many relationship.
public func _placeholder<Destination: Entity>() -> [Destination] { [] }
