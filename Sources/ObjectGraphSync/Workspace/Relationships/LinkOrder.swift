import Foundation
import ObjectGraph
import ObjectGraphSyncProtocol

/// The order of many-to-many relationships under sync (see ``RecordShape/Membership``).
///
/// As for an ordered one-to-many relationship (see ``FractionalIndex``), the order is not sent as
/// a list but as a key of each member: here the key is the link's, one field for each ordered end
/// (`sourcePosition`, `targetPosition`), so that the same object can have a place of its own in
/// each list it belongs to. A change of an ordered list on this device gives new keys to the links
/// whose place changed, and sends those fields only; links brought by the feed note the lists at
/// their ends, sorted by their links' keys before the save.
extension SyncWorkspace {
    /// A link's key in the list of its end at `side`; nil for none, or for a value that is not a
    /// key (an older or a foreign client's).
    static func linkPosition(_ state: SyncRecordState?, side: RecordShape.LinkSide) throws -> String? {
        guard let state, case .string(let key)? = try fields(state.shadow)[side.positionField], FractionalIndex.isValid(key)
        else { return nil }
        return key
    }

    /// The ordered lists of links a local change touches: the object's own lists as a source of
    /// links, and as a target.
    func orderedLinkListsTouched(
        by change: LocalChange, shape: RecordShape
    ) -> [(owner: any Entity, side: RecordShape.LinkSide, membership: RecordShape.Membership)] {
        guard let object = change.object, !object.isDeleted else { return [] }
        var touched: [(owner: any Entity, side: RecordShape.LinkSide, membership: RecordShape.Membership)] = []
        for membership in shape.memberships
        where membership.isOrdered && (change.kind == .insert || change.changedKeys.contains(membership.property)) {
            touched.append((object, .source, membership))
        }
        for (_, membership) in model.memberships(withMembersOf: shape.entityName)
        where membership.isInverseOrdered && (change.kind == .insert || change.changedKeys.contains(membership.inverse)) {
            touched.append((object, .target, membership))
        }
        return touched
    }

    /// Gives the links of `owner`'s list keys that sort them in its order, changing as few as it
    /// can; the links whose key changes have that field pending.
    func recordLinkOrder(of owner: any Entity, side: RecordShape.LinkSide, _ membership: RecordShape.Membership) throws {
        let members = try storeCall { try owner.relatedObjects(forKey: membership.relationship(of: side)) }
        guard !members.isEmpty else { return }
        let ids = members.map { LinkID.make(recordType: membership.recordType, owner: owner, member: $0, side: side) }
        let states = try recordStates(for: ids)
        let keys = try ids.map { try Self.linkPosition(states[$0], side: side) }
        for (index, key) in FractionalIndex.reassign(keys) {
            // A link with no state is one the sync does not keep (its other end does not sync).
            guard let state = states[ids[index]], !state.isDeletedLocally else { continue }
            var fields = try Self.fields(state.shadow)
            fields[side.positionField] = .string(key)
            state.shadow = try Self.data(fields)
            state.pendingProperties = Self.joined(Self.split(state.pendingProperties).union([side.positionField]))
            state.localRevision += 1
            state.isPending = true
            changedObjects.append(state)
        }
    }

    /// Notes the ordered lists at the ends of a link the feed brought, to sort before the save.
    func noteLinkListsToSort(owner: any Entity, target: any Entity, _ membership: RecordShape.Membership) {
        if membership.isOrdered { unsaved.listsToSort.insert(ListToSort(owner: owner.objectID, side: .source, of: membership)) }
        if membership.isInverseOrdered { unsaved.listsToSort.insert(ListToSort(owner: target.objectID, side: .target, of: membership)) }
    }
}
