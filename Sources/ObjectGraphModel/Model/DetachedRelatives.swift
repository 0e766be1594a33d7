/// The relationships of an object not inserted yet, by property index: the related objects are kept
/// alive, and linked (with their inverses) when the object is inserted.
///
/// A few entries, kept in property order in an array: a dictionary made and hashed for every new
/// object given a to-one before its insertion cost more than the rest of setting it, and insertion
/// wants the entries in property order anyway.
package struct DetachedRelatives {
    package init() {}

    private var entries: [(index: Int, objects: [any Entity])] = []

    package var isEmpty: Bool { entries.isEmpty }

    /// The related objects of property `index`; setting nil forgets them.
    package subscript(index: Int) -> [any Entity]? {
        get { entries.first { $0.index == index }?.objects }
        set {
            let position = entries.firstIndex { $0.index >= index } ?? entries.endIndex
            let isPresent = position < entries.endIndex && entries[position].index == index
            switch (newValue, isPresent) {
            case (let objects?, true): entries[position].objects = objects
            case (let objects?, false): entries.insert((index, objects), at: position)
            case (nil, true): entries.remove(at: position)
            case (nil, false): break
            }
        }
    }

    /// Every entry, in property order.
    package var inPropertyOrder: [(index: Int, objects: [any Entity])] { entries }
}
