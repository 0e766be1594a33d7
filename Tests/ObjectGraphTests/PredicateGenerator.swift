import Foundation
import ObjectGraph

/// A predicate expression whose output is `Output`, as the generator builds them.
typealias Expression<Output> = any StandardPredicateExpression<Output>

/// Random predicates and sorts over probes, built from Foundation's expression types as `#Predicate`
/// builds them, and random probes holding values built to break SQL's agreement with Swift
/// (issue 43, point 4): combining marks, sequences with no precomposed form, ZWJ emoji, NUL, case
/// and width variants, integer extremes, NaN, infinities and -0.0, far-apart dates, 38-digit
/// decimals, nil.
///
/// Every form the store translates is among what it generates; ``forms`` names the ones generated.
struct PredicateGenerator {
    var random: SeededGenerator
    /// The forms generated so far, by name.
    private(set) var forms: Set<String> = []

    init(seed: UInt64) {
        random = SeededGenerator(state: seed)
    }

    // MARK: Values

    static let texts = [
        "e\u{301}", "\u{E9}", "e", "E", "\u{C9}", "A\u{30A}", "\u{C5}", "b", "B", "q\u{307}", "👨\u{200D}👩\u{200D}👧\u{200D}👦", "👨", "\0",
        "a\0b", "", "ß", "SS", "ss", "\u{FB03}", "\u{FF21}", "A", "a", "e\u{301}cole", "\u{E9}cole", "\u{C9}COLE", "🇫🇷", "x y", "Ω", "ω",
        "1", "10", "9", "ae", "\u{E6}", "Z"
    ]
    static let integers = [Int.min, Int.min + 1, -7, -1, 0, 1, 2, 3, 5, 7, 1 << 40, Int.max - 1, Int.max]
    static let smallIntegers = [-3, -1, 0, 1, 2, 3, 4, 7]
    static let smalls: [Int16] = [.min, -1, 0, 1, 2, 3, .max]
    static let doubles: [Double] = [-.infinity, -1e308, -1.5, -0.0, 0.0, .leastNonzeroMagnitude, 0.1, 0.5, 1.5, 2, 1e308, .infinity]
    static let singles: [Float] = [-.infinity, -1.5, -0.0, 0, 0.1, 1.5, .greatestFiniteMagnitude, .infinity]
    static let dates: [Date] = [
        .distantPast, .distantFuture, Date(timeIntervalSinceReferenceDate: 0.1), Date(timeIntervalSinceReferenceDate: -0.1),
        Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: -0.0), Date(timeIntervalSinceReferenceDate: 1e10),
        Date(timeIntervalSinceReferenceDate: -1e10), Date(timeIntervalSince1970: 0), Date(timeIntervalSinceReferenceDate: 1e-9)
    ]
    static let decimals: [Decimal] = [
        "12345678901234567890123456789012345678", "-12345678901234567890123456789012345678", "12345678901234567890.4",
        "12345678901234567890.5", "0.1", "0.10000000000000000001", "0", "-0.5", "1.5", "0.000000000000000000000000000001"
    ].compactMap { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) }
    static let regexes: [(String, PredicateExpressions.PredicateRegex)] = ["e", "^[a-z]", "\\d", "[ÉE]", "^$", "b|B", "(?i)école", "."]
        .compactMap { pattern in (try? Regex(pattern)).flatMap(PredicateExpressions.PredicateRegex.init).map { (pattern, $0) } }

    mutating func element<T>(_ values: [T]) -> T {
        values[Int.random(in: 0..<values.count, using: &random)]
    }

    mutating func chance(_ percent: Int) -> Bool {
        Int.random(in: 0..<100, using: &random) < percent
    }

    mutating func optional<T>(_ values: [T], nilPercent: Int = 30) -> T? {
        chance(nilPercent) ? nil : element(values)
    }

    /// `count` probes of random values, some related to three groups and four tags; with `extremes`,
    /// integers include `Int.min` and `Int.max`, whose arithmetic overflows.
    mutating func probes(count: Int, extremes: Bool, in context: ObjectContext) {
        let groups = (0..<3).map { _ in ProbeGroup(name: element(Self.texts)) }
        let tags = (0..<4).map { _ in ProbeTag(label: element(Self.texts), weight: element(Self.smallIntegers)) }
        let integers = extremes ? Self.integers : Self.smallIntegers
        for serial in 0..<count {
            let probe = Probe(serial: serial)
            context.insert(probe)
            probe.name = element(Self.texts)
            probe.note = optional(Self.texts)
            probe.number = element(integers)
            probe.optionalNumber = optional(integers)
            probe.small = extremes ? element(Self.smalls) : Int16(element(Self.smallIntegers))
            probe.value = element(Self.doubles)
            probe.optionalValue = optional(Self.doubles)
            probe.single = element(Self.singles)
            probe.amount = element(Self.decimals)
            probe.date = element(Self.dates)
            probe.optionalDate = optional(Self.dates)
            probe.blob = Data((0..<Int.random(in: 0...3, using: &random)).map { UInt8($0) })
            probe.flag = chance(50)
            probe.kind = element(ProbeKind.allCases)
            probe.group = chance(20) ? nil : element(groups)
            probe.tags = Set(tags.filter { _ in chance(40) })
        }
    }

    // MARK: Predicates

    /// A random predicate of at most `depth` levels of logic, with a description for messages.
    mutating func predicate(depth: Int = 2) -> (Predicate<Probe>, String) {
        var description = ""
        var generator = self
        let predicate = Predicate<Probe> { probe in
            let (expression, text) = generator.condition(probe, depth: depth)
            description = text
            return expression
        }
        self = generator
        return (predicate, description)
    }

    private mutating func note(_ form: String) {
        forms.insert(form)
    }

    typealias Root = PredicateExpressions.Variable<Probe>

    /// A Bool-valued expression.
    mutating func condition(_ probe: Root, depth: Int) -> (Expression<Bool>, String) {
        let choice = Int.random(in: 0..<(depth > 0 ? 26 : 22), using: &random)
        switch choice {
        case 0: return comparison(integer(probe, depth: 1), integer(probe, depth: 1), "Int")
        case 1: return comparison(text(probe), text(probe), "String")
        case 2: return comparison(real(probe, depth: 1), real(probe, depth: 1), "Double")
        case 3: return comparison(date(probe), date(probe), "Date")
        case 4: return comparison(decimal(probe, depth: 1), decimal(probe, depth: 1), "Decimal")
        case 5: return comparison(small(probe, depth: 1), small(probe, depth: 1), "Int16")
        case 6: return optionalEquality(probe)
        case 7: return textOperation(probe)
        case 8: return counts(probe)
        case 9: return membership(probe)
        case 10: return range(probe)
        case 11: return members(probe, depth: depth)
        case 12: return toOne(probe)
        case 13: return unwrapped(probe)
        case 14: return flatMapped(probe)
        case 15:
            note("rawValue")
            let raw = key(probe, \.kind, "kind").0
            let value = element(ProbeKind.allCases).rawValue
            return (equal(Self.path(raw, \ProbeKind.rawValue), constant(value)), "kind.rawValue == \(value)")
        case 16:
            note("Bool attribute")
            return chance(50) ? key(probe, \.flag, "flag") : (equal(key(probe, \.flag, "flag").0, constant(chance(50))), "flag == constant")
        case 17: return comparison(single(probe, depth: 1), single(probe, depth: 1), "Float")
        case 18:
            note("?: Int")
            let (test, td) = key(probe, \.flag, "flag")
            let yes = integer(probe, depth: 0), no = integer(probe, depth: 0)
            return comparison(
                (Self.conditional(test, yes.0, no.0), "(\(td) ? \(yes.1) : \(no.1))"), integer(probe, depth: 0), "Int")
        case 19:
            note("kind ==")
            return (equal(key(probe, \.kind, "kind").0, constant(element(ProbeKind.allCases))), "kind == constant")
        case 20: return comparison(date(probe), date(probe), "Date")
        case 21: return comparison(text(probe), text(probe), "String")
        case 22:
            note("&&")
            let (l, ld) = condition(probe, depth: depth - 1), (r, rd) = condition(probe, depth: depth - 1)
            return (Self.and(l, r), "(\(ld) && \(rd))")
        case 23:
            note("||")
            let (l, ld) = condition(probe, depth: depth - 1), (r, rd) = condition(probe, depth: depth - 1)
            return (Self.or(l, r), "(\(ld) || \(rd))")
        case 24:
            note("!")
            let (inner, text) = condition(probe, depth: depth - 1)
            return (Self.not(inner), "!(\(text))")
        default:
            note("?: Bool")
            let (test, td) = condition(probe, depth: depth - 1), (yes, yd) = condition(probe, depth: 0),
                (no, nd) = condition(probe, depth: 0)
            return (Self.conditional(test, yes, no), "(\(td) ? \(yd) : \(nd))")
        }
    }

    private func key<Value: Codable & Sendable>(_ probe: Root, _ keyPath: any KeyPath<Probe, Value> & Sendable, _ name: String) -> (
        Expression<Value>, String
    ) {
        (PredicateExpressions.KeyPath(root: probe, keyPath: keyPath), name)
    }

    private mutating func comparison<Value: Comparable & Codable & Sendable>(
        _ lhs: (Expression<Value>, String), _ rhs: (Expression<Value>, String), _ type: String
    ) -> (Expression<Bool>, String) {
        let operators: [(PredicateExpressions.ComparisonOperator?, String)] = [
            (.lessThan, "<"), (.lessThanOrEqual, "<="), (.greaterThan, ">"), (.greaterThanOrEqual, ">="), (nil, "=="), (nil, "!=")
        ]
        let (op, symbol) = element(operators)
        note("\(symbol) \(type)")
        let text = "\(lhs.1) \(symbol) \(rhs.1)"
        if let op { return (compare(lhs.0, rhs.0, op), text) }
        return (symbol == "==" ? equal(lhs.0, rhs.0) : notEqual(lhs.0, rhs.0), text)
    }

    // MARK: Values of each type

    mutating func integer(_ probe: Root, depth: Int) -> (Expression<Int>, String) {
        switch Int.random(in: 0..<(depth > 0 ? 14 : 6), using: &random) {
        case 0, 1: return key(probe, \.number, "number")
        case 2:
            note("?? Int")
            let fallback = element(Self.integers)
            return (coalesce(key(probe, \.optionalNumber, "optionalNumber").0, constant(fallback)), "(optionalNumber ?? \(fallback))")
        case 3, 4:
            let value = element(Self.integers)
            return (constant(value), "\(value)")
        case 5:
            note("String.count")
            return (Self.path(key(probe, \.name, "name").0, \String.count), "name.count")
        case 6, 7, 8:
            let operations: [(PredicateExpressions.ArithmeticOperator, String)] = [(.add, "+"), (.subtract, "-"), (.multiply, "*")]
            let (op, symbol) = element(operations)
            note("\(symbol) Int")
            let lhs = integer(probe, depth: depth - 1), rhs = integer(probe, depth: depth - 1)
            return (arithmetic(lhs.0, rhs.0, op), "(\(lhs.1) \(symbol) \(rhs.1))")
        case 9:
            note("/ Int")
            let lhs = integer(probe, depth: depth - 1), rhs = integer(probe, depth: depth - 1)
            return (Self.quotient(lhs.0, rhs.0), "(\(lhs.1) / \(rhs.1))")
        case 10:
            note("% Int")
            let lhs = integer(probe, depth: depth - 1), rhs = integer(probe, depth: depth - 1)
            return (Self.remainder(lhs.0, rhs.0), "(\(lhs.1) % \(rhs.1))")
        case 11:
            note("unary - Int")
            let inner = integer(probe, depth: depth - 1)
            return (Self.negated(inner.0), "-(\(inner.1))")
        case 12:
            note("Data.count")
            return (Self.path(key(probe, \.blob, "blob").0, \Data.count), "blob.count")
        default:
            note("to-many count")
            let tags = Self.path(probe, \Probe.tags)
            return (Self.path(tags, \Set<ProbeTag>.count), "tags.count")
        }
    }

    mutating func small(_ probe: Root, depth: Int) -> (Expression<Int16>, String) {
        switch Int.random(in: 0..<(depth > 0 ? 5 : 3), using: &random) {
        case 0, 1: return key(probe, \.small, "small")
        case 2:
            let value = element(Self.smalls)
            return (constant(value), "\(value)")
        case 3:
            note("+ Int16")
            let lhs = small(probe, depth: depth - 1), rhs = small(probe, depth: depth - 1)
            return (arithmetic(lhs.0, rhs.0, chance(50) ? .add : .multiply), "(\(lhs.1) +* \(rhs.1))")
        default:
            note("/ Int16")
            let lhs = small(probe, depth: depth - 1), rhs = small(probe, depth: depth - 1)
            return (Self.quotient(lhs.0, rhs.0), "(\(lhs.1) / \(rhs.1))")
        }
    }

    mutating func real(_ probe: Root, depth: Int) -> (Expression<Double>, String) {
        switch Int.random(in: 0..<(depth > 0 ? 9 : 5), using: &random) {
        case 0, 1: return key(probe, \.value, "value")
        case 2:
            note("?? Double")
            let fallback = element(Self.doubles)
            return (coalesce(key(probe, \.optionalValue, "optionalValue").0, constant(fallback)), "(optionalValue ?? \(fallback))")
        case 3, 4:
            note("Double constant")
            let value = chance(15) ? Double.nan : element(Self.doubles)
            return (constant(value), "\(value)")
        case 5, 6:
            let operations: [(PredicateExpressions.ArithmeticOperator, String)] = [(.add, "+"), (.subtract, "-"), (.multiply, "*")]
            let (op, symbol) = element(operations)
            note("\(symbol) Double")
            let lhs = real(probe, depth: depth - 1), rhs = real(probe, depth: depth - 1)
            return (arithmetic(lhs.0, rhs.0, op), "(\(lhs.1) \(symbol) \(rhs.1))")
        case 7:
            note("/ Double")
            let lhs = real(probe, depth: depth - 1), rhs = real(probe, depth: depth - 1)
            return (Self.floatQuotient(lhs.0, rhs.0), "(\(lhs.1) / \(rhs.1))")
        default:
            note("unary - Double")
            let inner = real(probe, depth: depth - 1)
            return (Self.negated(inner.0), "-(\(inner.1))")
        }
    }

    mutating func single(_ probe: Root, depth: Int) -> (Expression<Float>, String) {
        switch Int.random(in: 0..<(depth > 0 ? 4 : 3), using: &random) {
        case 0, 1: return key(probe, \.single, "single")
        case 2:
            let value = element(Self.singles)
            return (constant(value), "\(value)")
        default:
            note("* Float")
            let lhs = single(probe, depth: depth - 1), rhs = single(probe, depth: depth - 1)
            return (arithmetic(lhs.0, rhs.0, chance(50) ? .multiply : .add), "(\(lhs.1) *+ \(rhs.1))")
        }
    }

    mutating func decimal(_ probe: Root, depth: Int) -> (Expression<Decimal>, String) {
        switch Int.random(in: 0..<(depth > 0 ? 4 : 3), using: &random) {
        case 0, 1: return key(probe, \.amount, "amount")
        case 2:
            let value = element(Self.decimals)
            return (constant(value), "\(value)")
        default:
            note("+ Decimal")
            let lhs = decimal(probe, depth: depth - 1), rhs = decimal(probe, depth: depth - 1)
            return (arithmetic(lhs.0, rhs.0, chance(50) ? .add : .subtract), "(\(lhs.1) +- \(rhs.1))")
        }
    }

    mutating func text(_ probe: Root) -> (Expression<String>, String) {
        switch Int.random(in: 0..<6, using: &random) {
        case 0, 1: return key(probe, \.name, "name")
        case 2:
            note("?? String")
            let fallback = element(Self.texts)
            return (coalesce(key(probe, \.note, "note").0, constant(fallback)), "(note ?? \(fallback.debugDescription))")
        case 3:
            note("to-one ?? String")
            let fallback = element(Self.texts)
            return (coalesce(groupName(probe), constant(fallback)), "(group?.name ?? \(fallback.debugDescription))")
        case 4:
            note("?: String")
            let (test, td) = key(probe, \.flag, "flag")
            let yes = text(probe), no = text(probe)
            return (Self.conditional(test, yes.0, no.0), "(\(td) ? \(yes.1) : \(no.1))")
        default:
            let value = element(Self.texts)
            return (constant(value), value.debugDescription)
        }
    }

    mutating func date(_ probe: Root) -> (Expression<Date>, String) {
        switch Int.random(in: 0..<4, using: &random) {
        case 0, 1: return key(probe, \.date, "date")
        case 2:
            note("?? Date")
            let fallback = element(Self.dates)
            return (coalesce(key(probe, \.optionalDate, "optionalDate").0, constant(fallback)), "(optionalDate ?? \(fallback))")
        default:
            let value = element(Self.dates)
            return (constant(value), "\(value.timeIntervalSinceReferenceDate)")
        }
    }

    private func groupName(_ probe: Root) -> Expression<String?> {
        Self.flatMap(Self.path(probe, \Probe.group)) { Self.path($0, \ProbeGroup.name) }
    }

    // MARK: Forms

    private mutating func optionalEquality(_ probe: Root) -> (Expression<Bool>, String) {
        switch Int.random(in: 0..<4, using: &random) {
        case 0:
            note("== String?")
            let value = optional(Self.texts, nilPercent: 40)
            return (equal(key(probe, \.note, "note").0, constant(value)), "note == \(String(describing: value))")
        case 1:
            note("!= Int?")
            let value = optional(Self.integers, nilPercent: 40)
            return (
                notEqual(key(probe, \.optionalNumber, "optionalNumber").0, constant(value)),
                "optionalNumber != \(String(describing: value))"
            )
        case 2:
            note("== Double?")
            let value: Double? = chance(30) ? nil : chance(20) ? .nan : element(Self.doubles)
            return (equal(key(probe, \.optionalValue, "optionalValue").0, constant(value)), "optionalValue == \(String(describing: value))")
        default:
            note("== Date?")
            let value = optional(Self.dates, nilPercent: 40)
            return (equal(key(probe, \.optionalDate, "optionalDate").0, constant(value)), "optionalDate == \(String(describing: value))")
        }
    }

    private mutating func textOperation(_ probe: Root) -> (Expression<Bool>, String) {
        let subject = text(probe), other = element(Self.texts)
        switch Int.random(in: 0..<7, using: &random) {
        case 0, 1:
            note("contains String")
            return (Self.containsText(subject.0, other), "\(subject.1).contains(\(other.debugDescription))")
        case 2:
            note("starts(with:)")
            return (Self.starts(subject.0, other), "\(subject.1).starts(with: \(other.debugDescription))")
        case 3:
            note("localizedStandardContains")
            return (
                Self.localizedStandardContains(subject.0, other),
                "\(subject.1).localizedStandardContains(\(other.debugDescription))"
            )
        case 4:
            note("caseInsensitiveCompare")
            let result = element([ComparisonResult.orderedAscending, .orderedSame, .orderedDescending])
            return (
                equal(Self.caseInsensitiveCompare(subject.0, other), constant(result)),
                "\(subject.1).caseInsensitiveCompare(\(other.debugDescription)) == \(result.rawValue)"
            )
        case 5:
            note("regex")
            let (pattern, regex) = element(Self.regexes)
            return (Self.containsRegex(subject.0, regex), "\(subject.1).contains(/\(pattern)/)")
        default:
            note("String.isEmpty")
            return (Self.path(subject.0, \String.isEmpty), "\(subject.1).isEmpty")
        }
    }

    private mutating func counts(_ probe: Root) -> (Expression<Bool>, String) {
        switch Int.random(in: 0..<3, using: &random) {
        case 0:
            note("Data.isEmpty")
            return (Self.path(key(probe, \.blob, "blob").0, \Data.isEmpty), "blob.isEmpty")
        case 1:
            note("to-many isEmpty")
            let tags = Self.path(probe, \Probe.tags)
            return (Self.path(tags, \Set<ProbeTag>.isEmpty), "tags.isEmpty")
        default:
            return comparison(integer(probe, depth: 0), (constant(element(Self.smallIntegers)), "k"), "Int")
        }
    }

    private mutating func membership(_ probe: Root) -> (Expression<Bool>, String) {
        switch Int.random(in: 0..<5, using: &random) {
        case 0:
            note("[String].contains")
            let list = (0..<Int.random(in: 0...4, using: &random)).map { _ in element(Self.texts) }
            return (Self.containsElement(list, key(probe, \.name, "name").0), "\(list).contains(name)")
        case 1:
            note("[String?].contains")
            let list = (0..<Int.random(in: 1...4, using: &random)).map { _ in optional(Self.texts, nilPercent: 40) }
            return (Self.containsElement(list, key(probe, \.note, "note").0), "\(list).contains(note)")
        case 2:
            note("[Int?].contains")
            let list = (0..<Int.random(in: 1...4, using: &random)).map { _ in optional(Self.integers, nilPercent: 40) }
            return (
                Self.containsElement(list, key(probe, \.optionalNumber, "optionalNumber").0),
                "\(list).contains(optionalNumber)"
            )
        case 3:
            note("[Double].contains")
            let list = (0..<Int.random(in: 1...4, using: &random)).map { _ in chance(20) ? Double.nan : element(Self.doubles) }
            let value = real(probe, depth: 1)
            return (Self.containsElement(list, value.0), "\(list).contains(\(value.1))")
        default:
            note("[Decimal].contains")
            let list = (0..<Int.random(in: 1...3, using: &random)).map { _ in element(Self.decimals) }
            return (Self.containsElement(list, key(probe, \.amount, "amount").0), "\(list).contains(amount)")
        }
    }

    private mutating func range(_ probe: Root) -> (Expression<Bool>, String) {
        switch Int.random(in: 0..<7, using: &random) {
        case 0:
            note("constant ClosedRange<Int>")
            let bounds = [element(Self.integers), element(Self.integers)].sorted()
            let range = bounds[0]...bounds[1]
            return (Self.containsInRange(range, key(probe, \.number, "number").0), "(\(range)).contains(number)")
        case 1:
            note("constant Range<Date>")
            let bounds = [element(Self.dates), element(Self.dates)].sorted()
            let range = bounds[0]..<bounds[1]
            return (Self.containsInRange(range, key(probe, \.date, "date").0), "(\(range)).contains(date)")
        case 2:
            note("one-sided Date ranges")
            let bound = element(Self.dates)
            let subject = key(probe, \.date, "date").0
            switch Int.random(in: 0..<3, using: &random) {
            case 0: return (Self.containsInRange(bound..., subject), "(\(bound)...).contains(date)")
            case 1: return (Self.containsInRange(...bound, subject), "(...\(bound)).contains(date)")
            default: return (Self.containsInRange(..<bound, subject), "(..<\(bound)).contains(date)")
            }
        case 3:
            note("built ClosedRange<Int>")
            let lower = integer(probe, depth: 0), upper = integer(probe, depth: 0), value = integer(probe, depth: 0)
            return (
                Self.containsInBuiltRange(lower.0, upper.0, value.0, closed: true),
                "(\(lower.1)...\(upper.1)).contains(\(value.1))"
            )
        case 4:
            note("built Range<Double>")
            let lower = real(probe, depth: 0), upper = real(probe, depth: 0), value = real(probe, depth: 0)
            return (
                Self.containsInBuiltRange(lower.0, upper.0, value.0, closed: false),
                "(\(lower.1)..<\(upper.1)).contains(\(value.1))"
            )
        case 5:
            note("constant ClosedRange<Decimal>")
            let bounds = [element(Self.decimals), element(Self.decimals)].sorted()
            let range = bounds[0]...bounds[1]
            return (Self.containsInRange(range, key(probe, \.amount, "amount").0), "(\(range)).contains(amount)")
        default:
            note("constant ClosedRange<String>")
            let bounds = [element(Self.texts), element(Self.texts)].sorted()
            let range = bounds[0]...bounds[1]
            return (Self.containsInRange(range, key(probe, \.name, "name").0), "(\(range)).contains(name)")
        }
    }

    private mutating func members(_ probe: Root, depth: Int) -> (Expression<Bool>, String) {
        let weight = element(Self.smallIntegers), label = element(Self.texts), weight0 = element(Self.smallIntegers)
        func test(_ tag: PredicateExpressions.Variable<ProbeTag>, _ kind: Int) -> Expression<Bool> {
            switch kind {
            case 0: Self.compare(Self.path(tag, \ProbeTag.weight), Self.constant(weight), .greaterThan)
            case 1: Self.equal(Self.path(tag, \ProbeTag.label), Self.constant(label))
            default:
                // Can overflow: every member is tested, in SQL as in memory.
                Self.compare(
                    Self.arithmetic(Self.path(tag, \ProbeTag.weight), Self.constant(Int.max - 2), .add), Self.constant(0), .greaterThan)
            }
        }
        let kind = Int.random(in: 0..<3, using: &random)
        let described = ["weight > \(weight)", "label == \(label.debugDescription)", "weight + (Int.max - 2) > 0"][kind]
        switch Int.random(in: 0..<6, using: &random) {
        case 4:
            let greatest = chance(50)
            note(greatest ? "max()" : "min()")
            let tags = PredicateExpressions.KeyPath(root: probe, keyPath: \Probe.tags)
            let extreme: Expression<ProbeTag?> =
                greatest ? PredicateExpressions.SequenceMaximum(elements: tags) : PredicateExpressions.SequenceMinimum(elements: tags)
            let weight = Self.flatMap(extreme) { Self.path($0, \ProbeTag.weight) }
            return (equal(weight, constant(Optional(weight0))), "tags.\(greatest ? "max" : "min")()?.weight == \(weight0)")
        case 5:
            note("max() == nil")
            let tags = PredicateExpressions.KeyPath(root: probe, keyPath: \Probe.tags)
            return (
                equal(PredicateExpressions.SequenceMaximum(elements: tags), PredicateExpressions.NilLiteral<ProbeTag>()),
                "tags.max() == nil"
            )
        case 0:
            note("contains(where:)")
            return (Self.memberTest(probe, all: false) { test($0, kind) }, "tags.contains { \(described) }")
        case 1:
            note("allSatisfy")
            return (Self.memberTest(probe, all: true) { test($0, kind) }, "tags.allSatisfy { \(described) }")
        case 2:
            note("filter isEmpty")
            let filtered = Self.filter(probe) { test($0, kind) }
            return (Self.path(filtered, \[ProbeTag].isEmpty), "tags.filter { \(described) }.isEmpty")
        default:
            note("filter count")
            let filtered = Self.filter(probe) { test($0, kind) }
            let count = Int.random(in: 0...2, using: &random)
            return (
                Self.compare(Self.path(filtered, \[ProbeTag].count), Self.constant(count), .greaterThanOrEqual),
                "tags.filter { \(described) }.count >= \(count)"
            )
        }
    }

    private mutating func toOne(_ probe: Root) -> (Expression<Bool>, String) {
        switch Int.random(in: 0..<3, using: &random) {
        case 0:
            note("to-one ==")
            let name = optional(Self.texts, nilPercent: 20)
            return (equal(groupName(probe), constant(name)), "group?.name == \(String(describing: name))")
        case 1:
            note("to-one == nil")
            let group = Self.path(probe, \Probe.group)
            return (equal(group, PredicateExpressions.NilLiteral<ProbeGroup>()), "group == nil")
        default:
            note("to-one flatMap <")
            let name = element(Self.texts)
            let below = Self.flatMap(Self.path(probe, \Probe.group)) {
                Self.compare(Self.path($0, \ProbeGroup.name), Self.constant(name), .lessThan)
            }
            return (coalesce(below, constant(chance(50))), "(group.flatMap { $0.name < \(name.debugDescription) } ?? b)")
        }
    }

    private mutating func unwrapped(_ probe: Root) -> (Expression<Bool>, String) {
        if chance(50) {
            note("! String")
            let value = element(Self.texts)
            return (equal(Self.unwrapped(key(probe, \.note, "note").0), constant(value)), "note! == \(value.debugDescription)")
        }
        note("! Int")
        let value = element(Self.smallIntegers)
        return (
            compare(Self.unwrapped(key(probe, \.optionalNumber, "optionalNumber").0), constant(value), .greaterThan),
            "optionalNumber! > \(value)"
        )
    }

    private mutating func flatMapped(_ probe: Root) -> (Expression<Bool>, String) {
        switch Int.random(in: 0..<3, using: &random) {
        case 0:
            note("flatMap String <")
            let bound = element(Self.texts), fallback = chance(50)
            let mapped = Self.flatMap(key(probe, \.note, "note").0) { Self.compare($0, Self.constant(bound), .lessThan) }
            return (coalesce(mapped, constant(fallback)), "(note.flatMap { $0 < \(bound.debugDescription) } ?? \(fallback))")
        case 1:
            note("flatMap Int +")
            let value = element(Self.smallIntegers)
            let mapped = Self.flatMap(key(probe, \.optionalNumber, "optionalNumber").0) { Self.arithmetic($0, Self.constant(1), .add) }
            return (equal(mapped, constant(Optional(value))), "optionalNumber.flatMap { $0 + 1 } == \(value)")
        default:
            note("flatMap ==")
            let value = element(Self.texts), fallback = chance(50)
            let mapped = Self.flatMap(key(probe, \.note, "note").0) { Self.equal($0, Self.constant(value)) }
            return (coalesce(mapped, constant(fallback)), "(note.flatMap { $0 == \(value.debugDescription) } ?? \(fallback))")
        }
    }

    // MARK: Node builders
    //
    // Each takes its operands as existentials of a known output type and opens them into the
    // generic types of Foundation's node (a requirement `Operand.Output == T` is what lets Swift
    // open an existential there), then returns the node as an existential again.

    private typealias Standard = StandardPredicateExpression

    private static func constant<Value: Codable & Sendable>(_ value: Value) -> Expression<Value> {
        PredicateExpressions.Value(value)
    }

    private func constant<Value: Codable & Sendable>(_ value: Value) -> Expression<Value> {
        Self.constant(value)
    }

    private static func path<Root, Value>(_ root: Expression<Root>, _ keyPath: any KeyPath<Root, Value> & Sendable) -> Expression<Value> {
        func make<R: Standard>(_ root: R) -> Expression<Value> where R.Output == Root {
            PredicateExpressions.KeyPath(root: root, keyPath: keyPath)
        }
        return make(root)
    }

    private static func compare<Value: Comparable>(
        _ lhs: Expression<Value>, _ rhs: Expression<Value>, _ op: PredicateExpressions.ComparisonOperator
    ) -> Expression<Bool> {
        func make<L: Standard, R: Standard>(_ lhs: L, _ rhs: R) -> Expression<Bool> where L.Output == Value, R.Output == Value {
            PredicateExpressions.Comparison(lhs: lhs, rhs: rhs, op: op)
        }
        return make(lhs, rhs)
    }

    private func compare<Value: Comparable>(
        _ lhs: Expression<Value>, _ rhs: Expression<Value>, _ op: PredicateExpressions.ComparisonOperator
    ) -> Expression<Bool> {
        Self.compare(lhs, rhs, op)
    }

    private static func equal<Value: Equatable>(_ lhs: Expression<Value>, _ rhs: Expression<Value>) -> Expression<Bool> {
        func make<L: Standard, R: Standard>(_ lhs: L, _ rhs: R) -> Expression<Bool> where L.Output == Value, R.Output == Value {
            PredicateExpressions.Equal(lhs: lhs, rhs: rhs)
        }
        return make(lhs, rhs)
    }

    private func equal<Value: Equatable>(_ lhs: Expression<Value>, _ rhs: Expression<Value>) -> Expression<Bool> {
        Self.equal(lhs, rhs)
    }

    private func notEqual<Value: Equatable>(_ lhs: Expression<Value>, _ rhs: Expression<Value>) -> Expression<Bool> {
        func make<L: Standard, R: Standard>(_ lhs: L, _ rhs: R) -> Expression<Bool> where L.Output == Value, R.Output == Value {
            PredicateExpressions.NotEqual(lhs: lhs, rhs: rhs)
        }
        return make(lhs, rhs)
    }

    private static func arithmetic<Value: Numeric>(
        _ lhs: Expression<Value>, _ rhs: Expression<Value>, _ op: PredicateExpressions.ArithmeticOperator
    ) -> Expression<Value> {
        func make<L: Standard, R: Standard>(_ lhs: L, _ rhs: R) -> Expression<Value> where L.Output == Value, R.Output == Value {
            PredicateExpressions.Arithmetic(lhs: lhs, rhs: rhs, op: op)
        }
        return make(lhs, rhs)
    }

    private func arithmetic<Value: Numeric>(
        _ lhs: Expression<Value>, _ rhs: Expression<Value>, _ op: PredicateExpressions.ArithmeticOperator
    ) -> Expression<Value> {
        Self.arithmetic(lhs, rhs, op)
    }

    private static func quotient<Value: BinaryInteger>(_ lhs: Expression<Value>, _ rhs: Expression<Value>) -> Expression<Value> {
        func make<L: Standard, R: Standard>(_ lhs: L, _ rhs: R) -> Expression<Value> where L.Output == Value, R.Output == Value {
            PredicateExpressions.IntDivision(lhs: lhs, rhs: rhs)
        }
        return make(lhs, rhs)
    }

    private static func remainder<Value: BinaryInteger>(_ lhs: Expression<Value>, _ rhs: Expression<Value>) -> Expression<Value> {
        func make<L: Standard, R: Standard>(_ lhs: L, _ rhs: R) -> Expression<Value> where L.Output == Value, R.Output == Value {
            PredicateExpressions.IntRemainder(lhs: lhs, rhs: rhs)
        }
        return make(lhs, rhs)
    }

    private static func floatQuotient<Value: FloatingPoint>(_ lhs: Expression<Value>, _ rhs: Expression<Value>) -> Expression<Value> {
        func make<L: Standard, R: Standard>(_ lhs: L, _ rhs: R) -> Expression<Value> where L.Output == Value, R.Output == Value {
            PredicateExpressions.FloatDivision(lhs: lhs, rhs: rhs)
        }
        return make(lhs, rhs)
    }

    private static func negated<Value: SignedNumeric>(_ inner: Expression<Value>) -> Expression<Value> {
        func make<I: Standard>(_ inner: I) -> Expression<Value> where I.Output == Value { PredicateExpressions.UnaryMinus(inner) }
        return make(inner)
    }

    private func coalesce<Value>(_ lhs: Expression<Value?>, _ rhs: Expression<Value>) -> Expression<Value> {
        func make<L: Standard, R: Standard>(_ lhs: L, _ rhs: R) -> Expression<Value> where L.Output == Value?, R.Output == Value {
            PredicateExpressions.NilCoalesce(lhs: lhs, rhs: rhs)
        }
        return make(lhs, rhs)
    }

    private static func and(_ lhs: Expression<Bool>, _ rhs: Expression<Bool>) -> Expression<Bool> {
        func make<L: Standard, R: Standard>(_ lhs: L, _ rhs: R) -> Expression<Bool> where L.Output == Bool, R.Output == Bool {
            PredicateExpressions.Conjunction(lhs: lhs, rhs: rhs)
        }
        return make(lhs, rhs)
    }

    private static func or(_ lhs: Expression<Bool>, _ rhs: Expression<Bool>) -> Expression<Bool> {
        func make<L: Standard, R: Standard>(_ lhs: L, _ rhs: R) -> Expression<Bool> where L.Output == Bool, R.Output == Bool {
            PredicateExpressions.Disjunction(lhs: lhs, rhs: rhs)
        }
        return make(lhs, rhs)
    }

    private static func not(_ inner: Expression<Bool>) -> Expression<Bool> {
        func make<I: Standard>(_ inner: I) -> Expression<Bool> where I.Output == Bool { PredicateExpressions.Negation(inner) }
        return make(inner)
    }

    private static func conditional<Value>(_ test: Expression<Bool>, _ yes: Expression<Value>, _ no: Expression<Value>) -> Expression<Value>
    {
        func make<T: Standard, I: Standard, E: Standard>(_ test: T, _ yes: I, _ no: E) -> Expression<Value>
        where T.Output == Bool, I.Output == Value, E.Output == Value {
            PredicateExpressions.Conditional(test: test, trueBranch: yes, falseBranch: no)
        }
        return make(test, yes, no)
    }

    private static func unwrapped<Value>(_ inner: Expression<Value?>) -> Expression<Value> {
        func make<I: Standard>(_ inner: I) -> Expression<Value> where I.Output == Value? { PredicateExpressions.ForcedUnwrap(inner) }
        return make(inner)
    }

    // `OptionalFlatMap`, `Filter` and the member tests make the variable their closure gets: the
    // body is built once to learn its type, then again on that variable (the same choices give the
    // same type).

    private static func flatMap<Value, Result>(
        _ wrapped: Expression<Value?>, _ transform: (PredicateExpressions.Variable<Value>) -> Expression<Result>
    ) -> Expression<Result?> {
        func make<W: Standard, T: Standard>(_ wrapped: W, _ sample: T) -> Expression<Result?> where W.Output == Value?, T.Output == Result {
            PredicateExpressions.OptionalFlatMap(wrapped) { transform($0) as! T }
        }
        return make(wrapped, transform(PredicateExpressions.Variable()))
    }

    private static func memberTest(
        _ probe: Root, all: Bool, _ test: (PredicateExpressions.Variable<ProbeTag>) -> Expression<Bool>
    ) -> Expression<Bool> {
        let tags = PredicateExpressions.KeyPath(root: probe, keyPath: \Probe.tags)
        func make<T: Standard>(_ sample: T) -> Expression<Bool> where T.Output == Bool {
            all
                ? PredicateExpressions.SequenceAllSatisfy(tags) { test($0) as! T }
                : PredicateExpressions.SequenceContainsWhere(tags) { test($0) as! T }
        }
        return make(test(PredicateExpressions.Variable()))
    }

    private static func filter(_ probe: Root, _ test: (PredicateExpressions.Variable<ProbeTag>) -> Expression<Bool>) -> Expression<
        [ProbeTag]
    > {
        let tags = PredicateExpressions.KeyPath(root: probe, keyPath: \Probe.tags)
        func make<T: Standard>(_ sample: T) -> Expression<[ProbeTag]> where T.Output == Bool {
            PredicateExpressions.Filter(tags) { test($0) as! T }
        }
        return make(test(PredicateExpressions.Variable()))
    }

    private static func containsText(_ base: Expression<String>, _ other: String) -> Expression<Bool> {
        func make<B: Standard>(_ base: B) -> Expression<Bool> where B.Output == String {
            PredicateExpressions.CollectionContainsCollection(base: base, other: PredicateExpressions.Value(other))
        }
        return make(base)
    }

    private static func containsElement<Element: Equatable & Codable & Sendable>(_ list: [Element], _ element: Expression<Element>)
        -> Expression<Bool>
    {
        func make<E: Standard>(_ element: E) -> Expression<Bool> where E.Output == Element {
            PredicateExpressions.SequenceContains(sequence: PredicateExpressions.Value(list), element: element)
        }
        return make(element)
    }

    private static func containsInRange<Range: RangeExpression & Codable & Sendable>(_ range: Range, _ element: Expression<Range.Bound>)
        -> Expression<Bool>
    {
        func make<E: Standard>(_ element: E) -> Expression<Bool> where E.Output == Range.Bound {
            PredicateExpressions.RangeExpressionContains(range: PredicateExpressions.Value(range), element: element)
        }
        return make(element)
    }

    private static func containsInBuiltRange<Bound: Comparable>(
        _ lower: Expression<Bound>, _ upper: Expression<Bound>, _ element: Expression<Bound>, closed: Bool
    ) -> Expression<Bool> {
        func make<L: Standard, U: Standard, E: Standard>(_ lower: L, _ upper: U, _ element: E) -> Expression<Bool>
        where L.Output == Bound, U.Output == Bound, E.Output == Bound {
            closed
                ? PredicateExpressions.RangeExpressionContains(
                    range: PredicateExpressions.ClosedRange(lower: lower, upper: upper), element: element)
                : PredicateExpressions.RangeExpressionContains(
                    range: PredicateExpressions.Range(lower: lower, upper: upper), element: element)
        }
        return make(lower, upper, element)
    }

    private static func containsRegex(_ subject: Expression<String>, _ regex: PredicateExpressions.PredicateRegex) -> Expression<Bool> {
        func make<S: Standard>(_ subject: S) -> Expression<Bool> where S.Output == String {
            PredicateExpressions.StringContainsRegex(subject: subject, regex: PredicateExpressions.Value(regex))
        }
        return make(subject)
    }

    private static func starts(_ base: Expression<String>, _ prefix: String) -> Expression<Bool> {
        func make<B: Standard>(_ base: B) -> Expression<Bool> where B.Output == String {
            PredicateExpressions.SequenceStartsWith(base: base, prefix: PredicateExpressions.Value(prefix))
        }
        return make(base)
    }

    private static func localizedStandardContains(_ text: Expression<String>, _ other: String) -> Expression<Bool> {
        func make<T: Standard>(_ text: T) -> Expression<Bool> where T.Output == String {
            PredicateExpressions.build_localizedStandardContains(text, PredicateExpressions.Value(other))
        }
        return make(text)
    }

    private static func caseInsensitiveCompare(_ text: Expression<String>, _ other: String) -> Expression<ComparisonResult> {
        func make<T: Standard>(_ text: T) -> Expression<ComparisonResult> where T.Output == String {
            PredicateExpressions.build_caseInsensitiveCompare(text, PredicateExpressions.Value(other))
        }
        return make(text)
    }

    // MARK: Sorts

    static let sorts: [(String, SortDescriptor<Probe>)] = [
        ("name", SortDescriptor(\.name)), ("name reverse", SortDescriptor(\.name, order: .reverse)),
        ("name lexical", SortDescriptor(\.name, comparator: .lexical)), ("note", SortDescriptor(\.note)),
        ("number", SortDescriptor(\.number)), ("optionalNumber reverse", SortDescriptor(\.optionalNumber, order: .reverse)),
        ("value", SortDescriptor(\.value)), ("optionalValue", SortDescriptor(\.optionalValue)), ("single", SortDescriptor(\.single)),
        ("date", SortDescriptor(\.date)), ("optionalDate reverse", SortDescriptor(\.optionalDate, order: .reverse)),
        ("amount", SortDescriptor(\.amount)), ("amount reverse", SortDescriptor(\.amount, order: .reverse)),
        ("small", SortDescriptor(\.small)),
        ("flag", SortDescriptor(\.flag)), ("group name", SortDescriptor(\.group?.name))
    ]

    /// Zero to two sort descriptors, named.
    mutating func sort() -> ([SortDescriptor<Probe>], String) {
        let chosen = (0..<Int.random(in: 0...2, using: &random)).map { _ in element(Self.sorts) }
        for (name, _) in chosen { note("sort by \(name)") }
        return (chosen.map(\.1), chosen.map(\.0).joined(separator: ", "))
    }
}
