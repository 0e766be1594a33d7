package import Observation

/// How an entity's property reports to the Observation framework: SwiftUI, `withObservationTracking`
/// and `Observations` learn that a view read the property and when it changes.
///
/// Each object gets its `ObservationRegistrar` the first time one of its properties is read in a
/// context that reports reads (``ObjectContext/isObservable``); an object never read there has none,
/// and its changes cost no notification. The typed key path each registrar call needs is captured
/// here once per property, where `@Entity`'s generated code knows its type.
package struct PropertyObservation: Sendable {
    package let access: @Sendable (any Entity, ObservationRegistrar) -> Void
    package let change: @Sendable (any Entity, ObservationRegistrar) -> Void

    package init<Root: Entity, Value>(_ keyPath: any KeyPath<Root, Value> & Sendable) {
        let keyPath = keyPath as KeyPath<Root, Value>
        nonisolated(unsafe) let typed = keyPath  // key paths to stored properties are immutable values
        access = { object, registrar in
            guard let root = object as? Root else { return }
            registrar.access(root, keyPath: typed)
        }
        change = { object, registrar in
            guard let root = object as? Root else { return }
            registrar.willSet(root, keyPath: typed)
            registrar.didSet(root, keyPath: typed)
        }
    }
}
