import Foundation

/// One round of a cycle as the workspace began it: the local changes recorded, and what they
/// leave for the processors and the status.
struct SyncRound {
    /// How many records wait for the server, once the local changes are recorded.
    let pending: Int
    /// When the store last synced completely, as it records.
    let lastSuccessfulSync: Date?
    /// Whether each processor is given every object its predicate selects (at start, to resume
    /// what a crash interrupted, and after a failure), not only those changed since the last round.
    let scansFully: Bool
}
