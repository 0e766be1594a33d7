extension AnyKeyPath {
    /// Whether this key path and `other` name the same properties.
    ///
    /// A key path built with `appending(path:)` can compare unequal to the literal spelling the same
    /// path when an optional chain ends in a non-optional property (seen with Swift 6.3), although both
    /// have the same hash and the same description; the description, which names each component's
    /// accessor, settles it.
    package func namesSameProperties(as other: AnyKeyPath) -> Bool {
        self == other || (hashValue == other.hashValue && String(describing: self) == String(describing: other))
    }
}
