package import ObjectGraphSyncProtocol

extension SyncError {
    /// The error a server's refusal stands for, from its HTTP status and its error body (nil when
    /// the answer held none, such as a proxy's page); `route` names the route in the message.
    ///
    /// Every remote maps refusals so (``HTTPSyncRemote`` and the in-memory server of
    /// ObjectGraphSyncTesting), which is what lets the coordinator act alike on either.
    package static func refusal(status: Int, body: SyncErrorBody?, route: String? = nil) -> SyncError {
        let prefix = route.map { "\($0) answered " } ?? ""
        if status == 401 { return .unauthorized(body?.message ?? "\(prefix)HTTP 401") }
        // The server is there but asks to wait (over a rate, its database away): the coordinator's
        // back-off waits, as for a server that does not answer.
        if status == 429 || status == 503 {
            return .unreachable("\(prefix)HTTP \(status), the server asks to wait: \(body?.message ?? "")")
        }
        if let body { return .server(body.error, body.message) }
        // A gateway's or a proxy's refusal: the server itself is not answering.
        if (500...599).contains(status) { return .unreachable("\(prefix)HTTP \(status)") }
        return .server(.internalError, "\(prefix)HTTP \(status)")
    }
}
