import Foundation
public import ObjectGraph
public import ObjectGraphSyncProtocol
import Synchronization

/// The zones a coordinator syncs: its own, and the zones shared with its user that are named after
/// it, as the server lists them at the start of each cycle that pushes (and of one that only reads,
/// after a shared zone's live route was refused or 30 seconds after the last look).
///
/// A coordinator of the zone `moods` syncs `moods`, the zones its user made by sharing objects of
/// it (`moods.…`), and the zones named so that other users shared with its user (their `moods`
/// and `moods.…`): another app's zones (`notes`) are left to that app's coordinator. A zone no
/// longer listed (its user left or was removed, or its owner deleted it) is taken off the device:
/// its objects are deleted as the server's deletions are. A zone the user may only read refuses
/// local edits of its objects at save.
extension SyncCoordinator {
    /// The name of the container's save rule that refuses edits of a zone the user may only read:
    /// the `ValidationFailure.Reason.refused(rule:message:)` of such a save names it.
    public static let readOnlyZoneRule = "ObjectGraphSync.readOnlyZone"

    /// The zones this coordinator syncs, with the user's role in each: its own zone (`owner`) and
    /// the shared ones, as of the last cycle.
    public var zones: [ZoneID: ZoneRole] { zoneRoles }

    /// The zone the saved object `objectID` names lives in: the one whose feed brought it, or its
    /// parent's, or the coordinator's own.
    ///
    /// - Throws: ``SyncError`` (``SyncError/Code/store``) when the object is not in the store.
    public func zone(of objectID: ObjectID) throws -> ZoneID {
        guard let object = workspace.context.object(with: objectID) else {
            throw SyncError.store(.objectNotFound(objectID))
        }
        let id = object.objectGlobalID
        if let state = try workspace.recordStates(for: [id])[id] { return workspace.zone(forKey: state.zone) }
        return workspace.zone(forKey: try workspace.zoneKey(of: object, shape: workspace.model.shape(forEntity: objectID.entityName)))
    }

    /// The user's role in `zone`; nil for a zone this coordinator does not sync.
    public func role(in zone: ZoneID) -> ZoneRole? {
        zoneRoles[zone]
    }

    /// The user's name, asked of the server when not known yet.
    func currentUserName() async throws -> String {
        if let userName { return userName }
        guard let name = try await remote.zones().user else {
            throw SyncError.server(.internalError, "the server does not say whose token this is")
        }
        userName = name
        return name
    }

    // MARK: The zones of a cycle

    /// Asks the server which zones the user belongs to: new ones are synced from their start, those
    /// gone are taken off this device, roles are recorded (a zone become read-only loses its
    /// unsent local changes). A server without shared zones (no zone list) leaves the coordinator
    /// on its own zone.
    func refreshZones() async throws {
        let list: ZoneList
        do {
            list = try await remote.zones()
        } catch let error as SyncError where error.serverCode == .notFound {
            zonesListedAt = .now
            return  // a server from before shared zones
        }
        zonesListedAt = .now
        zonesMayHaveChanged = false
        if let user = list.user { userName = user }
        var listed: [ZoneID: ZoneRole] = [zone: .owner]
        for membership in list.zones {
            let shared = ZoneID(membership).relative(to: list.user ?? "")
            guard shared != zone, isNamedAfterOwnZone(shared) else { continue }
            listed[shared] = membership.role
        }
        let stored = try workspace.joinedZones()
        for gone in stored.keys where listed[gone] == nil {
            // A zone of the user's own made here by sharing stays, listed or not (not pushed yet).
            guard gone.owner != nil else {
                listed[gone] = .owner
                continue
            }
            try workspace.leave(gone)
            workspace.logger.info("Left a shared zone: its objects were taken off this device", metadata: ["zone": "\(gone)"])
        }
        for (shared, role) in listed where shared != zone {
            try workspace.setRole(role, of: shared)
        }
        zoneRoles = listed
        try reloadReadOnlyRecords()
        followLiveRoutes()
    }

    /// Whether a zone is one this coordinator syncs: named as its own zone, or after it (`name.…`).
    private func isNamedAfterOwnZone(_ other: ZoneID) -> Bool {
        other.name == zone.name || other.name.hasPrefix(zone.name + ".")
    }

    /// Reads again which records the user may only read.
    func reloadReadOnlyRecords() throws {
        readOnlyRecords.replace(with: try workspace.readOnlyRecords(in: zoneRoles.filter { !$0.value.canWrite }.keys))
    }
}

/// The records of the zones a user may only read, and the save rule that refuses their local
/// edits: shared between the coordinator, which keeps it current, and the container's save rule,
/// which runs on any context's thread.
final class ReadOnlyRecords: Sendable {
    private let records: Mutex<[UUID: ZoneID]>

    init(_ records: [UUID: ZoneID]) {
        self.records = Mutex(records)
    }

    func replace(with records: [UUID: ZoneID]) {
        self.records.withLock { $0 = records }
    }

    func add(_ ids: some Sequence<UUID>, in zone: ZoneID) {
        records.withLock { records in
            for id in ids { records[id] = zone }
        }
    }

    /// Refuses the objects of `save` that live in a read-only zone: those it updates or deletes,
    /// and those it inserts, or gives a parent, under a parent that lives in one (they would join
    /// its zone). The sync's own saves (which apply the zone's feed) pass.
    func check(_ save: ProposedSave, model: SyncModel) {
        guard save.author != SyncCoordinator.author else { return }
        let records = self.records.withLock { $0 }
        guard !records.isEmpty else { return }
        var refused: Set<UUID> = []
        for object in save.updatedObjects + save.deletedObjects {
            guard let zone = records[object.objectGlobalID] else { continue }
            refuse(object, in: zone, save)
            refused.insert(object.objectGlobalID)
        }
        for object in save.insertedObjects + save.updatedObjects where !refused.contains(object.objectGlobalID) {
            guard let shape = model.shape(forEntity: object.objectID.entityName) else { continue }
            var current = (object: object, shape: shape)
            var seen: Set<UUID> = [object.objectGlobalID]
            while true {
                let parent: (object: any Entity, shape: RecordShape)?
                do {
                    parent = try model.parent(of: current.object, shape: current.shape)
                } catch {
                    save.refuse(object, because: "the zone it would live in cannot be read: \(error)")
                    break
                }
                guard let parent, seen.insert(parent.object.objectGlobalID).inserted else { break }
                if let zone = records[parent.object.objectGlobalID] {
                    refuse(object, in: zone, save)
                    break
                }
                current = parent
            }
        }
    }

    private func refuse(_ object: any Entity, in zone: ZoneID, _ save: ProposedSave) {
        let owner = zone.owner.map { "\($0)'s zone" } ?? "the zone"
        save.refuse(object, because: "it lives in \(owner) \(zone.name.debugDescription), which this user may only read")
    }
}
