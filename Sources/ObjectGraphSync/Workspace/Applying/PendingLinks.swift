import Foundation
import ObjectGraph

/// Links waiting for an end that is not on the device yet (``PendingLink``): a reference from a
/// child that arrived before its parent, a membership whose member has not arrived.
///
/// Every lookup and change of pending links goes through ``PendingLinkIndex``, which reads the
/// links of the records it is asked about set-wise (a page of the feed loads those of all its
/// records at once) and follows what the coordinator inserts and deletes until the next save.
struct PendingLinkIndex {
    private var bySource: [UUID: [PendingLink]] = [:]
    private var byTarget: [UUID: [PendingLink]] = [:]
    /// The records whose links, as source and as target, are all here.
    private var loaded: Set<UUID> = []
    private var heldLinks: Set<ObjectIdentifier> = []
    /// Whether every pending link is here: the store had none when the index was made.
    var isComplete = false

    /// The IDs among `ids` whose links are not here yet.
    func unloaded(_ ids: some Sequence<UUID>) -> [UUID] {
        guard !isComplete else { return [] }
        var seen = Set<UUID>()
        return ids.filter { !loaded.contains($0) && seen.insert($0).inserted }
    }

    /// Takes the links read for `ids` (all those with one of them as source or target).
    mutating func add(_ links: [PendingLink], loadedFor ids: [UUID]) {
        for link in links { add(link) }
        loaded.formUnion(ids)
    }

    mutating func add(_ link: PendingLink) {
        guard heldLinks.insert(ObjectIdentifier(link)).inserted else { return }
        bySource[link.sourceID, default: []].append(link)
        byTarget[link.targetID, default: []].append(link)
    }

    mutating func remove(_ link: PendingLink) {
        guard heldLinks.remove(ObjectIdentifier(link)) != nil else { return }
        bySource[link.sourceID]?.removeAll { $0 === link }
        byTarget[link.targetID]?.removeAll { $0 === link }
    }

    /// How many links the index holds.
    var held: Int { heldLinks.count }

    func links(from sourceID: UUID) -> [PendingLink] { bySource[sourceID] ?? [] }
    func links(to targetID: UUID) -> [PendingLink] { byTarget[targetID] ?? [] }
}

extension SyncWorkspace {
    /// Reads set-wise the pending links of the records `ids` that are not in the index yet.
    func loadPendingLinks(of ids: some Sequence<UUID>) throws {
        var unloaded = unsaved.pendingLinks.unloaded(ids)
        guard !unloaded.isEmpty else { return }
        if unsaved.pendingLinks.held == 0 {
            // Most often there is no link waiting at all: one look spares a query per page.
            do {
                if try context.fetchCount(FetchDescriptor<PendingLink>(fetchLimit: 1)) == 0 {
                    unsaved.pendingLinks.isComplete = true
                    unloaded = []
                }
            } catch let error as ObjectGraphError {
                throw SyncError.store(error)
            }
        }
        for start in stride(from: 0, to: unloaded.count, by: 500) {
            let chunk = Array(unloaded[start..<min(start + 500, unloaded.count)])
            let links: [PendingLink]
            do {
                links = Array(
                    try context.fetch(
                        FetchDescriptor(
                            predicate: #Predicate<PendingLink> {
                                chunk.contains($0.sourceID) || chunk.contains($0.targetID)
                            })))
            } catch let error as ObjectGraphError {
                throw SyncError.store(error)
            }
            unsaved.pendingLinks.add(links, loadedFor: chunk)
        }
    }

    /// Keeps a link from `sourceID`'s `property` to `targetID` until the target arrives.
    func addPendingLink(from sourceID: UUID, entity: String, property: String, to targetID: UUID) {
        let link = PendingLink(sourceID: sourceID, sourceEntity: entity, property: property, targetID: targetID)
        context.insert(link)
        unsaved.pendingLinks.add(link)
    }

    private func removePendingLink(_ link: PendingLink) {
        unsaved.pendingLinks.remove(link)
        context.delete(link)
    }

    /// Settles the links that were waiting for `id`, now here as `object`: references to it, and
    /// memberships it is an end of (kept waiting while the other end is still missing).
    func resolvePendingLinks(to id: UUID, object: any Entity) throws {
        try loadPendingLinks(of: [id])
        for link in unsaved.pendingLinks.links(to: id) + unsaved.pendingLinks.links(from: id) {
            guard let shape = model.shape(forEntity: link.sourceEntity) else {
                removePendingLink(link)
                continue
            }
            if let membership = shape.membership(forProperty: link.property) {
                if try setMembership(membership, of: link.sourceID, shape, to: link.targetID, isMember: true) { removePendingLink(link) }
            } else if link.targetID == id {
                if let field = shape.field(forProperty: link.property), let source = try self.object(withGlobalID: link.sourceID, of: shape)
                {
                    unsaved.mirrored.written[link.sourceID, default: []].insert(field.property)
                    try shape.link(source, field, to: object)
                }
                removePendingLink(link)
            }
        }
    }

    /// Drops the links from `sourceID`'s `property` (to `targetID` only, when given).
    func dropPendingLinks(from sourceID: UUID, property: String, to targetID: UUID? = nil) throws {
        try loadPendingLinks(of: [sourceID])
        for link in unsaved.pendingLinks.links(from: sourceID)
        where link.property == property && (targetID == nil || link.targetID == targetID) {
            removePendingLink(link)
        }
    }

    /// Drops every link from `sourceID`, a record deleted.
    func dropPendingLinks(from sourceID: UUID) throws {
        try loadPendingLinks(of: [sourceID])
        for link in unsaved.pendingLinks.links(from: sourceID) { removePendingLink(link) }
    }
}
