import ObjectGraphMacros
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// `#Unique` and `#Index` expand to nothing (`@Entity` copies their groups), and refuse what would
/// only fail later, with a confusing message, once copied.
@Suite("#Unique and #Index: their checks, before @Entity copies the groups")
struct PropertyGroupsMacroTests {
    static let macros = ["Unique": MacroSpec(type: PropertyGroupsMacro.self), "Index": MacroSpec(type: PropertyGroupsMacro.self)]

    static func expand(_ source: String, into expanded: String, diagnostics: [DiagnosticSpec] = []) {
        assertMacroExpansion(
            source, expandedSource: expanded, diagnostics: diagnostics, macroSpecs: macros,
            failureHandler: { Issue.record("\(String(describing: $0.message))") })
    }

    @Test("In an @Entity class that it names, a group expands to nothing")
    func expandsToNothingInAnEntity() {
        Self.expand(
            """
            @Entity final class Person {
                #Unique<Person>([\\.first, \\.last], [\\.email])
                #Index<Person>([\\.last])
                var first = ""
            }
            """,
            into: """
                @Entity final class Person {
                    var first = ""
                }
                """)
    }

    @Test("Outside an @Entity class, #Unique is refused")
    func refusedOutsideAnEntity() {
        Self.expand(
            """
            final class Person {
                #Unique<Person>([\\.first])
            }
            """,
            into: """
                final class Person {
                }
                """,
            diagnostics: [DiagnosticSpec(message: "#Unique belongs in the body of an @Entity class", line: 2, column: 5)])
    }

    @Test("A group naming another class, no group, or an empty group is refused")
    func refusesOtherRootsAndEmptyGroups() {
        Self.expand(
            """
            @Entity final class Person {
                #Index<Pet>([\\.name])
                #Unique<Person>()
                #Unique<Person>([\\.name], [])
            }
            """,
            into: """
                @Entity final class Person {
                }
                """,
            diagnostics: [
                DiagnosticSpec(message: "#Index<Pet> in Person: name the class it is in, #Index<Person>", line: 2, column: 5),
                DiagnosticSpec(message: "#Unique needs at least one group of properties, such as [\\.name]", line: 3, column: 5),
                DiagnosticSpec(message: "a group of #Unique needs at least one property", line: 4, column: 31)
            ])
    }
}
