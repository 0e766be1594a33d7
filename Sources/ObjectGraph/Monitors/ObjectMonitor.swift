public import Observation

/// Receives the changes of one object from an ``ObjectMonitor``: CoreStore's `ObjectObserver`.
///
/// Every method has an empty default, so an observer implements only what it needs. They are called
/// on the isolation of the monitored object's context (the main actor for the view context).
public protocol ObjectMonitorObserver<MonitoredEntity>: AnyObject {
    /// The entity of the monitored object.
    associatedtype MonitoredEntity: Entity

    /// The object is about to be reported as updated; `object` already has its new values.
    func objectMonitor(_ monitor: ObjectMonitor<MonitoredEntity>, willUpdateObject object: MonitoredEntity)

    /// The object changed; `changedPersistentKeys` names the properties that did, where known (a
    /// merged save from another context names them; a refresh without one does not).
    func objectMonitor(_ monitor: ObjectMonitor<MonitoredEntity>, didUpdateObject object: MonitoredEntity,
                       changedPersistentKeys: Set<String>)

    /// The object was deleted (here, by a cascade, by another context's merged save or by a batch
    /// deletion), marked for deletion, or forgotten by a reset. `object` keeps its last values; the
    /// monitor's ``ObjectMonitor/object`` is nil from now on.
    func objectMonitor(_ monitor: ObjectMonitor<MonitoredEntity>, didDeleteObject object: MonitoredEntity)
}

extension ObjectMonitorObserver {
    public func objectMonitor(_ monitor: ObjectMonitor<MonitoredEntity>, willUpdateObject object: MonitoredEntity) {}
    public func objectMonitor(_ monitor: ObjectMonitor<MonitoredEntity>, didUpdateObject object: MonitoredEntity,
                              changedPersistentKeys: Set<String>) {}
    public func objectMonitor(_ monitor: ObjectMonitor<MonitoredEntity>, didDeleteObject object: MonitoredEntity) {}
}

/// Watches one object and tells any number of observers when it changes or goes: CoreStore's
/// `ObjectMonitor`, the replacement for key-value observing.
///
/// ```swift
/// let monitor = context.monitorObject(mood)
/// monitor.addObserver(detailScreen)   // an ObjectMonitorObserver
/// monitor.addObserver(badge)          // one monitor, shared between screens
/// ```
///
/// Every source of change reaches it through its context's ``ObjectsDidChange``: the context's own
/// changes, cascades, other contexts' saves once merged, batch operations and other processes' saves
/// (see <doc:ChangesAndMerging>). Observers are held weakly: one that goes away is dropped, and
/// ``removeObserver(_:)`` is only needed to stop earlier. The monitor holds its object until the object
/// is deleted; it lives on the context's isolation and is not `Sendable`. It is `Observable`: a view
/// that reads ``object`` is redrawn when the object goes (its properties report their own changes,
/// see ``ObjectContext/isObservable``).
public final class ObjectMonitor<Object: Entity>: Observable {
    /// The monitored object; nil once it was deleted (or marked for deletion, or forgotten).
    public var object: Object? {
        registrar.access(self, keyPath: objectKeyPath)
        return monitored
    }
    private var monitored: Object?
    private let registrar = ObservationRegistrar()
    private let objectKeyPath: KeyPath<ObjectMonitor, Object?> = \.object
    /// The relationships whose objects' changes are reported as the object's own.
    private let related: [RelatedObjects<Object>]
    private var observers = WeakObservers<Event>()
    private var token: ObservationToken?

    enum Event {
        case update(Object, changedKeys: Set<String>)
        case delete(Object)
    }

    /// A monitor of `object`; nil when the object belongs to no context.
    init?(object: Object, related: [RelatedObjects<Object>]) {
        guard let context = object.objectContext, !object.isDeleted else { return nil }
        self.monitored = object
        self.related = related
        token = context.observeObjectsDidChange { [weak self] change in self?.process(change) }
    }

    /// Whether the object is still there (not deleted).
    public var isValid: Bool { object != nil }

    /// Adds an observer, held weakly; adding one twice has no effect.
    public func addObserver<Observer: ObjectMonitorObserver>(_ observer: Observer) where Observer.MonitoredEntity == Object {
        observers.add(observer) { [weak self, weak observer] event in
            guard let self, let observer else { return }
            switch event {
            case let .update(object, keys):
                observer.objectMonitor(self, willUpdateObject: object)
                observer.objectMonitor(self, didUpdateObject: object, changedPersistentKeys: keys)
            case let .delete(object):
                observer.objectMonitor(self, didDeleteObject: object)
            }
        }
    }

    /// Stops the deliveries to `observer`.
    public func removeObserver(_ observer: some ObjectMonitorObserver) {
        observers.remove(observer)
    }

    private func process(_ change: ObjectsDidChange) {
        guard let object = monitored else { return }
        switch change.kind(for: object) {
        case .update(let keys)?:
            observers.post(.update(object, changedKeys: keys.union(relatedChangedKeys(in: change))))
        case .delete?:
            registrar.withMutation(of: self, keyPath: objectKeyPath) { monitored = nil }
            token = nil
            observers.post(.delete(object))
        case nil:
            let keys = relatedChangedKeys(in: change)
            if !keys.isEmpty { observers.post(.update(object, changedKeys: keys)) }
        }
    }

    /// The changed keys of the related objects the monitor reports, each prefixed with the
    /// relationship's name (`country.name`).
    private func relatedChangedKeys(in change: ObjectsDidChange) -> Set<String> {
        guard let object = monitored, !related.isEmpty else { return [] }
        var changed: [ObjectIdentifier: Set<String>] = [:]
        for update in [change.updatedObjects, change.refreshedObjects].joined() where update.object !== object {
            changed[ObjectIdentifier(update.object), default: []].formUnion(update.changedKeys)
        }
        guard !changed.isEmpty else { return [] }
        var keys = Set<String>()
        for relationship in related {
            for relatedObject in relationship.objects(object) {
                guard let relatedKeys = changed[ObjectIdentifier(relatedObject)] else { continue }
                keys.formUnion(relatedKeys.map { "\(relationship.name).\($0)" })
            }
        }
        return keys
    }
}

extension ObjectContext {
    /// A monitor of `object`, for observers that follow its changes and its deletion.
    ///
    /// ```swift
    /// // A mood's screen also shows its country's name and flag:
    /// let monitor = context.monitorObject(mood, includingChangesOf: [.through(\.country)])
    /// ```
    ///
    /// - Parameters:
    ///   - object: An object of this context.
    ///   - related: Relationships whose objects' changes are reported as updates of `object`, with
    ///     keys prefixed by the relationship's name (`country.name`). A change of which objects are
    ///     related (`mood.country = spain`) is a change of `object` itself.
    /// - Returns: The monitor; nil when `object` is not in this context or is deleted.
    public func monitorObject<Object: Entity>(
        _ object: Object, includingChangesOf related: [RelatedObjects<Object>] = []
    ) -> ObjectMonitor<Object>? {
        guard object.objectContext === self else { return nil }
        return ObjectMonitor(object: object, related: related)
    }
}

/// A relationship whose objects' changes an ``ObjectMonitor`` reports as changes of its object.
public struct RelatedObjects<Object: Entity> {
    /// The relationship's property name, the prefix of the reported keys.
    let name: String
    /// The related objects, read when a change names some object other than the monitored one.
    let objects: (Object) -> [any Entity]

    /// The object a to-one relationship (or a chain of them, `\.country?.continent`) leads to.
    public static func through<Destination: Entity>(_ keyPath: KeyPath<Object, Destination?>) -> Self {
        Self(name: name(of: keyPath)) { object in object[keyPath: keyPath].map { [$0] } ?? [] }
    }

    /// The members of a to-many relationship.
    public static func through<Destination: Entity>(_ keyPath: KeyPath<Object, Set<Destination>>) -> Self {
        Self(name: name(of: keyPath)) { object in Array(object[keyPath: keyPath]) }
    }

    /// The members of an ordered to-many relationship.
    public static func through<Destination: Entity>(_ keyPath: KeyPath<Object, [Destination]>) -> Self {
        Self(name: name(of: keyPath)) { object in object[keyPath: keyPath] }
    }

    /// The declared property's name; for a chain, the key path as Swift spells it.
    private static func name(of keyPath: AnyKeyPath) -> String {
        let entity = Object._$entity
        return entity.propertyIndex(for: keyPath).map { entity.propertyNames[$0] } ?? "\(keyPath)"
    }
}
