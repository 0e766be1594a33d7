import Synchronization

/// A token bucket per key (a user, an address): each request takes a token, tokens come back at
/// the rate's pace up to its burst, and a request finding none is told how long to wait.
///
/// Memory stays bounded whatever the number of keys an attacker makes up: at `capacity` keys,
/// the buckets that have filled up again (which hold nothing a new bucket would not) are dropped.
final class TokenBuckets<Key: Hashable & Sendable>: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private let rate: RateLimits.Rate
    private let capacity: Int
    private let buckets = Mutex<[Key: Bucket]>([:])

    init(rate: RateLimits.Rate, capacity: Int = 100_000) {
        self.rate = rate
        self.capacity = capacity
    }

    /// Takes a token for `key`; nil when one was there, else the seconds until one is.
    func take(_ key: Key, now: ContinuousClock.Instant = .now) -> Double? {
        buckets.withLock { buckets in
            var bucket = refilled(buckets[key], now: now)
            if let wait = wait(holding: bucket.tokens) { return wait }
            bucket.tokens -= 1
            store(bucket, for: key, in: &buckets, now: now)
            return nil
        }
    }

    /// Takes `cost` tokens for `key` even when fewer are left: the bucket goes into debt, and
    /// ``wait(_:now:)`` says how long until the debt is paid back at the rate's pace.
    func charge(_ key: Key, cost: Double, now: ContinuousClock.Instant = .now) {
        buckets.withLock { buckets in
            var bucket = refilled(buckets[key], now: now)
            bucket.tokens -= cost
            store(bucket, for: key, in: &buckets, now: now)
        }
    }

    /// The seconds until `key` has a token again; nil when it has one now. Takes nothing.
    func wait(_ key: Key, now: ContinuousClock.Instant = .now) -> Double? {
        buckets.withLock { wait(holding: refilled($0[key], now: now).tokens) }
    }

    /// The seconds until a bucket holding `tokens` has one; nil when it has one.
    private func wait(holding tokens: Double) -> Double? {
        guard tokens < 1 else { return nil }
        return rate.perSecond > 0 ? (1 - tokens) / rate.perSecond : .infinity
    }

    /// Keeps `bucket` for `key`; past `capacity` keys, drops the buckets that filled up again.
    private func store(_ bucket: Bucket, for key: Key, in buckets: inout [Key: Bucket], now: ContinuousClock.Instant) {
        buckets[key] = bucket
        if buckets.count > capacity { buckets = buckets.filter { refilled($0.value, now: now).tokens < Double(rate.burst) } }
    }

    private func refilled(_ bucket: Bucket?, now: ContinuousClock.Instant) -> Bucket {
        guard let bucket else { return Bucket(tokens: Double(rate.burst), updated: now) }
        let seconds = (now - bucket.updated).seconds
        return Bucket(tokens: min(Double(rate.burst), bucket.tokens + seconds * rate.perSecond), updated: now)
    }
}
