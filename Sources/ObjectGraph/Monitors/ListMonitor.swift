import Algorithms
public import Foundation
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
    private let context: ObjectContext
    private var request: FetchDescriptor<Object>
    private var sectionBy: SectionBy<Object>?
    /// What the request reads, to find the objects a change of related objects concerns.
    private var reads = PropertyReads()
    /// The request's predicate, for the objects evaluated in memory as they change.
    private var predicate: CheckedPredicate<Object>?
    /// The related objects the request reads (the countries of a list sorted by country name), kept
    /// alive: the context holds objects weakly, and each comparison would otherwise make a new fault
    /// of the country and read its row again.
    private var heldRelated: [ObjectIdentifier: AnyObject] = [:]
    private var list: OrderedObjects
    /// The sections' keys in order; an unsectioned list has one section, keyed nil, always there.
    private var sectionKeys: [String?] = []
    private var sectionCounts: [String?: Int] = [:]
    private var sectionStarts: [Int] = []
    private let observers = Observers<ListEvent>()
    private let changesetObservers = Observers<ListChangeset<Object>>()
    private var token: ObservationToken?
    /// Observation: every read of the list is a read of `contents`, every change a change of it.
    private let registrar = ObservationRegistrar()
    private var contents = 0
    private let contentsKeyPath: KeyPath<ListMonitor, Int> = \.contents

    /// The last error met while following changes: a predicate that could not be evaluated on an
    /// object in memory (the object was left out), or a refetch after a context reset that could not
    /// read the store (the list kept what it held).
    public private(set) var lastError: (any Error)?

    init(context: ObjectContext, request: FetchDescriptor<Object>, sectionBy: SectionBy<Object>?) throws {
        self.context = context
        self.request = request
        self.sectionBy = sectionBy
        self.list = OrderedObjects(sorted: [])
        try load()
        token = context.observeAsListMonitor { [weak self] change in self?.process(change) }
    }

    // MARK: Reading

    /// The number of objects in the list.
    public var count: Int {
        registrar.access(self, keyPath: contentsKeyPath)
        return list.count
    }

    /// The objects, in order.
    public var objects: [Object] {
        registrar.access(self, keyPath: contentsKeyPath)
        return list.all.map { unsafeDowncast($0, to: Object.self) }
    }

    /// The object at `index` of the whole list.
    ///
    /// With a ``FetchDescriptor/fetchBatchSize``, reading a fault loads the objects of its batch.
    public subscript(index: Int) -> Object {
        registrar.access(self, keyPath: contentsKeyPath)
        let object = unsafeDowncast(list.object(at: index), to: Object.self)
        if request.fetchBatchSize > 0, object._$state.isFault { loadBatch(around: index) }
        return object
    }

    /// The object at `item` of section `section`.
    public subscript(section: Int, item: Int) -> Object { self[sectionStarts[section] + item] }

    /// The object at `indexPath` (section, then item).
    public subscript(indexPath: IndexPath) -> Object { self[indexPath[0], indexPath[1]] }

    /// The number of sections; an unsectioned list always has one.
    public var numberOfSections: Int {
        registrar.access(self, keyPath: contentsKeyPath)
        return sectionKeys.count
    }

    /// The section at `index`, with its objects.
    public func section(at index: Int) -> ListSection<Object> {
        registrar.access(self, keyPath: contentsKeyPath)
        let start = sectionStarts[index]
        let objects = (start..<start + (sectionCounts[sectionKeys[index]] ?? 0)).map { self[$0] }
        return section(key: sectionKeys[index], objects: objects)
    }

    /// Every section, with its objects.
    public var sections: [ListSection<Object>] { sectionKeys.indices.map(section(at:)) }

    /// Where `object` is; nil when it is not in the list.
    public func indexPath(of object: Object) -> IndexPath? {
        registrar.access(self, keyPath: contentsKeyPath)
        return list.position(of: object).map(indexPath(ofPosition:))
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
        reads = try context.propertyReads(of: request)
        predicate = try request.predicate.map { try CheckedPredicate($0, entity: Object._$entity.name) }
        let objects: [AnyObject]
        if request.fetchBatchSize > 0, sectionBy == nil {
            // Faults, loaded a batch at a time as they are read (a section needs every object's key).
            objects = context.objects(with: try context.fetchIdentifiers(request), of: Object._$entity).map { $0 as AnyObject }
        } else {
            objects = try fetchAll().map { $0 as AnyObject }
        }
        list = OrderedObjects(sorted: objects)
        heldRelated = [:]
        holdRelatedObjects(of: objects)
        sectionKeys = []
        sectionCounts = [:]
        if let sectionBy {
            for object in objects {
                let key = sectionBy.key(unsafeDowncast(object, to: Object.self))
                if sectionCounts[key] == nil { sectionKeys.append(key) }
                sectionCounts[key, default: 0] += 1
            }
        } else {
            sectionKeys = [nil]
            sectionCounts = [nil: objects.count]
        }
        computeSectionStarts()
    }

    /// The request's objects, every one loaded.
    private func fetchAll() throws -> FetchResults<Object> {
        var fetch = request
        fetch.fetchBatchSize = 0
        return try context.fetch(fetch)
    }

    private func loadBatch(around index: Int) {
        let use = context.beginUse()
        defer { use.end() }
        let start = index - index % request.fetchBatchSize
        let batch = list.objects(in: start..<min(start + request.fetchBatchSize, list.count))
        context.loadFaults(batch.map { unsafeDowncast($0, to: Object.self)._$state })
    }

    private func reloadAsAWhole() throws {
        observers.post(.willRefetch)
        try load()
        post(ListChangeset(changes: [], isRefetch: true))
    }

    private func post(_ changeset: ListChangeset<Object>) {
        registrar.withMutation(of: self, keyPath: contentsKeyPath) { contents &+= 1 }
        observers.post(.changes(changeset))
        changesetObservers.post(changeset)
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

    // MARK: Changes

    private func process(_ change: ObjectsDidChange) {
        if change.invalidatedAllObjects {
            do { try reloadAsAWhole() } catch { lastError = error }
            return
        }
        var seen = Set<ObjectIdentifier>()
        var candidates: [Object] = []
        func consider(_ entity: any Entity) {
            guard let object = entity as? Object, seen.insert(ObjectIdentifier(object)).inserted else { return }
            candidates.append(object)
        }
        for object in change.insertedObjects { consider(object) }
        for update in change.updatedObjects { consider(update.object) }
        for update in change.refreshedObjects { consider(update.object) }
        for object in change.deletedObjects { consider(object) }
        for object in change.invalidatedObjects { consider(object) }
        // Rows updated elsewhere that the context holds no object for (none is in the list, which
        // holds its objects) may belong in it now: those whose changes the request reads.
        for case let object as Object in unheldObjects(of: Object._$entity, in: change.unheldUpdates).map(\.object) {
            consider(object)
        }
        if reads.followsRelationships {
            do {
                // Objects whose related objects changed what the request reads of them, the related
                // objects being held or not.
                var changed =
                    [change.updatedObjects, change.refreshedObjects].joined().map { ($0.object, $0.changedKeys) }
                    + change.deletedObjects.map { ($0, Set<String>()) }
                if !change.unheldUpdates.isEmpty {
                    for entity in reads.followedDestinations {
                        changed += unheldObjects(of: entity, in: change.unheldUpdates)
                    }
                }
                for case let object as Object in try context.objects(
                    readingChangesOf: changed, reads: reads, root: Object._$entity)
                { consider(object) }
            } catch {
                lastError = error
            }
        }
        guard !candidates.isEmpty else { return }
        let invalidated = Set(change.invalidatedObjects.map { ObjectIdentifier($0) })
        // Objects merged in as faults are read set-wise, not one query each.
        context.loadFaults(candidates.map(\._$state).filter { $0.isFault && !$0.isDeleted })

        // A window (fetchLimit) depends on objects outside it too: a fetch says what is in it now.
        var window: Set<ObjectIdentifier>?
        if request.fetchLimit != nil {
            do {
                let inWindow = try fetchAll()
                window = Set(inWindow.lazy.map { ObjectIdentifier($0) })
                for object in inWindow { consider(object) }
                for object in list.all { consider(unsafeDowncast(object, to: Object.self)) }
            } catch {
                lastError = error
                return
            }
        }

        holdRelatedObjects(of: candidates)
        var leaving: [Object] = []
        var entering: [Object] = []
        for object in candidates {
            let isIn = list.contains(object)
            let belongs =
                !invalidated.contains(ObjectIdentifier(object)) && matches(object)
                && window?.contains(ObjectIdentifier(object)) != false
            if isIn { leaving.append(object) }
            if belongs { entering.append(object) }
        }
        guard !leaving.isEmpty || !entering.isEmpty else { return }
        apply(leaving: leaving, entering: entering)
    }

    /// The rows of `entity` updated elsewhere and held by no object of the context whose changed
    /// properties the request reads, as faults made together (loaded set-wise by the caller), with
    /// their changed keys. A save of rows the request does not read costs a look at each ID, no
    /// query.
    private func unheldObjects(of entity: EntityDeclaration, in updates: UnheldUpdates) -> [(object: any Entity, changedKeys: Set<String>)]
    {
        // Decided once per set of changed properties: the rows of a save mostly share one.
        var decided: (keys: Set<String>, isAffected: Bool)?
        let rows = updates.rows(of: entity).filter { row in
            if let decided, decided.keys == row.changedKeys { return decided.isAffected }
            let isAffected = reads.isAffected(by: row.changedKeys, of: entity)
            decided = (row.changedKeys, isAffected)
            return isAffected
        }
        guard !rows.isEmpty else { return [] }
        let keys = Dictionary(rows.map { ($0.id, $0.changedKeys) }, uniquingKeysWith: { $0.union($1) })
        return context.objects(with: Array(keys.keys), of: entity).compactMap { object in
            keys[object.objectID].map { (object, $0) }
        }
    }

    /// Keeps alive, and loads set-wise, the objects that `objects` reach through the to-one
    /// relationships the request follows, and those they reach in turn.
    private func holdRelatedObjects(of objects: [AnyObject]) {
        guard reads.followsRelationships else { return }
        var frontier: [(entity: EntityDeclaration, states: [ObjectState])] = [
            (Object._$entity, objects.map { unsafeDowncast($0, to: Object.self)._$state })
        ]
        while let (entity, states) = frontier.popLast() {
            for followed in reads.followed where followed.owner === entity && !followed.relationship.isToMany {
                guard case .toOne(let slot) = entity.layout.slots[followed.relationship.propertyIndex] else { continue }
                var ids = Set<ObjectID>()
                for state in states where !state.isFault { if let id = state.relatedID(at: slot) { ids.insert(id) } }
                let destination = followed.relationship.destinationDeclaration
                var reached: [ObjectState] = []
                for related in context.objects(with: Array(ids), of: destination)
                where heldRelated.updateValue(related, forKey: ObjectIdentifier(related)) == nil {
                    reached.append(related._$state)
                }
                guard !reached.isEmpty else { continue }
                context.loadFaults(reached)
                frontier.append((destination, reached))
            }
        }
    }

    private func matches(_ object: Object) -> Bool {
        let state = object._$state
        guard !state.isDeleted, state.context === context else { return false }
        // A fault whose row is gone (deleted elsewhere, reached through a relationship) is no object.
        do {
            try context.loadFault(state)
        } catch {
            lastError = error
            return false
        }
        guard !state.isDeleted, !state.isInaccessible else { return false }
        if !request.includesMarkedForDeletion, let deletable = object as? any DelayedDeletable,
            deletable.markedForDeletionDate != nil
        {
            return false
        }
        guard let predicate else { return true }
        do {
            return try predicate.evaluate(object)
        } catch {
            lastError = error
            return false
        }
    }

    private func areInIncreasingOrder(_ lhs: AnyObject, _ rhs: AnyObject) -> Bool {
        request.sortBy.orders(unsafeDowncast(lhs, to: Object.self), before: unsafeDowncast(rhs, to: Object.self))
    }

    /// Takes `leaving` out of the list and puts `entering` in (an object in both stays, perhaps
    /// elsewhere), then reports what that did.
    private func apply(leaving: [Object], entering: [Object]) {
        // Where the leaving objects were, in the old list.
        let oldSectionKeys = sectionKeys
        var old: [ObjectIdentifier: (position: Int, path: IndexPath)] = [:]
        for object in leaving {
            guard let position = list.position(of: object) else { continue }
            old[ObjectIdentifier(object)] = (position, indexPath(ofPosition: position))
        }
        for object in leaving {
            guard let place = old[ObjectIdentifier(object)] else { continue }
            list.remove(object)
            sectionCounts[oldSectionKeys[place.path[0]], default: 1] -= 1
        }
        for object in entering {
            list.insert(object, by: areInIncreasingOrder)
            sectionCounts[sectionBy?.key(object), default: 0] += 1
        }
        if let sectionBy {
            // The sections, in order: each one's first object follows the previous one's last. A
            // section emptied and filled again in the same change is the same section.
            sectionCounts = sectionCounts.filter { $0.value > 0 }
            sectionKeys = []
            var start = 0
            while start < list.count {
                let key = sectionBy.key(unsafeDowncast(list.object(at: start), to: Object.self))
                sectionKeys.append(key)
                start += max(1, sectionCounts[key] ?? 1)
            }
        }
        computeSectionStarts()
        report(leaving: leaving, entering: entering, old: old, oldSectionKeys: oldSectionKeys)
    }

    private func report(
        leaving: [Object], entering: [Object],
        old: [ObjectIdentifier: (position: Int, path: IndexPath)], oldSectionKeys: [String?]
    ) {
        var new: [ObjectIdentifier: (position: Int, path: IndexPath)] = [:]
        for object in entering {
            guard let position = list.position(of: object) else { continue }
            new[ObjectIdentifier(object)] = (position, indexPath(ofPosition: position))
        }
        // An object that stays moved when the objects around it that did not change are no longer
        // the same: fewer or more of them before it, another section, or, among the changed objects
        // between the same two unchanged ones, an order that changed.
        let oldPositions = old.values.map(\.position).sorted()
        let newPositions = new.values.map(\.position).sorted()
        func unchangedBefore(_ position: Int, among changed: [Int]) -> Int {
            position - changed.partitioningIndex { $0 >= position }
        }
        var moved = Set<ObjectIdentifier>()
        var slots: [Int: [(old: Int, new: Int, id: ObjectIdentifier)]] = [:]
        for object in entering {
            let id = ObjectIdentifier(object)
            guard let before = old[id], let after = new[id] else { continue }
            let slotBefore = unchangedBefore(before.position, among: oldPositions)
            let slotAfter = unchangedBefore(after.position, among: newPositions)
            if slotBefore != slotAfter || oldSectionKeys[before.path[0]] != sectionKeys[after.path[0]] {
                moved.insert(id)
            } else {
                slots[slotBefore, default: []].append((before.position, after.position, id))
            }
        }
        for (_, members) in slots where members.count > 1 {
            let inNewOrder = members.sorted { $0.new < $1.new }
            let kept = Set(longestIncreasingRun(inNewOrder.map(\.old)).map { inNewOrder[$0].id })
            for member in members where !kept.contains(member.id) { moved.insert(member.id) }
        }

        var deletions: [(Object, IndexPath)] = []
        var insertions: [(Object, IndexPath)] = []
        var moves: [(Object, IndexPath, IndexPath)] = []
        var updates: [(Object, IndexPath)] = []
        for object in leaving {
            let id = ObjectIdentifier(object)
            guard let before = old[id] else { continue }
            if new[id] == nil { deletions.append((object, before.path)) }
        }
        for object in entering {
            let id = ObjectIdentifier(object)
            guard let after = new[id] else { continue }
            if let before = old[id] {
                if moved.contains(id) { moves.append((object, before.path, after.path)) } else { updates.append((object, after.path)) }
            } else {
                insertions.append((object, after.path))
            }
        }
        let keptKeys = Set(sectionKeys)
        let formerKeys = Set(oldSectionKeys)
        var changes: [ListChangeset<Object>.Change] = []
        changes += deletions.sorted { $0.1 > $1.1 }.map { .deleteObject($0.0, from: $0.1) }
        if sectionBy != nil {
            for index in oldSectionKeys.indices.reversed() where !keptKeys.contains(oldSectionKeys[index]) {
                changes.append(.deleteSection(section(key: oldSectionKeys[index], objects: []), from: index))
            }
            for index in sectionKeys.indices where !formerKeys.contains(sectionKeys[index]) {
                changes.append(.insertSection(section(at: index), at: index))
            }
        }
        changes += insertions.sorted { $0.1 < $1.1 }.map { .insertObject($0.0, at: $0.1) }
        changes += moves.sorted { $0.2 < $1.2 }.map { .moveObject($0.0, from: $0.1, to: $0.2) }
        changes += updates.sorted { $0.1 < $1.1 }.map { .updateObject($0.0, at: $0.1) }
        post(ListChangeset(changes: changes, isRefetch: false))
    }

    // MARK: Delivering

    /// What observers are told: a refetch about to happen, or changes made.
    enum ListEvent {
        case willRefetch
        case changes(ListChangeset<Object>)
    }

    private func deliver<Observer: ListObserver>(
        _ event: ListEvent, to observer: Observer, objectObserver: (any ListObjectObserver<Object>)?,
        sectionObserver: (any ListSectionObserver<Object>)?
    ) where Observer.ListEntityType == Object {
        guard case .changes(let changeset) = event else {
            observer.listMonitorWillRefetch(self)
            return
        }
        if changeset.isRefetch {
            observer.listMonitorDidRefetch(self)
            return
        }
        observer.listMonitorWillChange(self)
        if let objectObserver {
            for change in changeset.changes {
                switch change {
                case let .deleteObject(object, path):
                    objectObserver.listMonitor(self, didDeleteObject: object, fromIndexPath: path)
                case let .deleteSection(section, index):
                    sectionObserver?.listMonitor(self, didDeleteSection: section, fromSectionIndex: index)
                case let .insertSection(section, index):
                    sectionObserver?.listMonitor(self, didInsertSection: section, toSectionIndex: index)
                case let .insertObject(object, path):
                    objectObserver.listMonitor(self, didInsertObject: object, toIndexPath: path)
                case let .moveObject(object, from, to):
                    objectObserver.listMonitor(self, didMoveObject: object, fromIndexPath: from, toIndexPath: to)
                case let .updateObject(object, path):
                    objectObserver.listMonitor(self, didUpdateObject: object, atIndexPath: path)
                }
            }
        }
        observer.listMonitorDidChange(self)
    }

    // MARK: Sections

    private func section(key: String?, objects: [Object]) -> ListSection<Object> {
        ListSection(key: key, name: sectionBy.map { $0.name(key) } ?? nil, objects: objects)
    }

    private func computeSectionStarts() {
        var start = 0
        sectionStarts = sectionKeys.map { key in
            defer { start += sectionCounts[key] ?? 0 }
            return start
        }
    }

    private func indexPath(ofPosition position: Int) -> IndexPath {
        let section = max(0, sectionStarts.partitioningIndex { $0 > position } - 1)
        return IndexPath(indexes: [section, position - sectionStarts[section]])
    }
}

/// The positions in `values` of a longest strictly increasing subsequence.
func longestIncreasingRun(_ values: [Int]) -> [Int] {
    var tails: [Int] = []  // positions of the smallest tail of each length
    var previous = [Int](repeating: -1, count: values.count)
    for (index, value) in values.enumerated() {
        let length = tails.partitioningIndex { values[$0] >= value }
        if length > 0 { previous[index] = tails[length - 1] }
        if length == tails.count { tails.append(index) } else { tails[length] = index }
    }
    var run: [Int] = []
    var index = tails.last ?? -1
    while index >= 0 {
        run.append(index)
        index = previous[index]
    }
    return run.reversed()
}

extension ObjectContext {
    /// A monitor of the objects a request fetches, as one list.
    ///
    /// The request's sort is required (the list's order must be deterministic; ties go by the store's
    /// order). Its ``FetchDescriptor/fetchLimit`` keeps the list to the first objects (a change that
    /// touches the list fetches the window again, so keep it small); its
    /// ``FetchDescriptor/fetchBatchSize`` makes the objects faults, loaded a batch at a time as the
    /// monitor's subscripts read them. ``FetchDescriptor/fetchOffset`` is not supported.
    ///
    /// - Throws: ``ObjectGraphError/invalidListMonitor(entity:reason:)`` for a request without a sort or
    ///   with an offset, and the errors of ``fetch(_:)``.
    public func monitorList<Object: Entity>(_ request: FetchDescriptor<Object>) throws -> ListMonitor<Object> {
        try ListMonitor(context: self, request: request, sectionBy: nil)
    }

    /// A monitor of the objects a request fetches, in sections by `sectionBy`.
    ///
    /// As ``monitorList(_:)``; the first sort descriptor must sort by the section's key path, and a
    /// batch size loads every object anyway (each one's section is read).
    ///
    /// - Throws: ``ObjectGraphError/invalidListMonitor(entity:reason:)`` for a sort that does not start
    ///   with the section's key path, and the errors of ``monitorList(_:)``.
    public func monitorSectionedList<Object: Entity>(
        _ request: FetchDescriptor<Object>, sectionBy: SectionBy<Object>
    ) throws -> ListMonitor<Object> {
        try ListMonitor(context: self, request: request, sectionBy: sectionBy)
    }

    /// A monitor of the objects of `entity` matching `predicate`, in the order of `sortBy`, as one list.
    ///
    /// - Parameters:
    ///   - entity: The entity listed.
    ///   - predicate: The condition objects must meet; nil for all.
    ///   - sortBy: The order; at least one descriptor (the list's order must be deterministic; ties go
    ///     by the store's order).
    ///   - includesMarkedForDeletion: Whether objects marked for deletion stay in the list.
    /// - Throws: ``ObjectGraphError/invalidListMonitor(entity:reason:)`` without a sort, and the errors
    ///   of ``fetch(_:)``.
    public func monitorList<Object: Entity>(
        _ entity: Object.Type, predicate: Predicate<Object>? = nil, sortBy: [SortDescriptor<Object>],
        includesMarkedForDeletion: Bool = false
    ) throws -> ListMonitor<Object> {
        try monitorList(
            FetchDescriptor(
                predicate: predicate, sortBy: sortBy, includesMarkedForDeletion: includesMarkedForDeletion))
    }

    /// A monitor of the objects of `entity` matching `predicate`, in sections by `sectionBy`.
    ///
    /// - Parameters:
    ///   - entity: The entity listed.
    ///   - sectionBy: What groups objects into sections; the first sort descriptor must sort by it.
    ///   - predicate: The condition objects must meet; nil for all.
    ///   - sortBy: The order, starting with the section's key path.
    ///   - includesMarkedForDeletion: Whether objects marked for deletion stay in the list.
    /// - Throws: ``ObjectGraphError/invalidListMonitor(entity:reason:)`` for a sort that does not start
    ///   with the section's key path, and the errors of ``fetch(_:)``.
    public func monitorSectionedList<Object: Entity>(
        _ entity: Object.Type, sectionBy: SectionBy<Object>, predicate: Predicate<Object>? = nil,
        sortBy: [SortDescriptor<Object>], includesMarkedForDeletion: Bool = false
    ) throws -> ListMonitor<Object> {
        try monitorSectionedList(
            FetchDescriptor(
                predicate: predicate, sortBy: sortBy, includesMarkedForDeletion: includesMarkedForDeletion), sectionBy: sectionBy)
    }
}
