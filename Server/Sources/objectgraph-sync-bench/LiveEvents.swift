import AsyncHTTPClient
import Foundation
import NIOCore
import ObjectGraphSyncProtocol
import Synchronization

/// A client on a zone's live route: it notes when each `changes` event arrives.
final class LiveEvents: Sendable {
    private let listening = Mutex(false)
    private let arrivals = Mutex<[ContinuousClock.Instant]>([])
    private let reader = Mutex<Task<Void, any Error>?>(nil)

    /// Connects and returns once the server said it is listening.
    init(_ target: BenchTarget, zone: String) async throws {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(target.port)/v1/zones/\(zone)/live")
        request.headers.add(name: "Authorization", value: "Bearer \(target.token)")
        let response = try await target.http.execute(request, timeout: .seconds(3600))
        guard response.status == .ok else { throw BenchmarkError("live answered \(response.status)") }
        let task = Task { [self] in
            for try await message in LiveMessages(response.body.map(\.readableBytesView)) {
                switch message {
                case .listening: listening.withLock { $0 = true }
                case .changes: arrivals.withLock { $0.append(ContinuousClock.now) }
                case .keepAlive: break
                }
            }
        }
        reader.withLock { $0 = task }
        _ = try await wait(timeout: .seconds(10)) { listening.withLock { $0 } ? () : nil }
    }

    /// How many events came so far.
    var count: Int { arrivals.withLock { $0.count } }

    /// When the `number`th event came, waiting for it up to `timeout`.
    func waitForEvent(number: Int, timeout: Duration) async throws -> ContinuousClock.Instant {
        try await wait(timeout: timeout) { arrivals.withLock { $0.count >= number ? $0[number - 1] : nil } }
    }

    private func wait<Value>(timeout: Duration, for value: () -> Value?) async throws -> Value {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let value = value() { return value }
            guard ContinuousClock.now < deadline else { throw BenchmarkError("no live event within \(timeout)") }
            // Polling adds up to this much to the measured delay's wait, not to the arrival time.
            try await Task.sleep(for: .microseconds(200))
        }
    }

    func close() { reader.withLock { $0?.cancel() } }
}
