import Foundation
import ObjectGraph

// Small models for what the seeds' Mood / Country / Continent do not exercise.

/// `Codable` so that predicates can compare with it, as `#Predicate` requires of its values.
enum Weather: String, Codable, AttributeValue, CaseIterable {
    case sunny, rainy, windy
}

struct Location: CodableAttribute, Equatable {
    var latitude: Double
    var longitude: Double
    static let defaultValue = Location(latitude: 0, longitude: 0)
}

/// A `Codable` value whose encoding can fail, as a value holding something its encoder refuses
/// (a non-finite number, say) does.
struct Coordinates: CodableAttribute, Equatable {
    var x: Double
    /// When true, `encode(to:)` throws.
    var refusesEncoding = false
    static let defaultValue = Coordinates(x: 0)

    private enum CodingKeys: String, CodingKey { case x }

    init(x: Double, refusesEncoding: Bool = false) {
        self.x = x
        self.refusesEncoding = refusesEncoding
    }

    init(from decoder: any Decoder) throws {
        x = try decoder.container(keyedBy: CodingKeys.self).decode(Double.self, forKey: .x)
    }

    func encode(to encoder: any Encoder) throws {
        if refusesEncoding {
            throw EncodingError.invalidValue(x, EncodingError.Context(codingPath: [], debugDescription: "refuses to be encoded"))
        }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(x, forKey: .x)
    }
}

/// `Codable` attributes, optional and required, whose values may refuse to be encoded.
@Entity final class Waypoint {
    var name: String
    var position = Coordinates.defaultValue
    var target: Coordinates?
    @Attribute(.preserveValueOnDeletion) var code: Int?

    init(name: String) { self.name = name }
}

/// A declared default that cannot be encoded: refused when a container opens.
@Entity final class UnstorableDefault {
    var position = Coordinates(x: 1, refusesEncoding: true)
    init() {}
}

/// One attribute of every supported kind.
@Entity final class Sample {
    var string = ""
    var int = 0
    var int64: Int64 = 0
    var double = 0.0
    var bool = false
    var date = Date(timeIntervalSince1970: 0)
    var data = Data()
    var uuid = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    var decimal: Decimal = 0
    var weather = Weather.sunny
    var location = Location.defaultValue
    var optionalString: String?
    var optionalInt: Int?
    var optionalDate: Date?
    var optionalDecimal: Decimal?
    var optionalWeather: Weather?
    var optionalLocation: Location?
    @Transient var scratch = 0

    init() {}
}

/// An ordered many-to-many relationship with counts.
@Entity final class Playlist {
    var name: String
    @Relationship(inverse: \Song.playlists, minimumCount: 1, maximumCount: 3) var songs: [Song] = []

    init(name: String) { self.name = name }
}

@Entity final class Song {
    var title: String
    var playlists: Set<Playlist> = []

    init(title: String) { self.title = title }
}

/// An ordered one-to-many relationship.
@Entity final class Album {
    var title: String
    @Relationship(inverse: \Track.album) var tracks: [Track] = []

    init(title: String) { self.title = title }
}

@Entity final class Track {
    var title: String
    var album: Album?

    init(title: String) { self.title = title }
}

/// An ordered many-to-many relationship without counts.
@Entity final class Mixtape {
    var name: String
    @Relationship(inverse: \Tune.mixtapes) var tunes: [Tune] = []

    init(name: String) { self.name = name }
}

@Entity final class Tune {
    var title: String
    var mixtapes: Set<Mixtape> = []

    init(title: String) { self.title = title }
}

/// Validation and save hooks.
@Entity final class Account {
    var owner: String
    var balance = 0
    @Transient var willSaveCalls = 0
    @Transient var didSaveCalls = 0

    init(owner: String, balance: Int = 0) {
        self.owner = owner
        self.balance = balance
    }

    struct Overdrawn: Error {}
    struct Locked: Error {}

    func validateForInsert() throws { if balance < 0 { throw Overdrawn() } }
    func validateForUpdate() throws { if balance < 0 { throw Overdrawn() } }
    func validateForDelete() throws { if owner == "bank" { throw Locked() } }
    func willSave() { willSaveCalls += 1 }
    func didSave() { didSaveCalls += 1 }
}

// Versions of one entity, for migrations.

@Entity("Note") final class NoteV1 {
    var text: String
    init(text: String) { self.text = text }
}

@Entity("Note") final class NoteV2 {
    var text: String
    var pinned = false
    @Attribute(.indexed) var title: String?
    var tags: Set<Tag> = []
    init(text: String) { self.text = text }
}

@Entity final class Tag {
    var name: String
    @Relationship(inverse: \NoteV2.tags) var note: NoteV2?
    init(name: String) { self.name = name }
}

@Entity("Note") final class NoteChangedType {
    var text: Int = 0
    init() {}
}

@Entity("Note") final class NoteWithoutText {
    var title: String?
    init() {}
}

/// Links of a ring that cascade both ways: deleting one link reaches every other one twice.
@Entity final class RingLink {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \RingLink.previous) var next: RingLink?
    @Relationship(deleteRule: .cascade) var previous: RingLink?
    @Transient var timesPreparedForDeletion = 0
    init(name: String) { self.name = name }
    func prepareForDeletion() { timesPreparedForDeletion += 1 }
}

// Memory-safety edge cases (issue 10, point 8).

/// An enum with no case: no value of it exists, so no attribute can hold one.
enum NoCase: RawRepresentable, CaseIterable, AttributeValue {
    init?(rawValue: String) { nil }
    var rawValue: String { switch self {} }
}

/// Written out as `@Entity` would generate it, but with a computed accessor: a stored property of
/// an uninhabited type makes the compiler warn about the generated code that follows its reads.
final class Impossible: Entity {
    let _$state: ObjectState = ObjectState._claim(Impossible._$entity)
    init(_$materializing token: MaterializationToken) {}
    static let _$entity = EntityDeclaration(
        Impossible.self, name: "Impossible",
        properties: [
            .property("value", \Impossible.value, chained: \Impossible?.?.value)
        ])
    var value: NoCase { _$state.value(at: 0) }  // a setter's body would never run: no warning wanted
    static func == (lhs: Impossible, rhs: Impossible) -> Bool { lhs === rhs }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

@Entity final class Badge {
    var label: String
    init(label: String) { self.label = label }
}

/// A transient property holding a new object of another entity, declared before the storage the
/// macro adds: made while a fetched `Holder` is materialized.
@Entity final class Holder {
    @Transient var badge = Badge(label: "transient")
    var name: String
    init(name: String) { self.name = name }
}

// Names whose generated index names collided (`A_b` + `c` and `A` + `b_c` both gave `A_b_c`).

@Entity final class A_b {
    @Attribute(.indexed) var c = 0
    init() {}
}

@Entity final class A {
    @Attribute(.indexed) var b_c = 0
    init() {}
}

// Two many-to-many relationships whose join tables would both be named `Z_J_k_l`.

@Entity final class J_k {
    @Relationship(inverse: \Y.jks) var l: Set<Y> = []
    init() {}
}

@Entity final class J {
    @Relationship(inverse: \Y.js) var k_l: Set<Y> = []
    init() {}
}

@Entity final class Y {
    var jks: Set<J_k> = []
    var js: Set<J> = []
    init() {}
}

/// Words for comparing SQL's answers with Swift's (issue 10, point 4).
@Entity final class Word {
    var serial: Int
    var text: String
    var note: String?
    var rank: Int
    /// Bool attributes, sorted and sectioned by (issue 26, point 5).
    var starred = false
    var pinned: Bool?
    init(serial: Int, text: String, note: String?, rank: Int) {
        self.serial = serial
        self.text = text
        self.note = note
        self.rank = rank
        starred = serial % 3 == 0
        pinned = [nil, true, false][serial % 3 == 1 ? 0 : serial % 2 + 1]
    }
}

// Renamed attributes and entities (issue 10, point 6).

@Entity("Note") final class NoteRenamedText {
    @Attribute(originalName: "text") var body: String
    init(body: String) { self.body = body }
}

@Entity("Memo", originalName: "Note") final class Memo {
    var text: String
    init(text: String) { self.text = text }
}

/// `Song` renamed `Audio`: the join table's owning side changes with the name (`Audio.playlists`
/// sorts before `Playlist.songs`, `Song.playlists` after).
@Entity("Playlist") final class PlaylistV2 {
    var name: String
    @Relationship(inverse: \Audio.playlists, minimumCount: 1, maximumCount: 3) var songs: [Audio] = []
    init(name: String) { self.name = name }
}

@Entity("Audio", originalName: "Song") final class Audio {
    var title: String
    var playlists: Set<PlaylistV2> = []
    init(title: String) { self.title = title }
}

/// Attributes named like what other frameworks add to every model object: none may clash with
/// ObjectGraph's own members (issue 11).
@Entity final class Release {
    var version: String
    var context: String?
    var value: Double = 0
    var globalID: UUID?
    var changedKeys: String = ""
    var persistentModelID: Int = 0
    @Relationship(inverse: \Component.release) var components: Set<Component> = []

    init(version: String) { self.version = version }
}

@Entity final class Component {
    var name: String
    var version: Int = 1
    var release: Release?

    init(name: String) { self.name = name }
}

// Two-step deletion (issue 12): seed 001's "remove from continent" by hand, and an entity whose
// delete rules apply to marks by themselves.

@Entity final class MarkableContinent {
    var name: String
    @Relationship(inverse: \MarkableCountry.continent) var countries: Set<MarkableCountry> = []
    init(name: String) { self.name = name }
}

@Entity final class MarkableCountry: DelayedDeletable {
    var name: String
    var markedForDeletionDate: Date?
    var continent: MarkableContinent?
    /// How many saves found `changedForDelayedDeletion` true.
    @Transient var timesSeenChangedForDelayedDeletion = 0
    init(name: String, continent: MarkableContinent? = nil) {
        self.name = name
        self.continent = continent
    }

    /// Seed 001's example: a country marked for deletion leaves its continent.
    func willSave() {
        if changedForDelayedDeletion {
            timesSeenChangedForDelayedDeletion += 1
            continent = nil
        }
    }
}

@Entity final class Folder: DelayedDeletable {
    var name: String
    var markedForDeletionDate: Date?
    @Relationship(deleteRule: .cascade, inverse: \Document.folder) var documents: Set<Document> = []
    @Relationship(deleteRule: .deny, inverse: \Lock.folder) var locks: Set<Lock> = []
    static var propagatesDeleteRulesWhenMarked: Bool { true }
    init(name: String) { self.name = name }
}

@Entity final class Document: DelayedDeletable {
    var title: String
    var markedForDeletionDate: Date?
    var folder: Folder?
    init(title: String, folder: Folder? = nil) {
        self.title = title
        self.folder = folder
    }
}

@Entity final class Lock {
    var owner: String
    var folder: Folder?
    init(owner: String, folder: Folder? = nil) {
        self.owner = owner
        self.folder = folder
    }
}

/// Adopts DelayedDeletable without storing the date: refused when a container opens.
@Entity final class UnstoredMark: DelayedDeletable {
    var name = ""
    @Transient var markedForDeletionDate: Date?
    init() {}
}

// A batch deletion whose selected rows and cascaded rows share an entity and a rule: chores
// marked by themselves, and chores of a marked project.

@Entity final class Project: DelayedDeletable {
    var name: String
    var markedForDeletionDate: Date?
    @Relationship(deleteRule: .cascade, inverse: \Chore.project) var chores: Set<Chore> = []
    init(name: String) { self.name = name }
}

@Entity final class Chore: DelayedDeletable {
    var title: String
    var markedForDeletionDate: Date?
    var project: Project?
    var assignee: Person?
    init(title: String, project: Project, assignee: Person) {
        self.title = title
        self.project = project
        self.assignee = assignee
    }
}

@Entity final class Person {
    var name: String
    @Relationship(inverse: \Chore.assignee) var chores: Set<Chore> = []
    init(name: String) { self.name = name }
}

/// A tree whose deletion nullifies the children's link to their parent: deleting the roots leaves
/// their children without a parent, that is, matching `parent == nil` in turn.
@Entity final class Node {
    var name: String
    var parent: Node?
    @Relationship(inverse: \Node.parent) var children: Set<Node> = []
    init(name: String, parent: Node? = nil) {
        self.name = name
        self.parent = parent
    }
}

/// A `willSave()` that runs what a test gives it.
@Entity final class HookedNote {
    var text = ""
    @Transient var onWillSave: (() -> Void)?

    init(text: String) { self.text = text }

    func willSave() { onWillSave?() }
}

/// One attribute per kind of rule (`@Attribute(.range…)`, `.length`, `.matches`).
@Entity final class Reading {
    @Attribute(.range(0...1)) var ratio = 0.5
    @Attribute(.range(0...)) var count = 0
    @Attribute(.range(...100.0)) var percent: Double?
    @Attribute(.range(Date(timeIntervalSince1970: 0)...Date(timeIntervalSince1970: 1_000_000))) var taken = Date(timeIntervalSince1970: 10)
    @Attribute(.length(1...3)) var code = "A"
    @Attribute(.length(2...)) var payload: Data?
    @Attribute(.matches("[A-Z]{2}")) var region = "FR"

    init() {}
}

/// A pattern that does not compile.
@Entity final class BadPattern {
    @Attribute(.matches("[")) var text = ""
}

/// A range on an attribute that has no order of its kind.
@Entity final class RangeOnText {
    @Attribute(.range(1...2)) var name = ""
}
