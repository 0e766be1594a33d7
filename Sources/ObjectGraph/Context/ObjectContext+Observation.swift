import Observation

/// Changes told to the Observation framework: to the registrar of an object one of whose reads was
/// reported (see ``ObjectHost/registrar(of:)``); an object with none cannot be observed.
extension ObjectContext {
    /// Tells Observation that property `index` of the state changed.
    func notifyObservation(of state: ObjectState, property index: Int) {
        guard let registrar = registrars[ObjectIdentifier(state)], let object = state.object else { return }
        state.entity.properties[index].observation.change(object, registrar)
    }

    /// Tells Observation that the properties named `keys` changed: every property when `keys` is
    /// empty (a refresh that does not say).
    func notifyObservation(of state: ObjectState, keys: Set<String>) {
        guard registrars[ObjectIdentifier(state)] != nil else { return }
        for (index, name) in state.entity.propertyNames.enumerated() where keys.isEmpty || keys.contains(name) {
            notifyObservation(of: state, property: index)
        }
    }
}
