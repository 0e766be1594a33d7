import Foundation
import ObjectGraph
import ObjectGraphSyncProtocol

/// Reading the server's feed and applying it.
///
/// The feed is read page after page from the client's cursor. Each page (whole server transactions)
/// goes to the processors' ``ChangeProcessor/processRemoteChanges(_:in:)`` (the ``Downloader``
/// applies it) and is saved in one transaction with the new cursor, as the sync's: the app's
/// contexts merge it like any save, their observers and monitors hear it, and nothing of it is
/// uploaded again.
///
/// While a page is applied, the next one is already requested (from the cursor the page ends at,
/// which the server gave): the wait for the network and the decoding of the answer happen during
/// the apply instead of after it. A page read ahead is dropped unused when the apply fails.
extension SyncCoordinator {
    /// Whether `page` holds a forward to a zone this coordinator does not sync (yet, or at all).
    private func forwardsToUnknownZones(_ page: ChangesPage) -> Bool {
        let me = userName ?? ""
        return page.changes.contains { change in
            guard let target = change.record.forwardedTo else { return false }
            return zoneRoles[target.relative(to: me)] == nil
        }
    }

    /// Reads the feed to its end.
    func pull() async throws {
        let remote = remote, zone = workspace.zone, limit = batchSize
        var readAhead: Task<ChangesPage, any Error>?
        defer { readAhead?.cancel() }
        while true {
            let client = try workspace.clientState()
            let page: ChangesPage
            do {
                if let next = readAhead {
                    readAhead = nil
                    page = try await next.value
                } else {
                    guard let since = client.cursor else {
                        try workspace.startRefetch(client)
                        continue
                    }
                    page = try await remote.changes(zone: zone, since: since, limit: limit)
                }
            } catch let error as SyncError where error.serverCode == .mustRefetch {
                try workspace.startRefetch(client)
                continue
            }
            if forwardsToUnknownZones(page) {
                // A record moved to a zone this coordinator has not heard of yet (shared from
                // another device since the last look): the zones are asked first, so that the
                // object follows it there instead of being deleted.
                try await refreshZones()
            }
            if page.hasMore {
                let cursor = page.cursor
                readAhead = Task { try await remote.changes(zone: zone, since: cursor, limit: limit) }
            }
            try await applySettingAside(page.changes) { client in
                client.feedCursor = page.cursor.description
                if !page.hasMore && client.isRefetching { try workspace.finishRefetch(client) }
            }
            if zoneRoles[zone]?.canWrite == false {
                // Refused at save from now on, as the records of the zone read before.
                readOnlyRecords.add(page.changes.lazy.filter { !$0.record.deleted }.map(\.record.id), in: zone)
            }
            if !page.hasMore {
                status.update { $0.hasUnreadServerChanges = false }
                return
            }
        }
    }
}
