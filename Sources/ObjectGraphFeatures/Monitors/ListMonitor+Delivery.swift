import Foundation
import ObjectGraphContext
import ObjectGraphModel
import Observation

/// Delivering a changeset: to ``ListObserver``s at the level each adopts, to changeset handlers
/// and streams, and to Observation.
extension ListMonitor {
    /// Tells Observation, the observers and the changeset handlers that the list changed.
    func post(_ changeset: ListChangeset<Object>) {
        registrar.withMutation(of: self, keyPath: contentsKeyPath) { contents &+= 1 }
        observers.post(.changes(changeset))
        changesetObservers.post(changeset)
    }

    /// What observers are told: a refetch about to happen, or changes made.
    enum ListEvent {
        case willRefetch
        case changes(ListChangeset<Object>)
    }

    func deliver<Observer: ListObserver>(
        _ event: ListEvent, to observer: Observer, objectObserver: (any ListObjectObserver<Object>)?,
        sectionObserver: (any ListSectionObserver<Object>)?
    ) where Observer.ListEntityType == Object {
        guard case .changes(let changeset) = event else {
            observer.listMonitorWillRefetch(self)
            return
        }
        if changeset.isRefetch {
            observer.listMonitorDidRefetch(self)
            return
        }
        observer.listMonitorWillChange(self)
        if let objectObserver {
            for change in changeset.changes {
                switch change {
                case let .deleteObject(object, path):
                    objectObserver.listMonitor(self, didDeleteObject: object, fromIndexPath: path)
                case let .deleteSection(section, index):
                    sectionObserver?.listMonitor(self, didDeleteSection: section, fromSectionIndex: index)
                case let .insertSection(section, index):
                    sectionObserver?.listMonitor(self, didInsertSection: section, toSectionIndex: index)
                case let .insertObject(object, path):
                    objectObserver.listMonitor(self, didInsertObject: object, toIndexPath: path)
                case let .moveObject(object, from, to):
                    objectObserver.listMonitor(self, didMoveObject: object, fromIndexPath: from, toIndexPath: to)
                case let .updateObject(object, path):
                    objectObserver.listMonitor(self, didUpdateObject: object, atIndexPath: path)
                }
            }
        }
        observer.listMonitorDidChange(self)
    }
}
