import Foundation
public import ObjectGraphContext
public import ObjectGraphModel
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
    func objectMonitor(
        _ monitor: ObjectMonitor<MonitoredEntity>, didUpdateObject object: MonitoredEntity,
        changedPersistentKeys: Set<String>)

    /// The object was deleted (here, by a cascade, by another context's merged save or by a batch
    /// deletion), marked for deletion, or forgotten by a reset. `object` keeps its last values; the
    /// monitor's ``ObjectMonitor/object`` is nil from now on.
    func objectMonitor(_ monitor: ObjectMonitor<MonitoredEntity>, didDeleteObject object: MonitoredEntity)
}

extension ObjectMonitorObserver {
    public func objectMonitor(_ monitor: ObjectMonitor<MonitoredEntity>, willUpdateObject object: MonitoredEntity) {}
    public func objectMonitor(
        _ monitor: ObjectMonitor<MonitoredEntity>, didUpdateObject object: MonitoredEntity,
        changedPersistentKeys: Set<String>
    ) {}
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
    /// The object, held strongly until it goes; or, for a monitor that must not keep it alive (an
    /// ``ObjectObserver``'s), weakly.
    private var monitored: Object? {
        get { heldObject ?? weaklyHeldObject }
        set {
            if holdsObject { heldObject = newValue } else { weaklyHeldObject = newValue }
        }
    }
    private var heldObject: Object?
    private weak var weaklyHeldObject: Object?
    private let holdsObject: Bool
    /// A condition the object must keep meeting; when it stops, the object counts as deleted.
    private let predicate: Predicate<Object>?
    /// Told of the error when `predicate` cannot be evaluated on the object.
    var evaluationFailed: (any Error) -> Void = { _ in }
    private let registrar = ObservationRegistrar()
    private let objectKeyPath: KeyPath<ObjectMonitor, Object?> = \.object
    /// The relationships whose objects' changes are reported as the object's own.
    private let related: [RelatedObjects<Object>]
    /// For each of `related`, the objects each of its links reaches, kept alive: a context merges
    /// other contexts' changes only into the objects it holds, so a related object nobody else
    /// holds (a country the screen shows only through its mood) would change elsewhere unheard.
    /// Walked again when a link changes (`mood.country`, or a country's `continent` on the way).
    private var reached: [[[any Entity]]] = []
    private let observers = Observers<Event>()
    private var token: ObservationToken?

    enum Event {
        case update(Object, changedKeys: Set<String>)
        case delete(Object)
    }

    /// A monitor of `object`; nil when the object belongs to no context, or is deleted.
    ///
    /// - Parameters:
    ///   - related: The relationships whose objects' changes count as the object's.
    ///   - predicate: A condition the object must keep meeting, or it counts as deleted.
    ///   - holdsObject: Whether the monitor keeps the object alive until it goes.
    init?(
        object: Object, related: [RelatedObjects<Object>], predicate: Predicate<Object>? = nil,
        holdsObject: Bool = true
    ) {
        guard let context = object.objectContext, !object.isDeleted else { return nil }
        self.holdsObject = holdsObject
        self.predicate = predicate
        self.related = related
        monitored = object
        reached = related.map { $0.reach(from: object) }
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
        switch change.kind(for: object, matching: predicate, evaluationFailed: evaluationFailed) {
        case .update(let keys)?:
            observers.post(.update(object, changedKeys: keys.union(relatedChangedKeys(in: change, objectKeys: keys))))
        case .delete?:
            registrar.withMutation(of: self, keyPath: objectKeyPath) { monitored = nil }
            token = nil
            reached = []
            observers.post(.delete(object))
        case nil:
            let keys = relatedChangedKeys(in: change, objectKeys: [])
            if !keys.isEmpty { observers.post(.update(object, changedKeys: keys)) }
        }
    }

    /// The changes of the related objects the monitor follows, each key prefixed with the links
    /// that lead to it (`country.name`, `country.continent.name`); a link that changed on the way
    /// (a country's `continent`) is reported as itself (`country.continent`), and the path is
    /// walked again.
    private func relatedChangedKeys(in change: ObjectsDidChange, objectKeys: Set<String>) -> Set<String> {
        guard let object = monitored, !related.isEmpty else { return [] }
        var changed: [ObjectIdentifier: Set<String>] = [:]
        for update in [change.updatedObjects, change.refreshedObjects].joined() where update.object !== object {
            changed[ObjectIdentifier(update.object), default: []].formUnion(update.changedKeys)
        }
        for deleted in change.deletedObjects where deleted !== object {
            changed[ObjectIdentifier(deleted), default: []] = []
        }
        var keys = Set<String>()
        for (index, path) in related.enumerated() {
            var walksAgain = objectKeys.contains(path.links[0].name) || !path.isChainOfRelationships
            for (level, objects) in reached[index].enumerated() where !changed.isEmpty {
                let prefix = path.name(through: level)
                let next = level + 1 < path.links.count ? path.links[level + 1].name : nil
                for related in objects {
                    guard let relatedKeys = changed[ObjectIdentifier(related)] else { continue }
                    if let next {
                        if relatedKeys.contains(next) || related.isDeleted {
                            keys.insert("\(prefix).\(next)")
                            walksAgain = true
                        }
                    } else {
                        keys.formUnion(relatedKeys.map { "\(prefix).\($0)" })
                    }
                }
            }
            if walksAgain { reached[index] = path.reach(from: object) }
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
    ///     keys prefixed by the relationship's name (`country.name`; through a chain, each link's:
    ///     `country.continent.name`). A change of which objects are related (`mood.country = spain`)
    ///     is a change of `object` itself; a link changing on the way is reported as such
    ///     (`country.continent`). The monitor keeps the related objects (and those on the way)
    ///     alive, and reads the chain again when a link changes, so their changes saved by other
    ///     contexts or processes are heard even when nothing else holds them.
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
    /// One relationship of the path, and how to read the objects it leads to.
    struct Link {
        /// The relationship's property name; for a key path that is not a chain of relationships,
        /// the key path as Swift spells it.
        let name: String
        let read: (any Entity) -> [any Entity]
    }

    let links: [Link]
    /// Whether every link is a declared relationship, whose change the objects before it report
    /// (otherwise the path is read again at every change).
    let isChainOfRelationships: Bool

    /// The object a to-one relationship (or a chain of them, `\.country?.continent`) leads to.
    public static func through<Destination: Entity>(_ keyPath: KeyPath<Object, Destination?>) -> Self {
        Self(keyPath)
    }

    /// The members of a to-many relationship.
    public static func through<Destination: Entity>(_ keyPath: KeyPath<Object, Set<Destination>>) -> Self {
        Self(keyPath)
    }

    /// The members of an ordered to-many relationship.
    public static func through<Destination: Entity>(_ keyPath: KeyPath<Object, [Destination]>) -> Self {
        Self(keyPath)
    }

    private init(_ keyPath: AnyKeyPath) {
        guard let path = Object._$entity.relationshipPath(at: keyPath) else {
            // A computed property, say: read whole, named as Swift spells it.
            links = [Link(name: "\(keyPath)") { Self.objects(at: keyPath, of: $0) }]
            isChainOfRelationships = false
            return
        }
        var entity = Object._$entity
        var links: [Link] = []
        for index in path {
            let property = entity.properties[index]
            let step = property.keyPath as AnyKeyPath
            links.append(Link(name: property.name) { Self.objects(at: step, of: $0) })
            if case .relationship(let relationship) = property.kind { entity = relationship.destination() }
        }
        self.links = links
        isChainOfRelationships = true
    }

    /// The names of the links up to `level`, joined: `country.continent`.
    func name(through level: Int) -> String {
        links[...level].map(\.name).joined(separator: ".")
    }

    /// The objects each link reaches from `object`, link by link.
    func reach(from object: Object) -> [[any Entity]] {
        var levels: [[any Entity]] = []
        var current: [any Entity] = [object]
        for link in links {
            current = current.flatMap(link.read)
            levels.append(current)
        }
        return levels
    }

    /// What `keyPath` reads on `object`, as objects: the one a to-one leads to, the members of a
    /// to-many.
    private static func objects(at keyPath: AnyKeyPath, of object: any Entity) -> [any Entity] {
        func read<Root: Entity>(_ root: Root) -> Any? {
            (keyPath as? PartialKeyPath<Root>).map { root[keyPath: $0] }
        }
        guard let value = read(object) else { return [] }
        if let one = value as? any Entity { return [one] }
        if let many = value as? any Collection { return many.compactMap { $0 as? any Entity } }
        return []
    }
}
