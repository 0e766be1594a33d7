import Foundation
import MoodyModel
import ObjectGraph
import ObjectGraphSync
import ObjectGraphSyncProtocol
import ObjectGraphSyncTesting

// A sync client as a process of its own, for the test that kills it: it makes moods numbered 0 to
// COUNT-1 (and rates some of them), saving each and syncing after each save, and resumes from its
// store wherever it was killed. Told to, it kills itself right after the server's K-th answer to a
// push (or a page), before the answer is saved: the window exactly-once must survive.
//
// With the mode `prepare`, it makes a country with COUNT moods in one save and syncs it; with the
// mode `share`, it shares that country (moving it and its moods into a zone of their own) and
// syncs until all is sent.
//
// Usage: objectgraph-sync-test-client URL TOKEN STORE COUNT DEATH [prepare|share]
//   DEATH: none, push:K or page:K

/// The server, through the real remote, dying after the answer it was told to.
final class DyingRemote: ForwardingSyncRemote, @unchecked Sendable {
    // Safety: the coordinator calls its remote from its own isolation, one call at a time.
    let base: any SyncRemote
    private let death: (route: String, answer: Int)?
    private var answers: [String: Int] = [:]

    init(remote: HTTPSyncRemote, death: (route: String, answer: Int)?) {
        self.base = remote
        self.death = death
    }

    func push(_ request: PushRequest, zone: ZoneID) async throws -> PushOutcome {
        let outcome = try await base.push(request, zone: zone)
        answered("push")
        return outcome
    }

    func changes(zone: ZoneID, since cursor: FeedCursor, limit: Int) async throws -> ChangesPage {
        let page = try await base.changes(zone: zone, since: cursor, limit: limit)
        answered("page")
        return page
    }

    private func answered(_ route: String) {
        answers[route, default: 0] += 1
        if let death, death.route == route, death.answer == answers[route] { kill(getpid(), SIGKILL) }
    }
}

let arguments = CommandLine.arguments
let deathParts = arguments.count >= 6 ? arguments[5].split(separator: ":") : []
guard arguments.count == 6 || (arguments.count == 7 && ["prepare", "share"].contains(arguments[6])), let url = URL(string: arguments[1]),
    let count = Int(arguments[4]), arguments[5] == "none" || (deathParts.count == 2 && Int(deathParts[1]) != nil)
else {
    FileHandle.standardError.write(Data("usage: URL TOKEN STORE COUNT none|push:K|page:K [prepare|share]\n".utf8))
    exit(2)
}
let mode = arguments.count == 7 ? arguments[6] : nil
let death = deathParts.count == 2 ? (route: String(deathParts[0]), answer: Int(deathParts[1]) ?? 0) : nil
let container = try ObjectContainer(
    schema: Schema([Mood.self, Country.self, Continent.self] + SyncCoordinator.entities),
    configuration: .file(arguments[3]))
let sync = try SyncCoordinator(
    container: container, remote: DyingRemote(remote: HTTPSyncRemote(url: url, token: arguments[2]), death: death),
    zone: "moods", syncing: [Mood.self, Country.self, Continent.self])
/// Syncs until a sync succeeds (the server may be busy: what is pending goes next time).
func syncUntilDone() async throws {
    while true {
        do {
            try await sync.syncNow()
            return
        } catch {
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}

let context = container.newBackgroundContext()
if mode == "prepare" {
    let country = Country(name: "Shared")
    context.insert(country)
    for index in 0..<count {
        context.insert(Mood(text: "mood \(index)", rating: 1, date: Date(timeIntervalSince1970: Double(index)), country: country))
    }
    try context.save()
    try await syncUntilDone()
    print("prepared")
    exit(0)
}
if mode == "share" {
    let country = try context.fetch(FetchDescriptor<Country>())[0]
    var zone: ZoneID?
    while zone == nil {
        do {
            zone = try await sync.share(country.objectID)
        } catch {
            // The move is saved: sharing again finds it and sends the rest.
            FileHandle.standardError.write(Data("share: \(error)\n".utf8))
            try await Task.sleep(for: .milliseconds(50))
        }
    }
    try await syncUntilDone()
    print("shared \(zone.map(\.description) ?? "")")
    exit(0)
}
var made = try context.fetchCount(FetchDescriptor<Mood>())
while made < count {
    context.insert(Mood(text: "mood \(made)", rating: 1, date: Date(timeIntervalSince1970: Double(made))))
    if made % 3 == 0, made > 0 {
        // An edit too: every third mood rates the one before it.
        let previous = "mood \(made - 1)"
        try context.fetch(FetchDescriptor<Mood>(predicate: #Predicate { $0.text == previous })).first?.rating = 5
    }
    try context.save()
    made += 1
    try? await sync.syncNow()  // the server may be busy; what is pending goes next time
}
// Done: everything pending goes, then the process says so.
try await syncUntilDone()
print("done \(made)")
