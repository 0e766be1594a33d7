import Foundation
import GRDB
import GRDBSQLite
import ObjectGraph

/// A note whose text is searchable.
@Entity final class Note {
    @Attribute(.searchable) var text: String
    var day: Int
    init(text: String, day: Int) {
        self.text = text
        self.day = day
    }
}

/// Full-text search: ObjectGraph's index and search against the same FTS5 table and query written
/// by hand, over the same notes.
enum SearchWorkloads {
    /// The words of the notes: a few common ones and many rare ones, as text has.
    static let vocabulary =
        ["sunny", "rain", "paris", "coffee", "river", "museum", "tea", "park", "train", "market"]
        + (0..<2_000).map { "word\($0)" }

    /// Note `index`'s text: twelve words picked by a fixed generator, so every run and side has
    /// the same notes.
    static func text(_ index: Int) -> String {
        var state = UInt64(index) &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        var words: [String] = []
        for _ in 0..<12 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let draw = Int(state >> 33)
            // One word in four is a common one.
            words.append(draw % 4 == 0 ? vocabulary[draw / 4 % 10] : vocabulary[10 + draw / 4 % 2_000])
        }
        return words.joined(separator: " ")
    }

    /// What every side searches for, and how many results it keeps.
    static let query = "sunny par"
    static let pattern = "\"sunny\"* \"par\"*"
    static let limit = 50

    static let createTables = """
        CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT NOT NULL, day INTEGER NOT NULL);
        CREATE VIRTUAL TABLE note_fts USING fts5(text, content='note', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
        CREATE TRIGGER note_ai AFTER INSERT ON note BEGIN INSERT INTO note_fts(rowid, text) VALUES (new.id, new.text); END;
        """

    static let searchSQL = """
        SELECT note.id, note.text, note.day, bm25(note_fts), snippet(note_fts, -1, '[', ']', '…', 12) \
        FROM note JOIN note_fts ON note_fts.rowid = note.id WHERE note_fts MATCH ? ORDER BY bm25(note_fts), note.id LIMIT \(limit)
        """

    static func make(dataset: Dataset, files: ScratchFiles) -> [Workload] {
        return [search(NoteStores.make(count: dataset.moodCount, files: files), count: dataset.moodCount)]
    }

    /// Search the notes for two words, best 50 first, with snippets.
    static func search(_ stores: FilledStores, count: Int) -> Workload {
        Workload(
            name: "search \(count) notes for \"\(query)\", best \(limit) with snippets",
            setUp: stores.fill,
            objectGraph: Contender(
                run: {
                    let context = try stores.graph().newBackgroundContext()
                    for result in try context.search(Note.self, matching: query, limit: limit) {
                        Sink.checksum &+= result.object.text.utf8.count &+ result.snippet.text.utf8.count
                    }
                },
                verify: {
                    let found = try stores.graph().newBackgroundContext().search(Note.self, matching: query, limit: limit)
                    try WorkloadError.check("results", found.count, limit)
                }),
            baseline: Contender(run: {
                try stores.plain().read { db in
                    let rows = try Row.fetchCursor(db.cachedStatement(sql: searchSQL), arguments: [pattern])
                    while let row = try rows.next() { Sink.checksum &+= (row[1] as String).utf8.count &+ (row[4] as String).utf8.count }
                }
            }),
            peer: Contender(run: {
                try stores.plain().read { db in
                    for row in try Row.fetchAll(db, sql: searchSQL, arguments: [pattern]) {
                        Sink.checksum &+= (row[1] as String).utf8.count &+ (row[4] as String).utf8.count
                    }
                }
            }),
            raw: Contender(run: {
                let db = try stores.raw()
                try db.read {
                    let statement = try db.prepare(searchSQL)
                    try statement.bind(pattern, at: 1)
                    while try statement.step() {
                        Sink.checksum &+= (statement.text(1)?.utf8.count ?? 0) &+ (statement.text(4)?.utf8.count ?? 0)
                    }
                    try statement.reset()
                }
            }))
    }
}

/// ObjectGraph's notes and the hand-made ones.
enum NoteStores {
    static func make(count: Int, files: ScratchFiles) -> FilledStores {
        FilledStores {
            let graph = try ObjectContainer(for: Note.self, configuration: .file(files.fresh("notes-graph.sqlite")))
            for start in stride(from: 0, to: count, by: 50_000) {
                let context = graph.newBackgroundContext()
                for index in start..<min(count, start + 50_000) {
                    context.insert(Note(text: SearchWorkloads.text(index), day: index))
                }
                try context.save()
            }
            let path = files.fresh("notes-plain.sqlite")
            let plain = try DatabasePool(path: path)
            try plain.write { db in
                try db.execute(sql: SearchWorkloads.createTables)
                let insert = try db.makeStatement(sql: "INSERT INTO note (text, day) VALUES (?, ?)")
                for index in 0..<count { try insert.execute(arguments: [SearchWorkloads.text(index), index]) }
            }
            return (graph, plain, path)
        }
    }
}
