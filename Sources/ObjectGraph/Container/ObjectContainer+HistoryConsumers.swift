/// The readers the persistent history is kept for: a purge never passes what a registered
/// consumer has not read.
extension ObjectContainer {
    /// Registers `name` as a consumer of the history, or moves its position: the last transaction
    /// it has read (nil for none). From then on ``purgeHistory(through:)`` refuses to pass it, and
    /// ``purgeHistory(before:)`` stops at it. A position may move back (a reader that reads again).
    ///
    /// ```swift
    /// let transactions = try container.fetchHistory(HistoryRequest(after: lastToken))
    /// process(transactions)
    /// lastToken = transactions.last?.token ?? lastToken
    /// try container.setHistoryPosition(lastToken, ofConsumer: "exporter")
    /// ```
    ///
    /// The sync client (`SyncCoordinator`) registers itself, one consumer per zone.
    ///
    /// - Throws: ``ObjectGraphError/store(_:)``.
    public func setHistoryPosition(_ token: HistoryToken?, ofConsumer name: String) throws {
        try writeConsumers { try $0.setHistoryConsumer(name, sequence: token?.sequence ?? 0) }
    }

    /// Forgets a consumer: the history is no longer kept for it.
    ///
    /// - Throws: ``ObjectGraphError/store(_:)``.
    public func removeHistoryConsumer(named name: String) throws {
        try writeConsumers { try $0.removeHistoryConsumer(name) }
    }

    /// The registered consumers of the history and how far each has read, the one furthest behind
    /// first: how far a purge may go.
    ///
    /// - Throws: ``ObjectGraphError/store(_:)``.
    public func historyConsumers() throws -> [HistoryConsumer] {
        do {
            return try store.reader.historyConsumers().map { stored in
                HistoryConsumer(
                    name: stored.name, position: stored.sequence > 0 ? HistoryToken(sequence: stored.sequence) : nil,
                    date: stored.date)
            }
        } catch let error as StoreError {
            throw ObjectGraphError.store(error)
        }
    }

    private func writeConsumers(_ body: (RowWriter) throws -> Void) throws {
        do {
            try store.write { writer in try body(writer) }
        } catch let error as StoreError {
            throw ObjectGraphError.store(error)
        }
    }
}
