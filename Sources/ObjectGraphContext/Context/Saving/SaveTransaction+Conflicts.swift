import ObjectGraphModel
import ObjectGraphStore

/// Resolving save conflicts with the context's ``MergePolicy``, inside the save's transaction.
extension SaveTransaction {
    /// What a conflict resolved to: applied to the object once the transaction commits.
    struct ConflictResolution {
        let state: ObjectState
        /// The store's values the object takes, by position (the others stay as they are here).
        var storeValues: [(position: Int, value: StoredValue)] = []
        /// The row's version after the save.
        var version: Int64 = 0
        /// Whether another context deleted the row.
        var isDeletedInStore = false

        /// The names of the properties that took the store's value.
        var keysFromStore: Set<String> {
            let names = state.entity.propertyNames
            let valueProperties = state.entity.layout.valueProperties
            return Set(storeValues.map { names[valueProperties[$0.position]] })
        }

        /// Takes out of a save's changed keys what the store kept: it is not the save's change.
        func removeUnwrittenKeys(from changedKeys: inout [ObjectID: Set<String>]) {
            guard let keys = changedKeys[state.id] else { return }
            let written = isDeletedInStore ? [] : keys.subtracting(keysFromStore)
            changedKeys[state.id] = written.isEmpty ? nil : written
        }
    }

    /// Reads the conflicting row and writes what the merge policy keeps of the object's changes.
    func resolve(_ state: ObjectState, _ writer: RowWriter) throws -> ConflictResolution {
        var resolution = ConflictResolution(state: state)
        guard let mapping = state.mapping,
            let (stored, version) = try writer.row(key: state.id.key, mapping: mapping, { ($0.values, $0.version) })
        else {
            resolution.isDeletedInStore = true
            return resolution
        }
        let current = state.values
        let read = state.committedValues ?? current
        var written: [Int] = []
        for position in current.indices {
            let changedHere = current[position] != read[position]
            let writesOwnValue =
                switch mergePolicy {
                case .objectTrumps: changedHere
                case .storeTrumps: changedHere && stored[position] == read[position]
                case .overwrite: true
                case .rollback, .error: false
                }
            if writesOwnValue {
                if current[position] != stored[position] { written.append(position) }
            } else if current[position] != stored[position] {
                resolution.storeValues.append((position, stored[position]))
            }
        }
        resolution.version = version
        // Join-table changes are written on top of the store's links (see `writeToMany`), except
        // when the policy discards this object's changes.
        let bumpsVersion = state.changesManyToMany && mergePolicy != .rollback
        if !written.isEmpty || bumpsVersion {
            _ = try writer.update(
                state, id: state.id, positions: written, ifVersion: nil, bumpingVersion: bumpsVersion,
                mapping: mapping)
            resolution.version += 1
        }
        return resolution
    }
}
