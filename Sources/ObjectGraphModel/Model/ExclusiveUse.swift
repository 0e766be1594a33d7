import Foundation

/// Catches, in debug builds, a context used from two threads at once: the misuse Swift's type system
/// cannot see once a context has crossed an isolation boundary unchecked, and whose results (a
/// registry or a change set modified concurrently) are corrupted objects rather than a clean crash.
///
/// Every public operation of a context, and every read or write of one of its objects' properties,
/// runs between ``ObjectContext/beginUse()`` and ``Use/end()``. A thread that begins while another
/// thread is between the two traps, naming the context and both threads. Nested uses by one thread
/// (a property read inside a fetch, a hook inside a save) are counted. In release builds both calls
/// are empty and inlined away.
@usableFromInline package final class ExclusiveUse: @unchecked Sendable {
    package init() {}

    // Safety: `owner` and `depth` are only touched while `lock` is held.
    private let lock = NSLock()
    private var owner: pthread_t?
    private var depth = 0

    /// A use in progress; ``end()`` closes it.
    @usableFromInline package struct Use {
        #if DEBUG
            fileprivate let check: ExclusiveUse
        #else
            /// No use is checked in release builds.
            package init() {}
        #endif

        @inline(__always) package func end() {
            #if DEBUG
                check.leave()
            #endif
        }
    }

    /// Begins a use by the current thread; `contextName` names the context if another thread is
    /// using it.
    package func enter(contextName: @autoclosure () -> String?) -> Use {
        let thread = pthread_self()
        lock.lock()
        if depth > 0, let owner, pthread_equal(owner, thread) == 0 {
            lock.unlock()
            let name = contextName().map { "context \"\($0)\"" } ?? "an unnamed context"
            // A trap, not an error: the other thread is already modifying the context's state, and
            // nothing either thread does from here can be trusted. Debug builds only.
            fatalError(
                """
                ObjectGraph: \(name) is used on thread \(Self.describe(thread)) while thread \
                \(Self.describe(owner)) is using it. A context belongs to one isolation at a time: \
                pass ObjectIDs to other threads, and use a context of their own there.
                """)
        }
        owner = thread
        depth += 1
        lock.unlock()
        #if DEBUG
            return Use(check: self)
        #else
            return Use()
        #endif
    }

    fileprivate func leave() {
        lock.lock()
        depth -= 1
        if depth == 0 { owner = nil }
        lock.unlock()
    }

    private static func describe(_ thread: pthread_t) -> String {
        #if canImport(Darwin)
            "\(pthread_mach_thread_np(thread))"
        #else
            "\(thread)"
        #endif
    }
}
