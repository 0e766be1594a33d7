import Foundation
import ObjectGraph
import ObjectGraphSyncProtocol

/// The status of a coordinator that is not running, or for a screen that wants it now.
extension SyncCoordinator {
    /// Refreshes the status from what the store records (the changes waiting to be sent, the last
    /// successful sync) and asks the server, changing nothing, whether it answers and has changes
    /// this device has not read. A failure is in the status, as a cycle's would be; a running
    /// coordinator's activity is left to its cycles.
    ///
    /// `moody sync status` prints it. In a store that never synced, every object of the entities
    /// that sync counts as waiting: the first sync sends them all.
    @discardableResult
    public func checkStatus() async -> SyncStatus {
        let cursor: FeedCursor?
        do {
            let stored = try workspace.storedProgress()
            let heldBack = try workspace.heldBackCount()
            cursor = stored.cursor
            status.update { status in
                status.pendingChanges = stored.pending
                status.heldBackRecords = heldBack
                status.lastSuccessfulSync = stored.lastSuccessfulSync ?? status.lastSuccessfulSync
            }
        } catch {
            record(checkFailure: (error as? SyncError) ?? .unreachable("\(error)"))
            return status.current
        }
        do {
            let page = try await remote.changes(zone: zone, since: cursor ?? .start, limit: 1)
            status.update { status in
                status.hasUnreadServerChanges = !page.changes.isEmpty
                status.lastError = nil
            }
        } catch let error as SyncError where error.serverCode == .mustRefetch {
            status.update {
                $0.hasUnreadServerChanges = true; $0.lastError = nil
            }  // the zone is read again
        } catch {
            record(checkFailure: (error as? SyncError) ?? .unreachable("\(error)"))
        }
        return status.current
    }

    private func record(checkFailure error: SyncError) {
        let isRunning = self.isRunning
        status.update { status in
            status.lastError = error
            guard !isRunning else { return }
            switch error.code {
            case .unreachable: status.activity = .offline
            case .unauthorized: status.activity = .unauthorized
            default: status.activity = .failing
            }
        }
    }
}
