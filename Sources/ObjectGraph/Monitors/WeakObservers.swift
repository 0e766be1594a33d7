/// The observers of a monitor, held weakly: each is delivered events through a closure made when
/// it was added (which knows its type), and one that went away is dropped at the next delivery.
struct WeakObservers<Event> {
    private final class Reference {
        weak var observer: AnyObject?
        init(_ observer: AnyObject) { self.observer = observer }
    }

    private var entries: [(reference: Reference, deliver: (Event) -> Void)] = []

    /// Adds `observer`, delivered by `deliver` while it lives; adding it twice has no effect.
    mutating func add(_ observer: AnyObject, deliver: @escaping (Event) -> Void) {
        guard !entries.contains(where: { $0.reference.observer === observer }) else { return }
        entries.append((Reference(observer), deliver))
    }

    mutating func remove(_ observer: AnyObject) {
        entries.removeAll { $0.reference.observer === observer || $0.reference.observer == nil }
    }

    mutating func post(_ event: Event) {
        entries.removeAll { $0.reference.observer == nil }
        for entry in entries { entry.deliver(event) }
    }
}
