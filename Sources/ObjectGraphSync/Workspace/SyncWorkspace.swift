import Foundation
import Logging
import ObjectGraph
import ObjectGraphSyncProtocol

/// The sync's side of the app's store: the sync context, the records' states, and what the
/// coordinator knows of the context's unsaved work.
///
/// Everything here is synchronous store work: recording local changes (`Recording/`), building
/// and acknowledging pushes (`Outbox.swift`), applying the feed (`Applying/`), keeping records
/// aside. The ``SyncCoordinator`` actor alone holds a workspace and calls it on its own executor;
/// it does the waiting (the network, the processors, the wake-ups) and keeps the life cycle,
/// the back-off and the status. A workspace is therefore never shared between threads, and none
/// of its state needs a lock.
final class SyncWorkspace {
    let container: ObjectContainer
    /// The coordinator's own zone: the one objects live in unless shared.
    let home: ZoneID
    /// The zone the step under way reads or pushes: the coordinator sets it before each zone's
    /// pull and push (a page applied, a batch built, a client state read are this zone's).
    var zone: ZoneID
    /// Whether the store syncs any zone beside ``home`` (shared ones); nil until looked. While it
    /// does not, every record is ``home``'s and no record's zone is looked up.
    var hasOtherZones: Bool?
    /// The zones synced, with the user's role in each (see `SyncCoordinator+Zones.swift`).
    var zoneRoles: [ZoneID: ZoneRole] = [:]
    /// The user's name, as the server last said it; nil until it did.
    var userName: String?
    let model: SyncModel
    /// The context the sync works in.
    let context: ObjectContext
    /// The app's status, in which set-aside records are counted.
    let status: ObservableSyncStatus
    /// How many changes a push and a page of the feed carry at most.
    let batchSize: Int
    /// Where what the sync ignores or sets aside is told.
    let logger: Logger
    /// The fields of the feed this model does not sync that were logged, as `RecordType.field`.
    var unknownFieldsLogged: Set<String> = []

    /// What the coordinator knows of the sync context's unsaved work, since its last save.
    var unsaved = UnsavedSyncState()
    /// The objects changed since the last round, remapped into the sync context, for the processors.
    var changedObjects: [any Entity] = []
    /// Whether the next round gives each processor every object its predicate selects, not only
    /// the changed ones: at start (to resume what a crash interrupted) and after a failure.
    var scansFully = true
    /// Whether a save recorded reactions of the app's rules to the sync's changes, to be sent.
    var recordedConsequences = false
    /// Whether the store keeps any merged record; nil until looked.
    var hasMergedRecords: Bool?
    /// How far the sync read the history, as registered in the store (see
    /// ``registerHistoryPosition(_:)``); nil until registered by this workspace.
    var registeredHistoryPosition: Int64?
    /// The last position a save of the sync context recorded: registered at the end of each cycle
    /// (a write of its own, so not one per page; a position registered late only holds a purge
    /// back).
    var savedHistoryPosition: Int64?
    /// The IDs of the set-aside records (see ``SetAsideRecord``), as saved; nil until read.
    var setAside: Set<UUID>?
    /// The records the processors left out of the page being applied, and why.
    var refusedWhileApplying: [RecordVersion: Refusal] = [:]

    init(
        container: ObjectContainer, zone: ZoneID, model: SyncModel, status: ObservableSyncStatus, batchSize: Int, logger: Logger
    ) {
        self.container = container
        self.home = zone
        self.zone = zone
        self.model = model
        self.status = status
        self.batchSize = batchSize
        self.logger = logger
        let context = container.newBackgroundContext()
        context.name = SyncCoordinator.author
        // The sync context reads objects afresh each round and merges no other context's save:
        // an app's save that lands after the sync read an object then makes the sync's save of
        // that object fail (a conflict, and the round starts again), where a merge would have
        // let the feed's older value overwrite it.
        context.automaticallyMergesChanges = false
        self.context = context
    }

    /// The client's state for `zone` (the zone under way by default), made on first use. The home
    /// zone's is made first and holds how far the history was read: then the objects the store
    /// already holds become pending, and the history before now is left unread. Another zone's
    /// starts reading its feed from the start.
    func clientState(of zone: ZoneID? = nil) throws -> ClientState {
        let zone = zone ?? self.zone
        let key = zone.description
        do {
            if let state = try context.fetch(FetchDescriptor<ClientState>(predicate: #Predicate { $0.zone == key })).first {
                return state
            }
            guard zone == home else {
                _ = try clientState(of: home)
                let state = ClientState(zone: key, clientID: UUID())
                state.role = ZoneRole.reader.rawValue  // until the server's list says more
                context.insert(state)
                hasOtherZones = true
                try save()
                return state
            }
            let state = ClientState(zone: key, clientID: UUID())
            state.historySequence = try container.lastHistoryToken()?.sequence ?? 0
            context.insert(state)
            try adoptExistingObjects()
            unsaved.historyPositionToRegister = state.historySequence
            try save()
            try registerHistoryPosition(state.historySequence)
            return state
        } catch let error as ObjectGraphError {
            throw SyncError.store(error)
        }
    }

    /// Saves the sync context, as the sync, with the reactions of the app's rules to what it
    /// applied recorded as local changes (see ``recordConsequences()``).
    func save() throws {
        try sortNotedLists()
        if try recordConsequences() { recordedConsequences = true }
        do {
            try context.save()
        } catch let error as ObjectGraphError {
            throw SyncError.store(error)
        }
        if let position = unsaved.historyPositionToRegister { savedHistoryPosition = position }
        unsaved = UnsavedSyncState()
    }

    /// Forgets every object the sync context holds, and its unsaved changes; the next round scans
    /// every processor's predicate again.
    func forgetHeldObjects() {
        scansFully = true
        changedObjects = []
        context.reset()
        unsaved = UnsavedSyncState()
    }

    /// Begins a round from objects read afresh (the sync context merges no save by itself; the
    /// changes recorded while a page was applied are taken up again as the objects read now), and
    /// records the local changes since the last round, when it sends them.
    func beginRound(recordingLocalChanges: Bool) throws -> SyncRound {
        recordedConsequences = false
        let changed = changedObjects.map(\.objectID)
        context.reset()
        changedObjects = changed.compactMap { context.object(with: $0) }
        guard recordingLocalChanges else { return SyncRound(pending: 0, lastSuccessfulSync: nil, scansFully: false) }
        try recordLocalChanges()
        let round = SyncRound(
            pending: try pendingCount(), lastSuccessfulSync: try clientState(of: home).lastSuccessfulSync, scansFully: scansFully)
        scansFully = false
        return round
    }

    /// The local objects a processor's `predicate` selects in `round`: every one at a full scan,
    /// else those changed since the last round.
    func localObjects<Object: Entity>(matching predicate: Predicate<Object>, in round: SyncRound) throws -> [Object] {
        try storeCall {
            if round.scansFully {
                return Array(try context.fetch(FetchDescriptor(predicate: predicate, includesMarkedForDeletion: true)))
            }
            var objects: [Object] = []
            var seen = Set<ObjectIdentifier>()
            for case let object as Object in changedObjects where !object.isDeleted && seen.insert(ObjectIdentifier(object)).inserted {
                if try object.matches(predicate) { objects.append(object) }
            }
            return objects
        }
    }

    /// The processors have seen the round's changed objects.
    func processorsSawChanges() {
        changedObjects = []
    }

    /// Ends a cycle that succeeded at `date`: registers how far the sync read the history, and
    /// records the date as the last complete sync when nothing waits. Returns how many records wait.
    func endCycle(at date: Date) throws -> Int {
        if let position = savedHistoryPosition { try registerHistoryPosition(position) }
        let pending = try pendingCount()
        if pending == 0 {
            try clientState(of: home).lastSuccessfulSync = date
            try save()
        }
        return pending
    }

    /// How many records have changes the server has not acknowledged, but those it refused as too
    /// large (see ``heldBackCount()``).
    func pendingCount() throws -> Int {
        try storeCall {
            try context.fetchCount(
                FetchDescriptor<SyncRecordState>(predicate: #Predicate { $0.isPending && $0.heldBackRevision != $0.localRevision }))
        }
    }

    /// What the store records of the sync's progress, read without changing anything (a client
    /// state is not made): how many records wait (in a store that never synced, every object of
    /// the entities that sync, all sent at its first sync), the feed's cursor, the last complete sync.
    func storedProgress() throws -> (pending: Int, cursor: FeedCursor?, lastSuccessfulSync: Date?) {
        let zone = home.description
        return try storeCall {
            let client = try context.fetch(FetchDescriptor<ClientState>(predicate: #Predicate { $0.zone == zone })).first
            let pending =
                client == nil
                ? try model.shapes.filter { !model.hasSyncedParent($0) }.reduce(0) { $0 + (try $1.type.objectCount(in: context)) }
                : try context.fetchCount(
                    FetchDescriptor<SyncRecordState>(predicate: #Predicate { $0.isPending && $0.heldBackRevision != $0.localRevision }))
            return (pending, client?.cursor, client?.lastSuccessfulSync)
        }
    }

    /// Runs a call of the store, its error as the sync's.
    func storeCall<T>(_ call: () throws -> T) throws -> T {
        do {
            return try call()
        } catch let error as ObjectGraphError {
            throw SyncError.store(error)
        }
    }
}
