import ObjectGraphModel
import Observation

/// What a context tells the Observation framework: whether its objects report their reads (see
/// ``ObjectContext/isObservable``), and the registrar of each object one of whose reads was
/// reported, made at that read (few objects have one, and a field of every state would cost every
/// object made). An object with none cannot be observed, so its changes are told to nobody.
struct ObservationRegistrars {
    /// ``ObjectContext/isObservable``, copied into every state so that a read tests one flag.
    var observesReads = false
    private var registrars: [ObjectIdentifier: ObservationRegistrar] = [:]

    /// The state's registrar, made if it has none.
    mutating func registrar(for state: ObjectState) -> ObservationRegistrar {
        let key = ObjectIdentifier(state)
        if let registrar = registrars[key] { return registrar }
        let registrar = ObservationRegistrar()
        registrars[key] = registrar
        return registrar
    }

    /// Forgets a state's registrar: the state is gone, or leaves the context.
    @inline(__always)
    mutating func forget(_ state: ObjectState) {
        if !registrars.isEmpty { registrars[ObjectIdentifier(state)] = nil }
    }

    /// Tells Observation that property `index` of the state changed.
    @inline(__always)
    func notifyChange(of state: ObjectState, property index: Int) {
        guard !registrars.isEmpty, let registrar = registrars[ObjectIdentifier(state)], let object = state.object else {
            return
        }
        state.entity.properties[index].observation.change(object, registrar)
    }

    /// Tells Observation that the properties named `keys` changed: every property when `keys` is
    /// empty (a refresh that does not say).
    func notifyChange(of state: ObjectState, keys: Set<String>) {
        guard !registrars.isEmpty, registrars[ObjectIdentifier(state)] != nil else { return }
        for (index, name) in state.entity.propertyNames.enumerated() where keys.isEmpty || keys.contains(name) {
            notifyChange(of: state, property: index)
        }
    }
}
