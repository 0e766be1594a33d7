import ObjectGraphModel
import ObjectGraphStore

/// Hiding objects marked for deletion (``DelayedDeletable``) from relationship reads and from the
/// unsaved objects a fetch merges in.
///
/// An object is marked as this context sees it: by its own value when its mark was set or cleared
/// here and not saved yet, otherwise by the store's list of marked rows of its entity, read once
/// (through the mark's index) and kept until the context's view of the store changes (a merge, a
/// save, a rollback). Reading a relationship therefore costs no query per member and loads no
/// member; when nothing of the entity is marked, it costs nothing beyond the read of that list.
extension ObjectContext {
    /// What this context knows of the marks of one entity's objects.
    struct Marks {
        let stored: MarkedKeySet
        let unsaved: Set<Int64>
        let slot: Int
    }

    func isMarked(_ id: ObjectID, _ marks: Marks) -> Bool {
        if !marks.unsaved.isEmpty, marks.unsaved.contains(id.key), let state = registry.state(for: id), !state.isFault {
            return !state.value(atPosition: marks.slot).isNull
        }
        return marks.stored.contains(id.key)
    }

    /// The marks of `destination`: `.noneHidden` when none of its objects can be marked or none
    /// is, `.unreadable` when the store's marks cannot be read, the failure then recorded for
    /// `owner`'s `property` (the next save throws it), and relationship reads hide nothing.
    func markedMembers(
        of destination: EntityDeclaration, owner: ObjectState,
        property: @autoclosure () -> String
    ) -> MarkedMembers {
        guard let mapping = store.mapping(for: destination), let slot = mapping.markedForDeletionSlot else { return .noneHidden }
        let stored: MarkedKeySet
        do {
            stored = try markedKeys(of: mapping)
        } catch {
            _ = recordReadFailure(error, of: owner, property: property())
            return .unreadable
        }
        let unsaved = changes.unsavedMarks.isEmpty ? [] : changes.unsavedMarks[mapping.index] ?? []
        if stored.isEmpty && unsaved.isEmpty { return .noneHidden }
        return .hidden(Marks(stored: stored, unsaved: unsaved, slot: slot))
    }

    /// The members of a relationship that are not marked for deletion.
    func unmarked(
        _ ids: [ObjectID], destination: EntityDeclaration, owner: ObjectState,
        property: @autoclosure () -> String
    ) -> [ObjectID] {
        guard !ids.isEmpty, case .hidden(let marks) = markedMembers(of: destination, owner: owner, property: property()) else {
            return ids
        }
        // Most relationships hide nothing: they are returned as they are, without a copy. Without
        // unsaved marks a member is tested against the stored ones alone, in a loop of a few
        // instructions per member (reading a relationship runs it over every member).
        var firstMarked = ids.endIndex
        if marks.unsaved.isEmpty {
            for index in ids.indices where marks.stored.contains(ids[index].key) {
                firstMarked = index
                break
            }
        } else {
            firstMarked = ids.firstIndex { isMarked($0, marks) } ?? ids.endIndex
        }
        guard firstMarked < ids.endIndex else { return ids }
        var shown: [ObjectID] = []
        shown.reserveCapacity(ids.count - 1)
        shown.append(contentsOf: ids[..<firstMarked])
        for id in ids[(firstMarked + 1)...] where !isMarked(id, marks) { shown.append(id) }
        return shown
    }

    /// Whether a to-one relationship's object is hidden because it is marked for deletion.
    func isHiddenAsMarked(_ id: ObjectID, owner: ObjectState, property: @autoclosure () -> String) -> Bool {
        guard case .hidden(let marks) = markedMembers(of: id.entity, owner: owner, property: property()) else { return false }
        return isMarked(id, marks)
    }

    /// Notes that an object's mark was set or cleared and not saved yet: reads go by its value.
    func noteUnsavedMark(of state: ObjectState, mapping: EntityMapping) {
        changes.unsavedMarks[mapping.index, default: []].insert(state.id.key)
        deletionPass?.forgetAllCachedMembers()
    }

    /// Forgets the store's marks read so far, when this context's view of the store changes (a
    /// merge, a save, a rollback), and what was counted with them.
    func forgetStoredMarks() {
        storedMarks.forget()
        deletionPass?.forgetStoredMembers()
        deletionPass?.forgetAllCachedMembers()
    }

    /// The keys of an entity's rows marked in the store, read once per view of the store.
    private func markedKeys(of mapping: EntityMapping) throws -> MarkedKeySet {
        if let cached = storedMarks[mapping.index] { return cached }
        let keys = MarkedKeySet(try store.reader.markedKeys(of: mapping))
        storedMarks.keep(keys, at: mapping.index, of: store.mappings.count)
        return keys
    }
}

/// The keys of rows marked for deletion in the store, by mapping index, read when a relationship
/// read needs them and forgotten when the context's view of the store changes. An array, not a
/// dictionary: every to-one read of a ``DelayedDeletable`` looks it up.
struct StoredMarks {
    private var byMapping: [MarkedKeySet?] = []

    /// The marked keys of a mapping's rows, if read since the view of the store last changed.
    subscript(index: Int) -> MarkedKeySet? {
        index < byMapping.count ? byMapping[index] : nil
    }

    /// Keeps the marked keys of mapping `index`, of `count` mappings.
    mutating func keep(_ keys: MarkedKeySet, at index: Int, of count: Int) {
        if byMapping.count < count { byMapping.append(contentsOf: repeatElement(nil, count: count - byMapping.count)) }
        byMapping[index] = keys
    }

    mutating func forget() { byMapping = [] }
}

/// Which members of a relationship are hidden as marked for deletion.
enum MarkedMembers {
    /// None: the destination cannot be marked, or none of its objects is.
    case noneHidden
    /// Those marked as these marks say (see ``ObjectContext/isMarked(_:_:)``).
    case hidden(ObjectContext.Marks)
    /// Unknown: the store's marks could not be read (the failure is recorded).
    case unreadable
}
