/// What a zone may be called: 1 to 100 letters, digits, `.`, `_` or `-`, other than `.` and `..`
/// (which a proxy or a client's URL library may resolve as a path).
public enum ZoneName {
    /// Refuses a zone name that is not one.
    public static func check(_ name: String) throws(SyncRefusal) {
        let allowed = name.utf8.allSatisfy {
            ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A)
                || $0 == 0x2E || $0 == 0x5F || $0 == 0x2D
        }
        guard !name.isEmpty, name.utf8.count <= 100, allowed, name != ".", name != ".." else {
            throw .badRequest(
                "\(name.prefix(100).debugDescription) is not a zone name: use 1 to 100 letters, digits, '.', '_' or '-', "
                    + "other than '.' and '..'.")
        }
    }
}
