public import Foundation
public import ObjectGraphContext
public import ObjectGraphModel

/// Making list monitors (see ``ListMonitor``).
extension ObjectContext {
    /// A monitor of the objects a request fetches, as one list.
    ///
    /// The request's sort is required (the list's order must be deterministic; ties go by the store's
    /// order). Its ``FetchDescriptor/fetchLimit`` keeps the list to the first objects (a change that
    /// touches the list fetches the window again, so keep it small); its
    /// ``FetchDescriptor/fetchBatchSize`` makes the objects faults, loaded a batch at a time as the
    /// monitor's subscripts read them. ``FetchDescriptor/fetchOffset`` is not supported.
    ///
    /// - Throws: ``ObjectGraphError/invalidListMonitor(entity:reason:)`` for a request without a sort or
    ///   with an offset, and the errors of ``fetch(_:)``.
    public func monitorList<Object: Entity>(_ request: FetchDescriptor<Object>) throws -> ListMonitor<Object> {
        try ListMonitor(context: self, request: request, sectionBy: nil)
    }

    /// A monitor of the objects a request fetches, in sections by `sectionBy`.
    ///
    /// As ``monitorList(_:)``; the first sort descriptor must sort by the section's key path, and a
    /// batch size loads every object anyway (each one's section is read).
    ///
    /// - Throws: ``ObjectGraphError/invalidListMonitor(entity:reason:)`` for a sort that does not start
    ///   with the section's key path, and the errors of ``monitorList(_:)``.
    public func monitorSectionedList<Object: Entity>(
        _ request: FetchDescriptor<Object>, sectionBy: SectionBy<Object>
    ) throws -> ListMonitor<Object> {
        try ListMonitor(context: self, request: request, sectionBy: sectionBy)
    }

    /// A monitor of the objects of `entity` matching `predicate`, in the order of `sortBy`, as one list.
    ///
    /// - Parameters:
    ///   - entity: The entity listed.
    ///   - predicate: The condition objects must meet; nil for all.
    ///   - sortBy: The order; at least one descriptor (the list's order must be deterministic; ties go
    ///     by the store's order).
    ///   - includesMarkedForDeletion: Whether objects marked for deletion stay in the list.
    /// - Throws: ``ObjectGraphError/invalidListMonitor(entity:reason:)`` without a sort, and the errors
    ///   of ``fetch(_:)``.
    public func monitorList<Object: Entity>(
        _ entity: Object.Type, predicate: Predicate<Object>? = nil, sortBy: [SortDescriptor<Object>],
        includesMarkedForDeletion: Bool = false
    ) throws -> ListMonitor<Object> {
        try monitorList(
            FetchDescriptor(
                predicate: predicate, sortBy: sortBy, includesMarkedForDeletion: includesMarkedForDeletion))
    }

    /// A monitor of the objects of `entity` matching `predicate`, in sections by `sectionBy`.
    ///
    /// - Parameters:
    ///   - entity: The entity listed.
    ///   - sectionBy: What groups objects into sections; the first sort descriptor must sort by it.
    ///   - predicate: The condition objects must meet; nil for all.
    ///   - sortBy: The order, starting with the section's key path.
    ///   - includesMarkedForDeletion: Whether objects marked for deletion stay in the list.
    /// - Throws: ``ObjectGraphError/invalidListMonitor(entity:reason:)`` for a sort that does not start
    ///   with the section's key path, and the errors of ``fetch(_:)``.
    public func monitorSectionedList<Object: Entity>(
        _ entity: Object.Type, sectionBy: SectionBy<Object>, predicate: Predicate<Object>? = nil,
        sortBy: [SortDescriptor<Object>], includesMarkedForDeletion: Bool = false
    ) throws -> ListMonitor<Object> {
        try monitorSectionedList(
            FetchDescriptor(
                predicate: predicate, sortBy: sortBy, includesMarkedForDeletion: includesMarkedForDeletion), sectionBy: sectionBy)
    }
}
