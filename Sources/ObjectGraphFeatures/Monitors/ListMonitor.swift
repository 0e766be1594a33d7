import Algorithms
public import Foundation
public import ObjectGraphContext
public import ObjectGraphModel
public import Observation

/// A live list of the objects matching a fetch, in order, optionally in sections, that tells its
/// observers exactly what changed: CoreStore's `ListMonitor`, in place of NSFetchedResultsController.
///
/// ```swift
/// let monitor = try context.monitorSectionedList(
///     Mood.self,
///     sectionBy: SectionBy(\.country?.name),
///     predicate: #Predicate { $0.rating > 2 },
///     sortBy: [SortDescriptor(\.country?.name), SortDescriptor(\.date, order: .reverse)])
/// monitor.addObserver(listScreen)        // a ListSectionObserver
/// let first = monitor[0, 0]
/// ```
///
/// The monitor computes its changes itself, from its context's ``ObjectsDidChange`` (so every source
/// of change reaches it: the context's own changes, cascades, merged saves of other contexts, batch
/// operations, other processes' saves, a reset). Only the objects a notification names are looked
/// at, with those whose related objects changed what the request reads of them (a list sorted by
/// `\Mood.country?.name` places again the moods of a renamed country), and the rows a merged save
/// changed that the context holds no object for, when the request reads what changed (a mood rated
/// 5 elsewhere enters a list of 5-star moods; a country joining Europe elsewhere brings its moods):
/// those are loaded set-wise. Each is taken out of the list and put back where its values now place
/// it, a binary search (see ``ListChangeset`` for what is reported). Objects marked for deletion
/// (``DelayedDeletable``) leave the list unless the request includes them.
///
/// The monitor holds its objects and its context; it lives on the context's isolation and is not
/// `Sendable`. Observers are held weakly. It is `Observable`: a SwiftUI view (or
/// `withObservationTracking`) that reads its objects, sections or count is redrawn when they change.
public final class ListMonitor<Object: Entity>: Observable {
    let context: ObjectContext
    private(set) var request: FetchDescriptor<Object>
    private var sectionBy: SectionBy<Object>?
    /// What the request reads, to find the objects a change of related objects concerns.
    private(set) var reads = RequestReads()
    /// The request's predicate, for the objects evaluated in memory as they change.
    private(set) var predicate: CheckedPredicate<Object>?
    /// The related objects the request reads (the countries of a list sorted by country name), kept
    /// alive: the context holds objects weakly, and each comparison would otherwise make a new fault
    /// of the country and read its row again.
    var heldRelated: [ObjectIdentifier: AnyObject] = [:]
    /// What the monitor shows, and how a change of it becomes a changeset (see ``SectionedList``).
    var shown: SectionedList<Object>
    let observers = Observers<ListEvent>()
    let changesetObservers = Observers<ListChangeset<Object>>()
    private var token: ObservationToken?
    /// Observation: every read of the list is a read of `contents`, every change a change of it.
    let registrar = ObservationRegistrar()
    var contents = 0
    let contentsKeyPath: KeyPath<ListMonitor, Int> = \.contents

    /// The last error met while following changes: a predicate that could not be evaluated on an
    /// object in memory (the object was left out), or a refetch after a context reset that could not
    /// read the store (the list kept what it held).
    public internal(set) var lastError: (any Error)?

    init(context: ObjectContext, request: FetchDescriptor<Object>, sectionBy: SectionBy<Object>?) throws {
        self.context = context
        self.request = request
        self.sectionBy = sectionBy
        self.shown = SectionedList(sorted: [], sortBy: request.sortBy, sectionBy: sectionBy)
        try load()
        token = context.observeAsListMonitor { [weak self] change in self?.process(change) }
    }

    // MARK: Reading

    /// The number of objects in the list.
    public var count: Int {
        registrar.access(self, keyPath: contentsKeyPath)
        return shown.count
    }

    /// The objects, in order.
    public var objects: [Object] {
        registrar.access(self, keyPath: contentsKeyPath)
        return shown.objects.all.map { unsafeDowncast($0, to: Object.self) }
    }

    /// The object at `index` of the whole list.
    ///
    /// With a ``FetchDescriptor/fetchBatchSize``, reading a fault loads the objects of its batch.
    public subscript(index: Int) -> Object {
        registrar.access(self, keyPath: contentsKeyPath)
        let object = shown.object(at: index)
        if request.fetchBatchSize > 0, object._$state.isFault { loadBatch(around: index) }
        return object
    }

    /// The object at `item` of section `section`.
    public subscript(section: Int, item: Int) -> Object { self[shown.sectionStarts[section] + item] }

    /// The object at `indexPath` (section, then item).
    public subscript(indexPath: IndexPath) -> Object { self[indexPath[0], indexPath[1]] }

    /// The number of sections; an unsectioned list always has one.
    public var numberOfSections: Int {
        registrar.access(self, keyPath: contentsKeyPath)
        return shown.sectionKeys.count
    }

    /// The section at `index`, with its objects.
    public func section(at index: Int) -> ListSection<Object> {
        registrar.access(self, keyPath: contentsKeyPath)
        return shown.section(key: shown.sectionKeys[index], objects: shown.positions(ofSection: index).map { self[$0] })
    }

    /// Every section, with its objects.
    public var sections: [ListSection<Object>] { shown.sectionKeys.indices.map(section(at:)) }

    /// Where `object` is; nil when it is not in the list.
    public func indexPath(of object: Object) -> IndexPath? {
        registrar.access(self, keyPath: contentsKeyPath)
        return shown.position(of: object).map(shown.indexPath(ofPosition:))
    }

    // MARK: Observing

    /// Adds an observer, held weakly; it hears the list's changes at the level of the protocols it
    /// adopts (``ListObserver``, ``ListObjectObserver``, ``ListSectionObserver``). Adding one twice has
    /// no effect.
    public func addObserver<Observer: ListObserver>(_ observer: Observer) where Observer.ListEntityType == Object {
        // The levels it adopts, asked once: a cast to a protocol with a primary associated type
        // checks its generic requirements every time.
        let objectObserver = observer as? any ListObjectObserver<Object>
        let sectionObserver = observer as? any ListSectionObserver<Object>
        observers.add(observer) { [weak self, weak observer, weak objectObserver, weak sectionObserver] event in
            guard let self, let observer else { return }
            self.deliver(event, to: observer, objectObserver: objectObserver, sectionObserver: sectionObserver)
        }
    }

    /// Stops the deliveries to `observer`.
    public func removeObserver(_ observer: some ListObserver) {
        observers.remove(observer)
    }

    /// Calls `handler` with each change of the list, as one value.
    ///
    /// - Returns: A token: the handler is called while it lives.
    public func observeChanges(_ handler: @escaping (ListChangeset<Object>) -> Void) -> ObservationToken {
        changesetObservers.add(handler)
    }

    /// The changes of the list from now on, each as one value. Iterate it on the context's isolation.
    ///
    /// - Parameter bufferingPolicy: What the stream keeps of the changesets its consumer has not
    ///   taken yet: by default the 128 newest, so a consumer that falls behind misses the oldest
    ///   rather than making memory grow without bound. A consumer that must apply every changeset
    ///   (to a copy of the list, say) passes `.unbounded`, or uses ``observeChanges(_:)``, which
    ///   misses none.
    public func changes(
        bufferingPolicy: AsyncStream<ListChangeset<Object>>.Continuation.BufferingPolicy = .bufferingNewest(128)
    ) -> AsyncStream<ListChangeset<Object>> {
        changesetObservers.stream(bufferingPolicy: bufferingPolicy)
    }

    /// The changes of the list from now on, the 128 newest kept while the consumer falls behind:
    /// ``changes(bufferingPolicy:)`` with its default policy.
    public var changes: AsyncStream<ListChangeset<Object>> { changes() }

    /// Fetches the list again with new clauses (nil keeps the current one) and reports it as a whole
    /// (``ListObserver/listMonitorWillRefetch(_:)``, a changeset whose ``ListChangeset/isRefetch`` is true).
    ///
    /// - Throws: The errors of ``ObjectContext/fetch(_:)`` and
    ///   ``ObjectGraphError/invalidListMonitor(entity:reason:)``; the monitor keeps its list then.
    public func refetch(
        predicate: Predicate<Object>?? = nil, sortBy: [SortDescriptor<Object>]? = nil,
        sectionBy: SectionBy<Object>?? = nil
    ) throws {
        var request = self.request
        if let predicate { request.predicate = predicate }
        if let sortBy { request.sortBy = sortBy }
        let sectionBy = sectionBy ?? self.sectionBy
        let previous = (self.request, self.sectionBy)
        self.request = request
        self.sectionBy = sectionBy
        do {
            try reloadAsAWhole()
        } catch {
            (self.request, self.sectionBy) = previous
            throw error
        }
    }

    // MARK: Loading

    private func load() throws {
        try Self.validate(request, sectionBy)
        reads = try context.requestReads(of: request)
        predicate = try request.predicate.map { try CheckedPredicate($0, entity: Object._$entity.name) }
        let objects: [AnyObject]
        if request.fetchBatchSize > 0, sectionBy == nil {
            // Faults, loaded a batch at a time as they are read (a section needs every object's key).
            objects = context.objects(with: try context.fetchIdentifiers(request), of: Object._$entity).map { $0 as AnyObject }
        } else {
            objects = try fetchAll().map { $0 as AnyObject }
        }
        heldRelated = [:]
        holdRelatedObjects(of: objects)
        // After the related objects are loaded, set-wise: a section key may read them.
        shown = SectionedList(sorted: objects, sortBy: request.sortBy, sectionBy: sectionBy)
    }

    /// The request's objects, every one loaded.
    func fetchAll() throws -> FetchResults<Object> {
        var fetch = request
        fetch.fetchBatchSize = 0
        return try context.fetch(fetch)
    }

    private func loadBatch(around index: Int) {
        let use = context.beginUse()
        defer { use.end() }
        let start = index - index % request.fetchBatchSize
        let batch = shown.objects.objects(in: start..<min(start + request.fetchBatchSize, shown.count))
        context.loadFaults(batch.map { unsafeDowncast($0, to: Object.self)._$state })
    }

    func reloadAsAWhole() throws {
        observers.post(.willRefetch)
        try load()
        post(ListChangeset(changes: [], isRefetch: true))
    }

    static func validate(_ request: FetchDescriptor<Object>, _ sectionBy: SectionBy<Object>?) throws {
        let entity = Object._$entity.name
        guard let first = request.sortBy.first else {
            throw ObjectGraphError.invalidListMonitor(
                entity: entity, reason: "a list monitor needs at least one sort descriptor, for a deterministic order")
        }
        if let sectionBy {
            guard let keyPath = first.attributeKeyPath, keyPath.namesSameProperties(as: sectionBy.keyPath) else {
                throw ObjectGraphError.invalidListMonitor(
                    entity: entity,
                    reason: "the first sort descriptor must sort by the section key path \(sectionBy.keyPath), "
                        + "so that each section's objects are together")
            }
        }
        if request.fetchOffset != 0 {
            throw ObjectGraphError.invalidListMonitor(
                entity: entity, reason: "a list monitor starts at the first matching object: fetchOffset is not supported")
        }
        if let limit = request.fetchLimit, limit < 0 {
            throw ObjectGraphError.invalidListMonitor(entity: entity, reason: "fetchLimit \(limit) is negative")
        }
        if request.fetchBatchSize < 0 {
            throw ObjectGraphError.invalidListMonitor(
                entity: entity, reason: "fetchBatchSize \(request.fetchBatchSize) is negative")
        }
    }
}
