/// The messages of a live route's byte stream, as they complete: the one reader of server-sent
/// events that the sync client, the server's tests and its benchmark share.
///
/// It takes the body as whatever chunks the HTTP client delivers (a `ByteBuffer`'s bytes, `Data`
/// from a URLSession delegate, an array in a test) and parses them with ``LiveMessage/Parser``:
///
/// ```swift
/// for try await message in LiveMessages(response.body.map(\.readableBytesView)) {
///     if case .changes(let event) = message { pull(after: event.cursor) }
/// }
/// ```
///
/// The sequence ends when the body ends; it throws what the body throws, and a `DecodingError`
/// for a `changes` event whose data is not a ``LiveEvent``.
public struct LiveMessages<Chunks: AsyncSequence>: AsyncSequence where Chunks.Element: Sequence<UInt8> {
    public typealias Element = LiveMessage

    private let chunks: Chunks

    /// The messages of `chunks`, the body's bytes in the order they arrive.
    public init(_ chunks: Chunks) {
        self.chunks = chunks
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(chunks: chunks.makeAsyncIterator())
    }

    /// Reads chunks until they complete a message.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private var chunks: Chunks.AsyncIterator
        private var parser = LiveMessage.Parser()
        /// Messages a chunk completed that were not handed out yet, in order.
        private var ready: [LiveMessage] = []
        private var nextReady = 0

        init(chunks: Chunks.AsyncIterator) {
            self.chunks = chunks
        }

        public mutating func next() async throws -> LiveMessage? {
            while nextReady == ready.count {
                guard let chunk = try await chunks.next() else { return nil }
                ready = try parser.append(chunk)
                nextReady = 0
            }
            defer { nextReady += 1 }
            return ready[nextReady]
        }
    }
}

extension LiveMessages: Sendable where Chunks: Sendable {}
