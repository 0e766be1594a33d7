// A second process for the tests that need one: it opens a store file as an application would and
// works on it, while the test process (or another copy of this one) does the same.
//
//     objectgraph-test-process save-batches PATH COUNT TAG
//         saves COUNT batches of two moods, texts "TAG batch 0" and "TAG batch 1", one save each.
//     objectgraph-test-process save-to-default-store TEXT
//         saves a mood in the store a container opens without a configuration, then prints the
//         store's path and its number of moods.

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

func saveToDefaultStore(text: String) throws {
    let context = try ObjectContainer(for: Mood.self).newBackgroundContext()
    context.insert(Mood(text: text))
    try context.save()
    print(StoreConfiguration.defaultURL.path)
    print(try context.fetchCount(FetchDescriptor<Mood>()))
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch (arguments.first, arguments.count) {
    case ("save-batches", 4):
        guard let count = Int(arguments[2]) else { fallthrough }
        try saveBatches(path: arguments[1], count: count, tag: arguments[3])
    case ("save-to-default-store", 2):
        try saveToDefaultStore(text: arguments[1])
    default:
        FileHandle.standardError.write(Data("usage: see Tests/ObjectGraphTestProcess/main.swift\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("objectgraph-test-process: \(error)\n".utf8))
    exit(1)
}
