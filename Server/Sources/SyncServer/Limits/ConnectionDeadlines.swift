import Logging
import NIOCore
import NIOHTTPTypes

/// Closes a connection that makes the server wait: one that sends nothing for `idle`, a request
/// whose headers are not all there `header` after its first byte, or whose body is not all there
/// `body` after its headers. Without them, connections that sent half a request (or nothing) held
/// a file descriptor each until none was left and every route stopped answering.
///
/// A request being answered has no deadline: a live stream stays open for as long as its client
/// reads it. It sits after the HTTP decoder (it sees request and response parts) and puts a
/// ``ByteArrivals`` watcher at the front of the pipeline, which tells an idle connection from one
/// sending its headers slowly.
final class ConnectionDeadlines: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let limits: ConnectionLimits
    private let events: LimitEvents
    private let arrivals = ByteArrivals()
    /// When the connection last became idle (opened, or answered its last request).
    private var idleSince = NIODeadline.now()
    /// When the request being read sent its headers; nil between requests.
    private var bodySince: NIODeadline?
    /// Requests whose answer has not ended.
    private var answering = 0
    private var timer: Scheduled<Void>?

    init(limits: ConnectionLimits, events: LimitEvents) {
        self.limits = limits
        self.events = events
    }

    func handlerAdded(context: ChannelHandlerContext) {
        events.connectionOpened()
        arrivals.idleSince = idleSince
        // A request's first byte starts its header deadline, which may come before the idle one.
        arrivals.onFirstByte = { [weak self] in self?.arm(context) }
        try? context.pipeline.syncOperations.addHandler(arrivals, position: .first)  // fails only on a closed channel
        arm(context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        events.connectionClosed()
        timer?.cancel()
        timer = nil
        arrivals.onFirstByte = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            bodySince = .now()
            answering += 1
        case .body:
            break
        case .end:
            bodySince = nil
        }
        arm(context)
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            answering -= 1
            if answering == 0 && bodySince == nil {
                idleSince = .now()
                arrivals.idleSince = idleSince
            }
            arm(context)
        }
        context.write(data, promise: promise)
    }

    /// The deadline the connection is under now, and what it stands for; nil while answering.
    private func deadline() -> (NIODeadline, LimitEvents.Kind)? {
        if let bodySince { return (bodySince + TimeAmount(limits.requestBodyTimeout), .bodyTimeout) }
        if answering > 0 { return nil }
        if let firstByte = arrivals.firstByteSinceIdle {
            return (firstByte + TimeAmount(limits.requestHeaderTimeout), .headerTimeout)
        }
        return (idleSince + TimeAmount(limits.idleTimeout), .idleTimeout)
    }

    private func arm(_ context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        guard let (when, _) = deadline() else { return }
        let loop = context.eventLoop.assumeIsolated()
        timer = loop.scheduleTask(deadline: when) { [self] in
            timer = nil
            guard let (when, kind) = deadline() else { return }
            // Bytes that came meanwhile may have moved the deadline.
            guard when <= .now() else { return arm(context) }
            events.record(kind)
            context.close(promise: nil)
        }
    }
}

/// Notes when a connection's bytes arrive, from the front of its pipeline (before TLS and the
/// HTTP decoder, which say nothing until a request's headers are complete).
final class ByteArrivals: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// When the connection last became idle: bytes before it belong to an earlier request.
    var idleSince = NIODeadline.now() {
        didSet { firstByteSinceIdle = nil }
    }
    /// When the first byte after `idleSince` came; nil when none has.
    private(set) var firstByteSinceIdle: NIODeadline?
    /// Called at the first byte after `idleSince`.
    var onFirstByte: (() -> Void)?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if firstByteSinceIdle == nil {
            firstByteSinceIdle = .now()
            onFirstByte?()
        }
        context.fireChannelRead(data)
    }
}
