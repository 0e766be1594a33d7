// A second process for the tests that need one: it opens a store file as an application would and
// works on it, while the test process (or another copy of this one) does the same.
//
//     objectgraph-test-process save-batches PATH COUNT TAG
//         saves COUNT batches of two moods, texts "TAG batch 0" and "TAG batch 1", one save each.
//     objectgraph-test-process save-to-default-store TEXT
//         saves a mood in the store a container opens without a configuration, then prints the
//         store's path and its number of moods.
//     objectgraph-test-process use-context-from-two-threads NAME
//         uses a context named NAME on the main thread while another thread is saving it: a debug
//         build traps, naming the context.
//     objectgraph-test-process change-moods PATH
//         in one save: rates the mood "to update" 5, marks "to mark" for deletion, deletes "to
//         delete" and inserts "inserted elsewhere"; prints "saved".
//     objectgraph-test-process hand-context-between-threads
//         uses a context on another thread, then, once that thread is done, on the main thread;
//         prints "handed over".
//     objectgraph-test-process crash-in-migration-stage PATH
//         opens the store of the first version of "Person" with a plan whose stage to the second
//         writes every row, then kills the process with SIGKILL before the stage ends.
//     objectgraph-test-process save-snapshots-until-killed PATH SEED
//         saves snapshots with large images, in files, until a thread kills the process with
//         SIGKILL at a moment SEED chooses (see SnapshotsUntilKilled.swift).

import Foundation
import MoodyModel
import ObjectGraph

func saveBatches(path: String, count: Int, tag: String) throws {
    let context = try ObjectContainer(for: Mood.self, configuration: .file(path)).newBackgroundContext()
    context.name = "process \(tag)"
    for batch in 0..<count {
        for item in 0..<2 { context.insert(Mood(text: "\(tag) \(batch) \(item)")) }
        try context.save()
    }
}

func changeMoods(path: String) throws {
    let context = try ObjectContainer(for: Mood.self, configuration: .file(path)).newBackgroundContext()
    context.name = "other process"
    func mood(_ text: String) throws -> Mood? {
        try context.fetch(FetchDescriptor<Mood>(predicate: #Predicate { $0.text == text })).first
    }
    try mood("to update")?.rating = 5
    try mood("to mark")?.markForLocalDeletion()
    if let doomed = try mood("to delete") { context.delete(doomed) }
    context.insert(Mood(text: "inserted elsewhere"))
    try context.save()
    print("saved")
}

func saveToDefaultStore(text: String) throws {
    let context = try ObjectContainer(for: Mood.self).newBackgroundContext()
    context.insert(Mood(text: text))
    try context.save()
    print(StoreConfiguration.defaultURL.path)
    print(try context.fetchCount(FetchDescriptor<Mood>()))
}

/// An entity whose save waits, inside `willSave`, until the other thread has used its context.
@Entity final class SlowToSave {
    var name = ""
    init() {}

    func willSave() {
        SlowSave.entered.signal()
        _ = SlowSave.proceed.wait(timeout: .now() + 10)
    }
}

enum SlowSave {
    static let entered = DispatchSemaphore(value: 0)
    static let proceed = DispatchSemaphore(value: 0)
}

/// Carries a context to another thread, as code that misuses one does.
struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
}

func useContextFromTwoThreads(name: String) throws {
    let context = try ObjectContainer(for: SlowToSave.self, configuration: .inMemory).newBackgroundContext()
    context.name = name
    context.insert(SlowToSave())
    let carried = Unchecked(value: context)
    Thread.detachNewThread {
        do { try carried.value.save() } catch { print("save failed: \(error)") }
    }
    SlowSave.entered.wait()
    _ = try context.fetchCount(FetchDescriptor<SlowToSave>())
    SlowSave.proceed.signal()
    print("not trapped")
}

func handContextBetweenThreads() throws {
    let context = try ObjectContainer(for: Mood.self, configuration: .inMemory).newBackgroundContext()
    let carried = Unchecked(value: context)
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        carried.value.insert(Mood(text: "from another thread"))
        do { try carried.value.save() } catch { print("save failed: \(error)") }
        done.signal()
    }
    done.wait()
    let moods = try context.fetch(FetchDescriptor<Mood>())
    moods.first?.text = "on the main thread"
    try context.save()
    print("handed over")
}

// The first two versions of the migration tests' "Person" (same entity, same attributes: the same
// versions of the model).
@Entity("Person") final class PersonV1 {
    var name: String
    var email: String
    init(name: String, email: String) {
        self.name = name
        self.email = email
    }
}

@Entity("Person") final class PersonV2 {
    var first: String
    var last: String
    var email: String
    init(first: String, last: String, email: String) {
        self.first = first
        self.last = last
        self.email = email
    }
}

func crashInMigrationStage(path: String) throws {
    let plan = MigrationPlan(stages: [
        MigrationStage(
            from: try Schema(PersonV1.self), to: try Schema(PersonV2.self), name: "split names",
            didMigrate: { migration in
                for var row in try migration.rows(of: "Person") {
                    row["first"] = .text("written before the crash")
                    row["last"] = .text("")
                    try migration.update(row)
                }
                kill(getpid(), SIGKILL)
            })
    ])
    _ = try ObjectContainer(schema: Schema(PersonV2.self), migrationPlan: plan, configuration: .file(path))
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch (arguments.first, arguments.count) {
    case ("save-batches", 4):
        guard let count = Int(arguments[2]) else { fallthrough }
        try saveBatches(path: arguments[1], count: count, tag: arguments[3])
    case ("change-moods", 2):
        try changeMoods(path: arguments[1])
    case ("save-to-default-store", 2):
        try saveToDefaultStore(text: arguments[1])
    case ("use-context-from-two-threads", 2):
        try useContextFromTwoThreads(name: arguments[1])
    case ("hand-context-between-threads", 1):
        try handContextBetweenThreads()
    case ("crash-in-migration-stage", 2):
        try crashInMigrationStage(path: arguments[1])
    case ("save-snapshots-until-killed", 3):
        guard let seed = UInt64(arguments[2]) else { fallthrough }
        try saveSnapshotsUntilKilled(path: arguments[1], seed: seed)
    default:
        FileHandle.standardError.write(Data("usage: see Tests/ObjectGraphTestProcess/main.swift\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("objectgraph-test-process: \(error)\n".utf8))
    exit(1)
}
