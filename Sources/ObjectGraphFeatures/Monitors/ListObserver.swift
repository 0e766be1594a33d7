public import Foundation
import ObjectGraphContext
public import ObjectGraphModel

/// Hears when a ``ListMonitor``'s list changes, as a whole: CoreStore's `ListObserver`.
///
/// Every method has an empty default. They are called on the isolation of the monitor's context.
/// For the changes themselves, adopt ``ListObjectObserver`` or ``ListSectionObserver``.
public protocol ListObserver<ListEntityType>: AnyObject {
    /// The entity of the monitored list.
    associatedtype ListEntityType: Entity

    /// Changes are about to be reported; the monitor already holds the new list.
    func listMonitorWillChange(_ monitor: ListMonitor<ListEntityType>)
    /// Every change was reported.
    func listMonitorDidChange(_ monitor: ListMonitor<ListEntityType>)
    /// The list is about to be fetched again as a whole (``ListMonitor/refetch(predicate:sortBy:sectionBy:)``
    /// or a context reset): no fine-grained changes follow, the list is to be read again.
    func listMonitorWillRefetch(_ monitor: ListMonitor<ListEntityType>)
    /// The list was fetched again.
    func listMonitorDidRefetch(_ monitor: ListMonitor<ListEntityType>)
}

/// Hears each object inserted, deleted, updated or moved in a ``ListMonitor``'s list.
///
/// Index paths follow UIKit's batch updates: a deletion and a move's origin are in the old list, an
/// insertion and a move's destination in the new one, and an update is where the object is now
/// (see ``ListChangeset`` for the order that turns the old list into the new one).
public protocol ListObjectObserver<ListEntityType>: ListObserver {
    /// `object` entered the list (inserted, or now matching its predicate).
    func listMonitor(_ monitor: ListMonitor<ListEntityType>, didInsertObject object: ListEntityType, toIndexPath indexPath: IndexPath)
    /// `object` left the list (deleted, marked for deletion, or no longer matching); it keeps its
    /// last values.
    func listMonitor(_ monitor: ListMonitor<ListEntityType>, didDeleteObject object: ListEntityType, fromIndexPath indexPath: IndexPath)
    /// `object` changed and kept its place.
    func listMonitor(_ monitor: ListMonitor<ListEntityType>, didUpdateObject object: ListEntityType, atIndexPath indexPath: IndexPath)
    /// `object` changed and its place with it.
    func listMonitor(
        _ monitor: ListMonitor<ListEntityType>, didMoveObject object: ListEntityType,
        fromIndexPath: IndexPath, toIndexPath: IndexPath)
}

/// Hears, besides objects, each section inserted or deleted in a sectioned ``ListMonitor``.
public protocol ListSectionObserver<ListEntityType>: ListObjectObserver {
    /// A section appeared at `sectionIndex` of the new list.
    func listMonitor(
        _ monitor: ListMonitor<ListEntityType>, didInsertSection section: ListSection<ListEntityType>, toSectionIndex sectionIndex: Int)
    /// The section at `sectionIndex` of the old list is gone (its objects were reported deleted or moved first).
    func listMonitor(
        _ monitor: ListMonitor<ListEntityType>, didDeleteSection section: ListSection<ListEntityType>, fromSectionIndex sectionIndex: Int)
}

extension ListObserver {
    public func listMonitorWillChange(_ monitor: ListMonitor<ListEntityType>) {}
    public func listMonitorDidChange(_ monitor: ListMonitor<ListEntityType>) {}
    public func listMonitorWillRefetch(_ monitor: ListMonitor<ListEntityType>) {}
    public func listMonitorDidRefetch(_ monitor: ListMonitor<ListEntityType>) {}
}

extension ListObjectObserver {
    public func listMonitor(
        _ monitor: ListMonitor<ListEntityType>, didInsertObject object: ListEntityType, toIndexPath indexPath: IndexPath
    ) {}
    public func listMonitor(
        _ monitor: ListMonitor<ListEntityType>, didDeleteObject object: ListEntityType, fromIndexPath indexPath: IndexPath
    ) {}
    public func listMonitor(
        _ monitor: ListMonitor<ListEntityType>, didUpdateObject object: ListEntityType, atIndexPath indexPath: IndexPath
    ) {}
    public func listMonitor(
        _ monitor: ListMonitor<ListEntityType>, didMoveObject object: ListEntityType,
        fromIndexPath: IndexPath, toIndexPath: IndexPath
    ) {}
}

extension ListSectionObserver {
    public func listMonitor(
        _ monitor: ListMonitor<ListEntityType>, didInsertSection section: ListSection<ListEntityType>, toSectionIndex sectionIndex: Int
    ) {}
    public func listMonitor(
        _ monitor: ListMonitor<ListEntityType>, didDeleteSection section: ListSection<ListEntityType>, fromSectionIndex sectionIndex: Int
    ) {}
}
