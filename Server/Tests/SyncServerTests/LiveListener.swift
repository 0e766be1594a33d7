import AsyncHTTPClient
import Foundation
import NIOCore
import ObjectGraphSyncProtocol
import Synchronization

/// Listens to a zone's `live` route as a client would, over a real connection, and keeps each
/// `event: changes` with the moment it arrived.
final class LiveListener: Sendable {
    struct Arrival: Sendable {
        var cursor: FeedCursor
        var at: ContinuousClock.Instant
    }

    private let arrivals = Mutex<[Arrival]>([])
    private let listening = Mutex(false)
    private let finished = Mutex(false)
    private let reader = Mutex<Task<Void, Never>?>(nil)

    /// Connects (to `owner`'s zone, or the token's user's own) and returns once the server said it
    /// is listening.
    init(port: Int, zone: String, owner: String? = nil, since: FeedCursor = .start, token: String) async throws {
        let path = Endpoint.live.path(zone: zone, owner: owner)
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)?since=\(since)")
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        let response = try await HTTPClient.tests.execute(request, timeout: .seconds(10))
        guard response.status == .ok else { throw TestFailure("live answered \(response.status)") }
        let task = Task { [self] in
            // The stream ends when the server or `close()` ends it; what it held was kept, and a
            // test waiting for more sees nothing come.
            do {
                for try await message in LiveMessages(response.body.map(\.readableBytesView)) {
                    switch message {
                    case .listening: self.listening.withLock { $0 = true }
                    case .changes(let event):
                        self.arrivals.withLock { $0.append(Arrival(cursor: event.cursor, at: ContinuousClock.now)) }
                    case .keepAlive: break
                    }
                }
            } catch {}
            self.finished.withLock { $0 = true }
        }
        reader.withLock { $0 = task }
        let deadline = ContinuousClock.now + .seconds(10)
        while !listening.withLock({ $0 }) {
            guard ContinuousClock.now < deadline else { throw TestFailure("live never said it was listening") }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Whether the stream ended.
    var isFinished: Bool { finished.withLock { $0 } }

    /// Whether the stream ends within `timeout` (its end reaches the reader a moment after the
    /// server closed it).
    func finishes(within timeout: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !isFinished, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        return isFinished
    }

    /// The events received so far.
    var received: [Arrival] { arrivals.withLock { $0 } }

    /// Waits until an event reaches `position` and returns its arrival, or nil after `timeout`.
    func arrival(reaching position: Int64, within timeout: Duration) async throws -> Arrival? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let arrival = received.first(where: { $0.cursor.position >= position }) { return arrival }
            try await Task.sleep(for: .milliseconds(1))
        }
        return nil
    }

    func close() { reader.withLock { $0?.cancel() } }
}
