// A second process for the tests that need one: it opens a store file as an application would and
// works on it, while the test process (or another copy of this one) does the same.
//
//     objectgraph-test-process save-batches PATH COUNT TAG
//         saves COUNT batches of two moods, texts "TAG batch 0" and "TAG batch 1", one save each.

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

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 4, arguments[0] == "save-batches", let count = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: objectgraph-test-process save-batches PATH COUNT TAG\n".utf8))
    exit(2)
}
do {
    try saveBatches(path: arguments[1], count: count, tag: arguments[3])
} catch {
    FileHandle.standardError.write(Data("objectgraph-test-process: \(error)\n".utf8))
    exit(1)
}
