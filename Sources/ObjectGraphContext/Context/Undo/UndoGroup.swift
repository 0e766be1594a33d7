import ObjectGraphModel
import OrderedCollections

/// What one undo group restores: for each object it changed, the values, members and existence the
/// object had before the group (or, for a group made by an undo, before the undo).
///
/// Related objects are kept as objects, not IDs: an object inserted in the group has a temporary
/// ID that a save replaces, and a record must still find it afterwards. The group retains the
/// objects it names, as Foundation's undo manager retains its targets.
final class UndoGroup {
    var actionName = ""
    /// By object, in the order they were first changed.
    var records: OrderedDictionary<StateKey, UndoRecord> = [:]

    init(actionName: String = "") {
        self.actionName = actionName
    }

    var isEmpty: Bool { records.isEmpty }

    /// The record of an object, made at its first change in the group.
    func withRecord(of object: any Entity, _ body: (inout UndoRecord) -> Void) {
        body(&records[StateKey(object._$state), default: UndoRecord(object: object)])
    }
}

/// What restoring one object of an ``UndoGroup`` gives it back.
struct UndoRecord {
    /// A value of the object's row: an attribute's, or the object a to-one relationship points to.
    enum Value {
        case stored(StoredValue)
        case related((any Entity)?)
    }

    let object: any Entity
    /// By position in the row layout (attributes, then to-one relationships): the value to restore.
    var values: [Int: Value] = [:]
    /// By to-many slot: the members to add back, and those to take out, by state.
    var membersToAdd: [Int: OrderedDictionary<StateKey, any Entity>] = [:]
    var membersToRemove: [Int: OrderedDictionary<StateKey, any Entity>] = [:]
    /// By ordered to-many slot: the members in the order to restore, when it was known.
    var orders: [Int: [any Entity]] = [:]
    /// Whether the object is to be live (in the context, not deleted); nil when the group did not
    /// insert or delete it.
    var isLive: Bool?

    /// Notes that the group made `member` a member of to-many `slot`: restoring takes it out.
    mutating func noteAdded(_ member: any Entity, slot: Int) {
        let key = StateKey(member._$state)
        if membersToAdd[slot]?.removeValue(forKey: key) == nil {
            membersToRemove[slot, default: [:]][key] = member
        }
    }

    /// Notes that the group took `member` out of to-many `slot`: restoring adds it back.
    mutating func noteRemoved(_ member: any Entity, slot: Int) {
        let key = StateKey(member._$state)
        if membersToRemove[slot]?.removeValue(forKey: key) == nil {
            membersToAdd[slot, default: [:]][key] = member
        }
    }
}
