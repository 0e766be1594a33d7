import Hummingbird
import NIOCore
import ObjectGraphSyncFeed
import ObjectGraphSyncProtocol
import ServiceLifecycle

/// One client's live stream: `: listening`, then an event whenever the zone's feed moves past
/// what the client was last told, and a keep-alive comment at each tick.
///
/// It ends when the server shuts down gracefully, after the server's `liveStreamLifetime` (the
/// client reconnects with its cursor and misses nothing: events only say "read the feed"), or at
/// the first tick after its token stopped being valid (revoked, expired), its user stopped
/// being a member of the zone, or the zone was deleted.
struct LiveStream: Sendable {
    let server: SyncServer
    let user: SyncUser
    /// The zone and the user's role in it when the stream was asked for.
    let access: ZoneAccess
    let token: String
    /// The position the client has read up to.
    let since: Int64
    /// The zone's head when the stream was asked for; nil when the user never pushed to it.
    let head: ZoneHead?
    let events: AsyncStream<FeedNotifier.Event>
    let finish: @Sendable () -> Void

    func write(to writer: inout any ResponseBodyWriter) async throws {
        server.metrics.liveStreams.increment()
        defer { server.metrics.liveStreams.decrement() }
        let finish = self.finish
        let lifetime = server.configuration.liveStreamLifetime
        let ending = Task {
            try? await Task.sleep(for: lifetime)  // cancelled when the stream ends first
            finish()
        }
        defer { ending.cancel() }
        try await writer.write(Self.buffer(.listening))
        var last = since
        var position = head?.lastPosition ?? 0
        var zoneID = head?.zoneID
        if position > last {
            last = position
            try await writer.write(Self.buffer(.changes(LiveEvent(cursor: FeedCursor(position: position, zoneID: zoneID)))))
        }
        try await withGracefulShutdownHandler {
            for await event in events {
                switch event {
                case .moved(let moved): position = max(position, moved)
                case .tick:
                    guard try await stillAdmitted() else { return }
                    let now = try await server.storage.head(zone: access.zone, owner: access.owner)
                    // The zone was deleted (and perhaps made again): its cursors are over.
                    if let known = zoneID, now?.zoneID != known { return }
                    zoneID = zoneID ?? now?.zoneID
                    position = max(position, now?.lastPosition ?? 0)
                }
                if position > last {
                    if zoneID == nil {  // its first push
                        zoneID = try await server.storage.head(zone: access.zone, owner: access.owner)?.zoneID
                    }
                    last = position
                    try await writer.write(Self.buffer(.changes(LiveEvent(cursor: FeedCursor(position: position, zoneID: zoneID)))))
                } else if event == .tick {
                    try await writer.write(Self.buffer(.keepAlive))
                }
            }
        } onGracefulShutdown: {
            finish()
        }
        try await writer.finish(nil)
    }

    /// Whether the stream's token still lets its user in, and the user still belongs to the zone.
    private func stillAdmitted() async throws -> Bool {
        guard try await server.user(authenticatedBy: token)?.id == user.id else { return false }
        if access.role == .owner { return true }
        return try await server.storage.memberRole(of: user, zone: access.zone, owner: access.owner) != nil
    }

    /// A live message as the bytes the stream writes.
    private static func buffer(_ message: LiveMessage) throws -> ByteBuffer {
        ByteBuffer(string: try message.text())
    }
}

extension FeedCursor {
    /// A cursor of the zone whose key is `zoneID`, when the zone exists.
    fileprivate init(position: Int64, zoneID: Int64?) {
        if let zoneID { self.init(position: position, zoneID: zoneID) } else { self.init(position: position, zoneTag: nil) }
    }
}
