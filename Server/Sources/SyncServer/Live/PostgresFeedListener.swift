import Logging
import PostgresNIO
import ServiceLifecycle

/// Listens on PostgreSQL's `objectgraph_feed` channel and hands each push, whichever instance
/// made it, to this instance's live requests.
///
/// A notification can be lost while the listening connection is re-established; live requests
/// also look at their zone's head on every tick, so a lost notification costs a delay, not a
/// missed change.
struct PostgresFeedListener: Service {
    let storage: PostgresSyncStorage
    let notifier: FeedNotifier
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    // Shutdown ends the wait at once, even if PostgresNIO does not end the listen.
                    try await withPromptCancellation { [storage] in
                        try await storage.runningClient().withConnection { connection in
                            try await connection.listen(on: PostgresSyncStorage.channel) { notifications in
                                for try await notification in notifications {
                                    publish(notification.payload)
                                }
                            }
                        }
                    }
                } catch {
                    if Task.isCancelled { return }
                    logger.warning("Listening for feed notifications failed; retrying", metadata: ["error": "\(error)"])
                    try? await Task.sleep(for: .seconds(1))  // cancellation ends the loop
                }
            }
        }
    }

    /// The payload is "ownerID:position:zone name" (the name last: it may hold colons).
    private func publish(_ payload: String) {
        let parts = payload.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let owner = Int64(parts[0]), let position = Int64(parts[1]) else {
            logger.error("\(StorageFailure.malformedNotification(payload))")
            return
        }
        notifier.publish(ZoneKey(ownerID: owner, name: String(parts[2])), position: position)
    }

    static func payload(_ zone: ZoneKey, position: Int64) -> String {
        "\(zone.ownerID):\(position):\(zone.name)"
    }
}
