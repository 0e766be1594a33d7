public import ObjectGraphModel

/// An object a full-text search found (see ``ObjectContext/search(_:matching:where:sortBy:limit:)``),
/// with how well it matched and where.
public struct SearchResult<T: Entity> {
    /// The object.
    public let object: T
    /// How well it matched: SQLite FTS5's `bm25` score, which is lower (more negative) for a
    /// better match: words that are rarer in the entity's text, found more often in this object's,
    /// in shorter text. An unsaved object's is computed over the unsaved objects that matched.
    public let rank: Double
    /// An excerpt of its searchable text around the words that matched.
    public let snippet: SearchSnippet
}

/// An excerpt of an object's text around the words a search matched, of a dozen words at most.
public struct SearchSnippet: Sendable, Hashable, CustomStringConvertible {
    /// The excerpt, "…" where text was left out.
    public let text: String
    /// The parts of ``text`` that matched a word of the search, in order.
    public let highlights: [Range<String.Index>]

    /// The excerpt with each match in brackets: `"a [sunny] day in [Paris]"`.
    public var description: String {
        var marked = ""
        var position = text.startIndex
        for range in highlights {
            marked += text[position..<range.lowerBound] + "[" + text[range] + "]"
            position = range.upperBound
        }
        return marked + text[position...]
    }

    /// A snippet from the text SQLite gives, with `start` and `end` around each match. Read scalar
    /// by scalar: a mark next to a combining character would be one `Character` with it.
    init(marked: String, start: Unicode.Scalar, end: Unicode.Scalar) {
        var scalars = String.UnicodeScalarView()
        var offsets: [Range<Int>] = []
        var opened: Int?
        var count = 0
        for scalar in marked.unicodeScalars {
            if scalar == start {
                opened = count
            } else if scalar == end, let lower = opened {
                offsets.append(lower..<count)
                opened = nil
            } else {
                scalars.append(scalar)
                count += 1
            }
        }
        let text = String(scalars)
        self.text = text
        self.highlights = offsets.map { range in
            let lower = text.unicodeScalars.index(text.unicodeScalars.startIndex, offsetBy: range.lowerBound)
            return lower..<text.unicodeScalars.index(lower, offsetBy: range.count)
        }
    }
}
