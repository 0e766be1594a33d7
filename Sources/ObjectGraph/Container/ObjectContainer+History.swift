public import Foundation

/// The persistent history: every save and batch operation committed to the store, by any process.
extension ObjectContainer {
    /// The transactions a request selects, oldest first.
    ///
    /// ```swift
    /// let transactions = try container.fetchHistory(HistoryRequest(after: lastToken))
    /// lastToken = transactions.last?.token ?? lastToken
    /// ```
    ///
    /// - Parameter request: Which transactions: after a token, by author, entity and date.
    /// - Returns: The transactions, each with its changes (only those of the request's entities, if
    ///   it names some).
    /// - Throws: ``ObjectGraphError/Code/historyExpired`` when transactions after the request's
    ///   token were purged (what they held cannot be read: read the current state instead, as the
    ///   sync client does); ``ObjectGraphError/store(_:)``.
    public func fetchHistory(_ request: HistoryRequest = HistoryRequest()) throws -> [HistoryTransaction] {
        var filter = StoredHistoryFilter(after: request.token?.sequence ?? 0)
        filter.authors = request.authors
        filter.excludedAuthors = request.excludedAuthors
        filter.entities = request.entityNames
        filter.startDate = request.startDate
        filter.endDate = request.endDate
        filter.limit = request.fetchLimit
        // A reader that read up to a token must not miss what was purged after it.
        filter.requiresContinuity = request.token != nil
        let stored: [StoredTransaction]
        do {
            stored = try store.reader.transactions(filter)
        } catch let error as StoreError {
            throw ObjectGraphError.store(error)
        }
        var cache = HistoryReadCache()
        // Loops over indices, with each array made at its size: mapping copied every transaction
        // (a retain of each of its strings) and grew each array of changes.
        var transactions: [HistoryTransaction] = []
        transactions.reserveCapacity(stored.count)
        for index in stored.indices {
            var changes: [HistoryChange] = []
            changes.reserveCapacity(stored[index].changes.count)
            for change in stored[index].changes {
                if let change = try historyChange(change, sequence: stored[index].sequence, cache: &cache) { changes.append(change) }
            }
            transactions.append(
                HistoryTransaction(
                    token: HistoryToken(sequence: stored[index].sequence), author: stored[index].author, date: stored[index].date,
                    changes: changes))
        }
        return transactions
    }

    /// The token of the last transaction committed to the store; nil while there is none.
    ///
    /// - Throws: ``ObjectGraphError/store(_:)``.
    public func lastHistoryToken() throws -> HistoryToken? {
        do {
            let sequence = try store.reader.lastSequence()
            return sequence > 0 ? HistoryToken(sequence: sequence) : nil
        } catch let error as StoreError {
            throw ObjectGraphError.store(error)
        }
    }

    /// Deletes the transactions committed before a date, but none that a registered consumer has
    /// not read (see ``setHistoryPosition(_:ofConsumer:)``): the purge stops at the one furthest
    /// behind. A reader that did not register and read after a purged transaction gets
    /// ``ObjectGraphError/Code/historyExpired`` from ``fetchHistory(_:)``, never a silent gap.
    ///
    /// - Returns: The number of transactions deleted.
    /// - Throws: ``ObjectGraphError/store(_:)``.
    @discardableResult
    public func purgeHistory(before date: Date) throws -> Int {
        try purge { try $0.purgeHistory(through: nil, before: date) }
    }

    /// Deletes the transactions up to and including the one of `token`.
    ///
    /// - Returns: The number of transactions deleted.
    /// - Throws: ``ObjectGraphError/Code/historyInUse`` when a registered consumer has not read that
    ///   far (``ObjectGraphError/historyConsumer`` names it; see ``historyConsumers()``), nothing
    ///   purged then; ``ObjectGraphError/store(_:)``.
    @discardableResult
    public func purgeHistory(through token: HistoryToken) throws -> Int {
        try purge { try $0.purgeHistory(through: token.sequence, before: nil) }
    }

    private func purge(_ body: (RowWriter) throws -> Int) throws -> Int {
        // (A consumer's refusal is an ObjectGraphError, thrown as it is.)
        do {
            return try store.write { try body($0) }
        } catch let error as StoreError {
            throw ObjectGraphError.store(error)
        }
    }

    /// Merges now, into every live context, what other processes (or other containers on the same
    /// file) committed since the last look, instead of waiting for the next look
    /// (``StoreConfiguration/historyPollingInterval``).
    ///
    /// - Throws: ``ObjectGraphError/store(_:)`` if the history cannot be read; the same transactions
    ///   are read again at the next look.
    public func mergeChangesFromOtherProcesses() throws {
        do {
            try coordinator.mergeOtherWriters()
        } catch let error as StoreError {
            throw ObjectGraphError.store(error)
        }
    }

    private func historyChange(
        _ change: StoredTransaction.Change, sequence: Int64, cache: inout HistoryReadCache
    ) throws -> HistoryChange? {
        // An entity the model no longer has (another version of the app wrote it) is left out.
        guard let mapping = cache.mapping(named: change.entity, in: store) else { return nil }
        guard let globalID = change.globalID else {
            throw Self.corruptHistory("change of \(change.entity) \(change.key) in transaction \(sequence) has no global ID")
        }
        let objectID = ObjectID(entity: mapping.declaration, key: change.key, store: store.identity)
        var tombstone: Tombstone?
        if change.kind == .delete {
            do {
                tombstone = try Tombstone(json: change.tombstone, mapping: mapping, objectID: objectID)
            } catch {
                throw Self.corruptHistory("tombstone of \(change.entity) \(change.key) in transaction \(sequence): \(error)")
            }
        }
        let kind: HistoryChange.Kind =
            switch change.kind {
            case .insert: .insert
            case .update: .update
            case .delete: .delete
            }
        return HistoryChange(
            kind: kind, objectID: objectID,
            globalID: globalID, changedKeys: cache.keys(change.changedKeys),
            tombstone: tombstone)
    }

    /// A history row this version of ObjectGraph did not write: the store is damaged.
    private static func corruptHistory(_ message: String) -> ObjectGraphError {
        .store(StoreError(resultCode: .corrupt, message: "history: " + message))
    }
}

/// The sets of changed keys of a history read, one per text: the updates of a save mostly change
/// the same properties, and splitting the text into a set for each would cost more than the rest
/// of the change. It keeps the last entity's mapping too: a history's changes come entity by entity.
private struct HistoryReadCache {
    private var sets: [String: Set<String>] = [:]
    private var last: (text: String, keys: Set<String>)?
    private var lastMapping: (name: String, mapping: EntityMapping?)?

    mutating func keys(_ text: String?) -> Set<String> {
        guard let text else { return [] }
        if let last, last.text == text { return last.keys }
        let keys = sets[text] ?? Set(text.split(separator: ",").map(String.init))
        sets[text] = keys
        last = (text, keys)
        return keys
    }

    mutating func mapping(named name: String, in store: SQLiteStore) -> EntityMapping? {
        if let lastMapping, lastMapping.name == name { return lastMapping.mapping }
        let mapping = store.mapping(named: name)
        lastMapping = (name, mapping)
        return mapping
    }
}

extension Tombstone {
    /// The preserved values, from the JSON object the store wrote (blobs as hexadecimal text), each
    /// as SQLite stored it: a number keeps its kind (an integer column holding 2.5 gives 2.5, which
    /// the typed read then refuses, instead of 2), and a value of an unexpected kind stays as it is.
    ///
    /// - Throws: When the text is not a JSON object of such values, or a blob is not hexadecimal.
    init(json: String?, mapping: EntityMapping, objectID: ObjectID) throws {
        guard let json else {
            // The entity preserves nothing, or every preserved value was nil.
            self.init(
                objectID: objectID,
                values: Dictionary(
                    uniqueKeysWithValues: mapping.preservedAttributes.map {
                        (mapping.description.attributes[$0].name, StoredValue.null)
                    }))
            return
        }
        let object = try JSONDecoder().decode([String: PreservedValue].self, from: Data(json.utf8))
        var values: [String: StoredValue] = [:]
        for attribute in mapping.description.attributes {
            guard let value = object[attribute.name] else { continue }
            values[attribute.name] = try value.storedValue(as: StorageClass(attribute.type), attribute: attribute.name)
        }
        self.init(objectID: objectID, values: values)
    }
}

/// A value of a tombstone's JSON object, of the JSON kind SQLite's `json_object` gave it.
private enum PreservedValue: Decodable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let integer = try? container.decode(Int64.self) {  // a number with a fraction is tried next
            self = .integer(integer)
        } else if let real = try? container.decode(Double.self) {  // a string is tried next
            self = .real(real)
        } else {
            self = .text(try container.decode(String.self))
        }
    }

    func storedValue(as storage: StorageClass, attribute: String) throws -> StoredValue {
        switch self {
        case .null: return .null
        case .integer(let integer): return .integer(integer)
        case .real(let real): return .real(real)
        case .text(let text) where storage == .blob:
            guard let data = Data(hexadecimal: text) else {
                throw StoredValueMismatch(stored: .text(text), typeName: "hexadecimal text of \(attribute)'s bytes")
            }
            return .blob(data)
        case .text(let text): return .text(text)
        }
    }
}

extension Data {
    /// Bytes from hexadecimal text, as SQLite's `hex()` writes them.
    init?(hexadecimal text: String) {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        self.init(bytes)
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
