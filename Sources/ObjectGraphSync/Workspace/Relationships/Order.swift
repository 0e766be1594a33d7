import Foundation
import ObjectGraph
import ObjectGraphSyncProtocol

/// Ordered to-many relationships under sync (see ``RecordShape/OrderedList``).
///
/// The order is not sent as a list, which two devices would overwrite in turn, but as a position
/// of each member: a ``FractionalIndex`` key in a field of its record. When the app changes an
/// owner's list, the members whose place changed (an inserted one, a moved one) get keys between
/// their neighbours' and are sent; the others keep theirs. When the feed brings positions, each
/// owner's list is sorted by its members' keys (ties, from two devices that chose the same key,
/// by record ID; members without a key, from an older client, last). Two devices that insert at
/// different places, or move one member while another inserts, both keep their edits; two
/// devices that move the same member settle it as a conflict of its position field, the server's
/// value winning.
extension SyncWorkspace {
    /// A member's positions, by position field.
    static func positions(_ data: Data?) throws -> [String: String] {
        guard let data else { return [:] }
        do {
            return try JSONDecoder().decode([String: String].self, from: data)
        } catch {
            throw SyncError.store(
                .invalidBatchOperation(
                    entity: SyncRecordState.entityName, property: "positions", reason: "a member's saved positions do not decode: \(error)")
            )
        }
    }

    static func data(positions: [String: String]) throws -> Data? {
        guard !positions.isEmpty else { return nil }
        do {
            return try JSONEncoder().encode(positions)
        } catch {
            throw SyncError.store(
                .invalidBatchOperation(
                    entity: SyncRecordState.entityName, property: "positions", reason: "a member's positions do not encode: \(error)"))
        }
    }

    // MARK: Local changes

    /// The ordered lists a local change touches: an owner's list changed (or made), or a member
    /// that joined one.
    func orderedListsTouched(by change: LocalChange, shape: RecordShape) throws -> [(owner: any Entity, list: RecordShape.OrderedList)] {
        guard let object = change.object, !object.isDeleted else { return [] }
        var touched: [(owner: any Entity, list: RecordShape.OrderedList)] = []
        for list in model.orderedLists(ofOwner: shape.entityName)
        where change.kind == .insert || change.changedKeys.contains(list.relationship) {
            touched.append((object, list))
        }
        for list in shape.positions where change.kind == .insert || change.changedKeys.contains(list.reference) {
            if let owner = try storeCall({ try object.relatedObjects(forKey: list.reference) }).first { touched.append((owner, list)) }
        }
        return touched
    }

    /// Gives the members of `owner`'s list keys that sort them in its order, changing as few as it
    /// can; the members whose key changes have their position pending.
    func recordOrder(of owner: any Entity, _ list: RecordShape.OrderedList) throws {
        let members = try storeCall { try owner.relatedObjects(forKey: list.relationship) }
        guard !members.isEmpty else { return }
        var states = try recordStates(for: members.map(\.objectGlobalID))
        let keys = try members.map { try Self.positions(states[$0.objectGlobalID]?.positions)[list.positionField] }
        for (index, key) in FractionalIndex.reassign(keys) {
            let id = members[index].objectGlobalID
            let state =
                try states[id]
                ?? newState(
                    id, entity: list.memberEntity, zone: try zoneKey(of: members[index], shape: model.shape(forEntity: list.memberEntity)),
                    into: &states)
            var positions = try Self.positions(state.positions)
            positions[list.positionField] = key
            state.positions = try Self.data(positions: positions)
            state.pendingProperties = Self.joined(Self.split(state.pendingProperties).union([list.positionProperty]))
            state.localRevision += 1
            state.isPending = true
            changedObjects.append(state)
        }
    }

    /// The position fields of a member's pending properties (all of them for a record the server
    /// never had), to send with its other fields.
    static func positionFields(of state: SyncRecordState, shape: RecordShape, properties: Set<String>) throws -> [String: JSONValue] {
        guard !shape.positions.isEmpty else { return [:] }
        let positions = try Self.positions(state.positions)
        var fields: [String: JSONValue] = [:]
        for list in shape.positions where properties.contains(list.positionProperty) {
            fields[list.positionField] = positions[list.positionField].map(JSONValue.string) ?? .null
        }
        return fields
    }

    // MARK: The server's positions

    /// Takes the positions a record of the feed (or a conflict's answer) brings, but those pending
    /// here, and notes the owner's list to sort before the save.
    func applyPositions(
        _ fields: [String: JSONValue], of object: any Entity, shape: RecordShape, state: SyncRecordState, skipping pending: Set<String>
    ) throws {
        guard !shape.positions.isEmpty else { return }
        var positions = try Self.positions(state.positions)
        for list in shape.positions where !pending.contains(list.positionProperty) {
            guard let value = fields[list.positionField] else { continue }
            // A position that is not a key (an older or a foreign client's) counts as none.
            if case .string(let key) = value, FractionalIndex.isValid(key) {
                positions[list.positionField] = key
            } else {
                positions[list.positionField] = nil
            }
            if let owner = try storeCall({ try object.relatedObjects(forKey: list.reference) }).first {
                unsaved.listsToSort.insert(ListToSort(owner: owner.objectID, list))
            }
        }
        state.positions = try Self.data(positions: positions)
    }

    /// Notes the lists of an owner the feed brought or changed, to sort before the save: members
    /// that waited for it have joined.
    func noteListsToSort(of owner: any Entity, shape: RecordShape) {
        for list in model.orderedLists(ofOwner: shape.entityName) {
            unsaved.listsToSort.insert(ListToSort(owner: owner.objectID, list))
        }
    }

    /// Sorts each list noted by its members' keys, as the server's: part of what the sync context
    /// saves as mirroring the server.
    func sortNotedLists() throws {
        guard !unsaved.listsToSort.isEmpty else { return }
        let noted = unsaved.listsToSort
        unsaved.listsToSort = []
        for entry in noted {
            guard let owner = context.object(with: entry.owner), !owner.isDeleted else { continue }
            let members = try storeCall { try owner.relatedObjects(forKey: entry.relationship) }
            let keys: [String?]
            switch entry.keys {
            case .memberPositions(let field):
                let states = try recordStates(for: members.map(\.objectGlobalID))
                keys = try members.map { try Self.positions(states[$0.objectGlobalID]?.positions)[field] }
            case .links(let recordType, let side):
                let ids = members.map { LinkID.make(recordType: recordType, owner: owner, member: $0, side: side) }
                let states = try recordStates(for: ids)
                keys = try ids.map { try Self.linkPosition(states[$0], side: side) }
            }
            let keyed = Array(zip(members, keys))
            let sorted = keyed.sorted { first, second in
                switch (first.1, second.1) {
                case let (a?, b?) where a != b: a < b
                case (.some, nil): true
                case (nil, .some): false
                default: first.0.objectGlobalID.uuidString < second.0.objectGlobalID.uuidString
                }
            }.map(\.0)
            guard sorted.map(\.objectID) != members.map(\.objectID) else { continue }
            try storeCall { try owner.setRelatedObjects(sorted, forKey: entry.relationship) }
            unsaved.mirrored.written[owner.objectGlobalID, default: []].insert(entry.relationship)
        }
    }
}

/// An owner's ordered list to sort by its members' keys before the sync context saves.
struct ListToSort: Hashable {
    let owner: ObjectID
    let relationship: String
    let keys: Keys

    /// Where the members' keys are.
    enum Keys: Hashable {
        /// In each member's positions, under the field (an ordered one-to-many relationship).
        case memberPositions(field: String)
        /// In the link between the owner, at `side`, and each member (an ordered many-to-many one).
        case links(recordType: String, side: RecordShape.LinkSide)
    }

    /// An ordered one-to-many list of `owner`.
    init(owner: ObjectID, _ list: RecordShape.OrderedList) {
        self.owner = owner
        self.relationship = list.relationship
        self.keys = .memberPositions(field: list.positionField)
    }

    /// The list of `owner`, at `side` of a membership's links.
    init(owner: ObjectID, side: RecordShape.LinkSide, of membership: RecordShape.Membership) {
        self.owner = owner
        self.relationship = membership.relationship(of: side)
        self.keys = .links(recordType: membership.recordType, side: side)
    }
}
