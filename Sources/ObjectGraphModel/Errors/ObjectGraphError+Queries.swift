extension ObjectGraphError {
    /// The error of a query over `entity` that the store refused: the failure of its predicate, when
    /// an SQL function of it failed (see ``PredicateFailure``), or the store's own error.
    package static func query(_ error: StoreError, entity: String) -> ObjectGraphError {
        guard let reason = error.predicateFailureReason else { return .store(error) }
        return .predicateEvaluationFailed(entity: entity, reason: reason)
    }
}

extension StoreError {
    /// The reason of a predicate's failure that an SQL function reported through SQLite; nil for
    /// any other error.
    package var predicateFailureReason: String? {
        guard extendedResultCode.rawValue == PredicateFailure.sqliteResultCode,
            message.hasPrefix(PredicateFailure.sqlMessagePrefix)
        else { return nil }
        return String(message.dropFirst(PredicateFailure.sqlMessagePrefix.count))
    }
}
