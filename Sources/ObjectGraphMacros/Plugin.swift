import SwiftCompilerPlugin
import SwiftSyntaxMacros

@main
struct ObjectGraphMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [
        EntityMacro.self,
        PersistedPropertyMacro.self,
        MarkerMacro.self,
        PropertyGroupsMacro.self,
        ObjectActorMacro.self
    ]
}
