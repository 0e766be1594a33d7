public import Foundation
import ObjectGraphContext
import ObjectGraphModel

/// A reader of the persistent history that the store keeps it for: a sync layer, an exporter,
/// another process. A purge never passes a registered consumer's position (see
/// ``ObjectContainer/setHistoryPosition(_:ofConsumer:)``).
public struct HistoryConsumer: Sendable, Hashable {
    /// The consumer's name, as it registered.
    public var name: String
    /// The last transaction it has read; nil when it has read none (no purge passes it then).
    public var position: HistoryToken?
    /// When it last moved its position.
    public var date: Date

    /// A consumer at a position.
    public init(name: String, position: HistoryToken?, date: Date) {
        self.name = name
        self.position = position
        self.date = date
    }
}
