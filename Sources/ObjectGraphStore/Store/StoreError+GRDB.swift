import GRDB
package import ObjectGraphModel

extension StoreError {
    /// The store error for an error GRDB threw (or a store error); any other error keeps its description.
    package init(_ error: any Error) {
        if let error = error as? StoreError {
            self = error
            return
        }
        guard let error = error as? DatabaseError else {
            self.init(resultCode: .error, message: "\(error)")
            return
        }
        #if DEBUG
            let sql = error.sql
        #else
            let sql: String? = nil
        #endif
        self.init(
            resultCode: ResultCode(rawValue: error.resultCode.rawValue),
            extendedResultCode: ResultCode(rawValue: error.extendedResultCode.rawValue),
            message: error.message ?? "\(error.resultCode)", sql: sql)
    }
}
