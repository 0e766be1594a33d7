import Foundation
import ObjectGraph
import Testing

/// Numbers compare exactly and arithmetic never traps nor turns silently into a real: an
/// overflow is the same typed error in SQL as in memory (issue 43, defects 4 and 6).
@Suite struct NumericPredicateTests {
    @Test func decimalsCompareExactlyNotAsDoubles() throws {
        let amounts = ["12345678901234567890.4", "12345678901234567890.5", "0.10000000000000000001", "0.1"]
        let container = try probeContainer({ $1.amount = Decimal(string: amounts[$0])! }, count: amounts.count)
        let bound = Decimal(string: "12345678901234567890.5")!, tenth = Decimal(string: "0.1")!
        let below = try ProbeAnswers.of(#Predicate { $0.amount < bound }, in: container)
        #expect(below.agree && below.sql == [0, 2, 3], "\(below)")
        let atMostATenth = try ProbeAnswers.of(#Predicate { $0.amount <= tenth }, in: container)
        #expect(atMostATenth.agree && atMostATenth.sql == [3], "\(atMostATenth)")
        let equal = try ProbeAnswers.of(#Predicate { $0.amount == tenth }, in: container)
        #expect(equal.agree && equal.sql == [3], "\(equal)")
        let sorted = try ProbeAnswers.of(#Predicate { _ in true }, sortBy: [SortDescriptor(\.amount, order: .reverse)], in: container)
        #expect(sorted.agree && sorted.sql == [1, 0, 2, 3], "\(sorted)")
    }

    /// Whether fetching with `predicate` from a context holding nothing (SQL alone evaluates it)
    /// throws the typed predicate failure.
    private func failsInSQL(_ predicate: Predicate<Probe>, in container: ObjectContainer) -> Bool {
        do {
            _ = try container.newBackgroundContext().fetch(FetchDescriptor(predicate: predicate))
            return false
        } catch let error as ObjectGraphError {
            return error.code == .predicateEvaluationFailed && error.entity == "Probe"
        } catch {
            return false
        }
    }

    @Test func anIntegerOverflowInSQLIsATypedError() throws {
        let container = try probeContainer(
            {
                $1.number = .max; $1.small = .max; $1.optionalNumber = nil
            }, count: 1)
        let top = Int.max
        for (name, predicate) in [
            ("+", #Predicate<Probe> { $0.number + 2 == 4 }),
            ("-", #Predicate<Probe> { -2 - $0.number < 0 }),
            ("*", #Predicate<Probe> { $0.number * 2 > 0 }),
            ("Int16 +", #Predicate<Probe> { $0.small + 1 > 0 }),
            ("?? then +", #Predicate<Probe> { ($0.optionalNumber ?? top) + 1 > 0 })
        ] {
            #expect(failsInSQL(predicate, in: container), "\(name)")
        }
        let minimum = try probeContainer({ $1.number = .min }, count: 1)
        #expect(failsInSQL(#Predicate { -$0.number > 0 }, in: minimum))
    }

    /// In memory the same predicates trapped (SIGILL) inside Foundation's evaluation: each runs in
    /// a process of its own, which must end normally, having seen the typed error.
    @Test func anIntegerOverflowInMemoryIsATypedErrorNotATrap() async {
        await #expect(processExitsWith: .success) {
            let container = try probeContainer(
                {
                    $1.number = .max; $1.small = .max
                }, count: 1)
            let context = container.newBackgroundContext()
            for probe in try context.fetch(FetchDescriptor<Probe>()) { probe.scratch += 1 }
            let top = Int.max
            for predicate in [
                #Predicate<Probe> { $0.number + 2 == 4 }, #Predicate<Probe> { -2 - $0.number < 0 },
                #Predicate<Probe> { $0.number * 2 > 0 }, #Predicate<Probe> { $0.small + 1 > 0 },
                #Predicate<Probe> { ($0.optionalNumber ?? top) + 1 > 0 }
            ] {
                do {
                    _ = try context.fetch(FetchDescriptor(predicate: predicate))
                    exit(2)
                } catch let error as ObjectGraphError where error.code == .predicateEvaluationFailed {
                    continue
                }
            }
            let unsaved = container.newBackgroundContext()
            let lowest = Probe(serial: 1)
            unsaved.insert(lowest)
            lowest.number = .min
            do {
                _ = try unsaved.fetch(FetchDescriptor(predicate: #Predicate<Probe> { -$0.number > 0 }))
                exit(3)
            } catch let error as ObjectGraphError where error.code == .predicateEvaluationFailed {}
        }
    }
}
