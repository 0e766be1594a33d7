import Foundation
import Synchronization

/// A user's zone, as notifications name it: zones are per user, so the owner is part of the key.
struct ZoneKey: Sendable, Hashable {
    var ownerID: Int64
    var name: String
}

/// Hands "this zone's feed moved" to the live requests of this server instance.
///
/// It holds no state another instance needs: with PostgreSQL every instance learns of every push
/// through `LISTEN` (`PostgresFeedListener`), with SQLite the one instance publishes its own.
final class FeedNotifier: Sendable {
    /// What a live request waits for.
    enum Event: Sendable, Equatable {
        /// The zone's feed reached this position.
        case moved(Int64)
        /// Time to check the head and keep the connection alive.
        case tick
    }

    private let subscribers = Mutex<[ZoneKey: [UUID: AsyncStream<Event>.Continuation]]>([:])
    private let tickInterval: Duration

    init(tickInterval: Duration = .seconds(15)) {
        self.tickInterval = tickInterval
    }

    /// The zone's events until the stream is dropped, its task is cancelled or `finish` is called;
    /// a tick comes every `tickInterval` between them.
    func subscribe(to zone: ZoneKey) -> (events: AsyncStream<Event>, finish: @Sendable () -> Void) {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(8))
        let id = UUID()
        subscribers.withLock { $0[zone, default: [:]][id] = continuation }
        let interval = tickInterval
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)  // cancellation ends the loop
                continuation.yield(.tick)
            }
        }
        continuation.onTermination = { [weak self] _ in
            ticker.cancel()
            self?.subscribers.withLock { all in
                all[zone]?[id] = nil
                if all[zone]?.isEmpty == true { all[zone] = nil }
            }
        }
        return (stream, { continuation.finish() })
    }

    /// Tells the zone's live requests that its feed reached `position`.
    func publish(_ zone: ZoneKey, position: Int64) {
        let continuations = subscribers.withLock { $0[zone].map { Array($0.values) } ?? [] }
        for continuation in continuations { continuation.yield(.moved(position)) }
    }
}
