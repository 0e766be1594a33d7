import Foundation
public import Logging
public import ObjectGraph
public import ObjectGraphSyncProtocol

/// Keeps a container's store in step with a sync server: a sync coordinator, as Core Data sync
/// architectures have it, made crash-proof.
///
/// ```swift
/// let container = try ObjectContainer(schema: Schema([Mood.self, Country.self] + SyncCoordinator.entities))
/// let sync = try SyncCoordinator(container: container, remote: HTTPSyncRemote(url: server, token: token),
///                                syncing: [Mood.self, Country.self])
/// await sync.start()
/// ```
///
/// The coordinator works in a background context of its own (named ``author``, so that its saves
/// are known as the sync's). Its change processors (``ChangeProcessor``) select the objects they act
/// on by predicates; by default the ``Uploader`` sends local changes and the ``Downloader`` applies
/// the server's feed.
///
/// What makes it crash-proof:
/// - Local changes are read from the store's persistent history, which every save writes in its own
///   transaction: the coordinator records them in its per-record states (``SyncRecordState``) and
///   saves, with them, how far it read. A crash between an app's save and that bookkeeping loses
///   nothing; a commit of any context or process only wakes the coordinator up.
/// - A push is saved before it is sent (with the mutation numbers it uses), sent again unchanged
///   after a crash or a lost answer (the server applies a batch once), and forgotten in the
///   transaction that records its acknowledgment.
/// - Each page of the feed is applied in one save, with the feed's new cursor.
///
/// When the server cannot be reached, the app works as before: changes wait, and the coordinator
/// tries again after a delay that doubles up to a minute, with jitter. A refused token stops it
/// (``SyncStatus/Activity/unauthorized``) until ``start()`` is called again.
public actor SyncCoordinator {
    /// The sync's own entities, which the container's schema must include: the records' states, the
    /// client's state of each zone, the pushes in flight, the links waiting for their target, the
    /// set-aside and merged records, and the moves whose old zone is still to be told.
    public static let entities: [any Entity.Type] = [
        SyncRecordState.self, ClientState.self, OutboxBatch.self, PendingLink.self, SetAsideEntry.self, MergedRecord.self,
        ZoneMove.self
    ]

    /// The name of the coordinator's context: the author of its saves in the history and in every
    /// `DidSave`. Its saves are never uploaded.
    public static let author = "ObjectGraphSync"

    let container: ObjectContainer
    let remote: any SyncRemote
    /// The coordinator's own zone on the server: where the store's objects live unless they are
    /// shared (see <doc:SharingObjects>).
    public nonisolated let zone: ZoneID
    let processors: [any ChangeProcessor]
    /// The sync's side of the store: its context, the records' states, the store work of each
    /// step; used only on this actor.
    let workspace: SyncWorkspace
    /// The status, for the app: `Observable`, and an `AsyncSequence` of its changes.
    public nonisolated let status: ObservableSyncStatus

    /// How many changes a push and a page of the feed carry at most.
    let batchSize: Int
    /// How long the app's saves must pause before the coordinator syncs them (see ``GatheringWake``).
    let gatheringDelay: Duration
    /// The delays between attempts while the server cannot be reached.
    let backoff: Backoff

    private var loop: Task<Void, Never>?
    /// Whether ``start()`` was called and the coordinator has not halted since.
    var isRunning: Bool { loop != nil }
    /// The live route of each zone synced, while running.
    var liveRoutes: [ZoneID: Task<Void, Never>] = [:]
    /// The zones synced, with the user's role in each: the coordinator's own zone, and those the
    /// server last listed that are named after it (see ``refreshZones()``).
    var zoneRoles: [ZoneID: ZoneRole] {
        get { workspace.zoneRoles }
        set { workspace.zoneRoles = newValue }
    }
    /// When the zones were last asked of the server.
    var zonesListedAt: ContinuousClock.Instant?
    /// Whether a shared zone's live route was refused since: the user may have left it.
    var zonesMayHaveChanged = false
    /// Whether a cycle that only reads asks for the zones: after a refused live route, or 30 seconds
    /// after the last look.
    var zoneListIsStale: Bool {
        guard let zonesListedAt, !zonesMayHaveChanged else { return true }
        return ContinuousClock.now - zonesListedAt > .seconds(30)
    }
    /// The user's name, as the server last said it; nil until it did.
    var userName: String? {
        get { workspace.userName }
        set { workspace.userName = newValue }
    }
    /// The records of the zones the user may only read, for the save rule that refuses their edits.
    let readOnlyRecords: ReadOnlyRecords
    /// Keeps the save rule added to the container.
    private let readOnlyRule: ObservationToken
    private var wakeUp: CoordinatorWake?
    private var commitObservation: ObservationToken?
    private var retry: Task<Void, Never>?
    private var lastCycle: Task<Void, any Error>?
    private var failedCycles = 0
    /// Whether the next cycle applies the set-aside records again: the first one of a coordinator
    /// and after each start, so that an upgrade of the app that accepts them applies them.
    private var retriesSetAside = true

    /// A coordinator of `container`'s objects of `types` with the server `remote`.
    ///
    /// - Parameters:
    ///   - container: The app's container; its schema includes ``entities``.
    ///   - remote: The server (``HTTPSyncRemote``).
    ///   - zone: The server zone this store syncs with.
    ///   - types: The entities that sync.
    ///   - processors: What acts on local and remote changes; nil for the ``Uploader`` and the
    ///     ``Downloader``.
    ///   - batchSize: How many changes a push and a page carry at most.
    ///   - gatheringDelay: How long the app's saves must pause before a started coordinator
    ///     syncs them (ten times that at most while they keep coming), so that a burst of saves
    ///     meets no sync competing with it and is sent in one cycle after it. Changes announced by
    ///     the server's live route are read at once.
    ///   - logger: Where the coordinator tells what it ignores (a field this model does not sync,
    ///     logged once) and what it sets aside (each record, with why), as swift-log messages.
    /// - Throws: ``SyncError`` (``SyncError/Code/invalidConfiguration``) when the container lacks the
    ///   sync's entities or an entity's configuration does not fit it.
    public init(
        container: ObjectContainer, remote: any SyncRemote, zone: ZoneID = "default",
        syncing types: [any Syncable.Type], processors: [any ChangeProcessor]? = nil,
        batchSize: Int = 500, gatheringDelay: Duration = .milliseconds(50),
        logger: Logger = Logger(label: "ObjectGraphSync")
    ) throws {
        self.container = container
        self.remote = remote
        self.zone = zone
        let model = try SyncModel(types: types, schema: container.schema)
        self.processors = processors ?? [Uploader(), Downloader()]
        self.batchSize = max(1, batchSize)
        self.gatheringDelay = max(.zero, gatheringDelay)
        self.backoff = Backoff()
        let status = ObservableSyncStatus()
        self.status = status
        let workspace = SyncWorkspace(
            container: container, zone: zone, model: model, status: status, batchSize: self.batchSize, logger: logger)
        self.workspace = workspace
        var roles = try workspace.joinedZones()
        roles[zone] = .owner
        workspace.zoneRoles = roles
        let readOnlyRecords = ReadOnlyRecords(try workspace.readOnlyRecords(in: roles.filter { !$0.value.canWrite }.keys))
        self.readOnlyRecords = readOnlyRecords
        self.readOnlyRule = container.addSaveRule(named: Self.readOnlyZoneRule) { save in
            readOnlyRecords.check(save, model: model)
        }
    }

    // MARK: Running

    /// Starts syncing: resumes what was pending, then follows local saves and the server's live
    /// route. Calling it while running does nothing.
    public func start() {
        guard loop == nil else { return }
        let wakeUp = CoordinatorWake()
        self.wakeUp = wakeUp
        let appSaved = GatheringWake(after: gatheringDelay, wakeUp: wakeUp)
        commitObservation = container.observeCommits { save in
            if save.author != Self.author { appSaved.request() }
        }
        workspace.scansFully = true
        retriesSetAside = true
        status.update {
            $0.activity = .idle; $0.lastError = nil; $0.nextRetry = nil
        }
        loop = Task { await self.run(wakeUp) }
        followLiveRoutes()
        wakeUp.forLocalChanges()
    }

    /// Stops syncing, after the cycle under way (if any) ends. What is pending stays pending.
    public func stop() async {
        halt()
        _ = try? await lastCycle?.value  // its failure, if any, is in the status
        status.update { $0.activity = .stopped }
    }

    /// Stops hearing saves, the live route and the retry timer; a cycle under way ends by itself.
    private func halt() {
        loop?.cancel()
        for route in liveRoutes.values { route.cancel() }
        liveRoutes = [:]
        retry?.cancel()
        wakeUp?.finish()
        commitObservation = nil
        (loop, retry, wakeUp) = (nil, nil, nil)
    }

    /// Pushes everything pending and reads the feed to the server's head, then returns; throws why
    /// not (the server unreachable, a refused token, a record that does not fit the model).
    public func syncNow() async throws {
        try await runCycle()
    }

    private func run(_ wakeUp: CoordinatorWake) async {
        for await _ in wakeUp.wakes {
            guard !Task.isCancelled else { return }
            let reasons = wakeUp.take()
            guard reasons.localChanges || reasons.serverChanges else { continue }  // taken by the previous wake
            // A failure is in the status, and schedules the next attempt.
            try? await runCycle(pushing: reasons.localChanges)
        }
    }

    /// Runs one cycle after the one under way, if any: cycles never overlap. Without `pushing`, the
    /// cycle only reads the feed (see ``CoordinatorWake``).
    private func runCycle(pushing: Bool = true) async throws {
        do {
            try await exclusively { sync in try await sync.cycle(pushing: pushing) }
            failedCycles = 0
            retry?.cancel()
            retry = nil
        } catch {
            scheduleRetry(after: error)
            throw error
        }
    }

    /// Records local changes, lets the processors act, and reads the feed to its end; again while
    /// what the feed brought made the app's rules change something to send (a round or two).
    private func cycle(pushing: Bool) async throws {
        var rounds = 0, conflicts = 0, again = false, pushing = pushing
        repeat {
            do {
                try await round(pushing: pushing, refreshingZones: rounds == 0)
                rounds += 1
                again = workspace.recordedConsequences && rounds < 4
                pushing = true  // the app's rules reacted: the next round sends it
            } catch let error as SyncError where error.storeError?.code == .conflict && conflicts < Self.conflictRetries {
                // The app saved an object the sync wrote, after the sync read it: the round starts
                // again from the store, the app's change recorded first (so the feed does not
                // overwrite it).
                conflicts += 1
                workspace.forgetHeldObjects()
                again = true
            } catch {
                // What was left undone is found by the predicates next time; what the failed step
                // changed and did not save is forgotten (a page half applied is read again).
                workspace.forgetHeldObjects()
                throw error
            }
        } while again
        if retriesSetAside {
            retriesSetAside = false
            try await applySetAsideAgain()
        }
        let date = Date()
        let pending = try workspace.endCycle(at: date)
        let heldBack = try workspace.heldBackCount()
        status.update { status in
            status.activity = .idle
            status.lastError = nil
            status.nextRetry = nil
            status.pendingChanges = pending
            status.heldBackRecords = heldBack
            if pending == 0 { status.lastSuccessfulSync = date }
        }
    }

    /// Runs `work` on the sync context after the cycle under way, if any, and before the next:
    /// cycles, and the calls that change the sync context from outside, never overlap.
    @discardableResult
    func exclusively<Value: Sendable>(_ work: @escaping @Sendable (isolated SyncCoordinator) async throws -> Value) async throws -> Value {
        let previous = lastCycle
        let task = Task {
            _ = try? await previous?.value
            return try await work(self)
        }
        lastCycle = Task { _ = try await task.value }
        return try await task.value
    }

    /// Waits until no cycle runs: what follows, with no suspension, cannot meet one halfway.
    func waitForCycles() async {
        while let cycle = lastCycle {
            _ = try? await cycle.value
            if lastCycle == cycle { return }
        }
    }

    /// How many times in a row a cycle starts a round again after meeting an app's save.
    static let conflictRetries = 8

    /// Records local changes, asks which zones to sync (when `refreshingZones`: the first round of
    /// a cycle), lets the processors act (when `pushing`), and reads each zone's feed to its end,
    /// from objects read afresh: the sync context merges no save by itself (see ``init(container:remote:zone:syncing:processors:batchSize:gatheringDelay:logger:)``).
    private func round(pushing: Bool, refreshingZones: Bool) async throws {
        if pushing {
            status.update { $0.activity = .pushing }
            let round = try workspace.beginRound(recordingLocalChanges: true)
            // A coordinator that has not completed a cycle yet shows what the store recorded.
            status.update {
                $0.pendingChanges = round.pending; $0.lastSuccessfulSync = $0.lastSuccessfulSync ?? round.lastSuccessfulSync
            }
            if refreshingZones { try await refreshZones() }
            for processor in processors {
                try await runLocal(processor, in: round)
            }
            try await sendForwards()
            workspace.processorsSawChanges()
        } else {
            _ = try workspace.beginRound(recordingLocalChanges: false)
            // A cycle that only reads (woken by a live route) asks for the zones when one may have
            // changed, or a while after the last look: not once more per change announced.
            if refreshingZones && zoneListIsStale { try await refreshZones() }
        }
        status.update { $0.activity = .pulling }
        for zone in zoneRoles.keys.sorted() {
            try await inZone(zone) { sync in try await sync.pull() }
        }
    }

    /// Runs `work` with the workspace on `zone`: the pages it applies, the batches it builds, the
    /// client state it reads are that zone's.
    func inZone<Value>(_ zone: ZoneID, _ work: (isolated SyncCoordinator) async throws -> Value) async throws -> Value {
        let previous = workspace.zone
        workspace.zone = zone
        defer { workspace.zone = previous }
        return try await work(self)
    }

    private func runLocal<Processor: ChangeProcessor>(_ processor: Processor, in round: SyncRound) async throws {
        guard let predicate = processor.predicate else { return }
        let objects = try workspace.localObjects(matching: predicate, in: round)
        guard !objects.isEmpty else { return }
        try await processor.processChangedLocalObjects(objects, in: self)
    }

    private func scheduleRetry(after error: any Error) {
        if (error as? SyncError)?.code == .unauthorized {
            // Nothing is tried again, on a timer or at the next save: a retry storm would not make
            // the token valid. `start()` begins again.
            halt()
            status.update {
                $0.activity = .unauthorized; $0.lastError = error as? SyncError; $0.nextRetry = nil
            }
            return
        }
        failedCycles += 1
        let delay = backoff.delay(afterFailures: failedCycles)
        let next = Date().addingTimeInterval(delay)
        let failure = (error as? SyncError) ?? .unreachable("\(error)")
        status.update { status in
            status.activity = failure.code == .unreachable ? .offline : .failing
            status.lastError = failure
            status.nextRetry = next
        }
        guard let wakeUp else { return }  // not started: syncNow's caller decides
        retry?.cancel()
        retry = Task {
            try? await Task.sleep(for: .seconds(delay))
            if !Task.isCancelled { wakeUp.forLocalChanges() }
        }
    }

    // MARK: Live route

    /// Follows the live route of each zone synced, and stops following those no longer synced.
    func followLiveRoutes() {
        guard isRunning else { return }
        for (zone, route) in liveRoutes where zoneRoles[zone] == nil {
            route.cancel()
            liveRoutes[zone] = nil
        }
        for zone in zoneRoles.keys where liveRoutes[zone] == nil {
            liveRoutes[zone] = Task { await self.listen(to: zone) }
        }
    }

    /// Follows a zone's live route: each announced move of the feed past this client's cursor
    /// wakes the coordinator up. Reconnects after a delay when the connection breaks.
    private func listen(to zone: ZoneID) async {
        var failures = 0
        while !Task.isCancelled {
            let opened = ContinuousClock.now
            do {
                // An unreadable cursor, or a zone not read yet: the pull reads the zone from its start.
                let cursor = try workspace.storedCursor(of: zone) ?? .start
                for try await message in LiveMessages(remote.live(zone: zone, since: cursor)) {
                    failures = 0
                    switch message {
                    case .listening:
                        // What changed while it was not listening: the server follows with a
                        // `changes` event when its feed is past the cursor sent.
                        break
                    case .changes(let event):
                        let cursor = try workspace.storedCursor(of: zone)?.position ?? 0
                        if event.cursor.position > cursor {
                            status.update { $0.hasUnreadServerChanges = true }
                            wakeUp?.forServerChanges()
                        }
                    case .keepAlive:
                        break
                    }
                }
                // The server ends streams after a while (its lifetime for them): a stream that
                // lasted reconnects at once; one that ended at once counts as a failure, so that a
                // server ending every stream is not asked again and again.
                if ContinuousClock.now - opened >= .seconds(1) { continue }
                failures += 1
            } catch let error as SyncError where error.code == .unauthorized {
                return  // the cycles report it; reconnecting would not help
            } catch let error as SyncError where zone != self.zone && error.serverCode == .notFound {
                // Taken out of a shared zone: the next cycle's look at the zones takes it off.
                failures += 1
                zonesMayHaveChanged = true
                wakeUp?.forServerChanges()
            } catch {
                failures += 1
            }
            guard !Task.isCancelled else { return }
            try? await Task.sleep(for: .seconds(backoff.delay(afterFailures: max(1, failures))))
        }
    }

}

/// The delays between attempts while the server cannot be reached: doubling from a second up to a
/// minute, each drawn between half and all of that, so that many clients of a server that comes
/// back do not all call at once.
struct Backoff: Sendable {
    var initial: TimeInterval = 1
    var maximum: TimeInterval = 60

    func delay(afterFailures failures: Int) -> TimeInterval {
        let ceiling = min(maximum, initial * pow(2, Double(min(max(failures, 1), 30) - 1)))
        return Double.random(in: ceiling / 2...ceiling)
    }
}
