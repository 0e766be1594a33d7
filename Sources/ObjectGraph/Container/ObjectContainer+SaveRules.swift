extension ObjectContainer {
    /// Adds a rule every save of the container's contexts passes, until the returned token goes.
    ///
    /// A rule sees each save as proposed (``ProposedSave``), after the delete rules, `willSave()`
    /// and the model's own validation, and refuses what it must not let through: the save then
    /// throws ``ObjectGraphError/validationFailed(_:)``, each refusal a ``ValidationFailure`` whose
    /// reason is ``ValidationFailure/Reason/refused(rule:message:)``, and writes nothing. It is how
    /// a library above the store holds a policy the model does not know of; the sync refuses an
    /// edit of a zone its user may only read this way.
    ///
    /// ```swift
    /// let rule = container.addSaveRule(named: "archive") { save in
    ///     for case let note as Note in save.updatedObjects where note.isArchived {
    ///         save.refuse(note, because: "an archived note is read only")
    ///     }
    /// }
    /// ```
    ///
    /// The rule runs on the saving context's thread, within the save: keep it quick, and read what
    /// it needs through ``ProposedSave/context``. With no rule added, a save pays nothing for them.
    ///
    /// - Parameters:
    ///   - name: The rule's name, which its refusals carry.
    ///   - rule: What looks at each proposed save.
    public func addSaveRule(named name: String, _ rule: @escaping @Sendable (ProposedSave) -> Void) -> ObservationToken {
        saveRules.add { proposal in
            proposal.rule = name
            rule(proposal)
        }
    }
}
