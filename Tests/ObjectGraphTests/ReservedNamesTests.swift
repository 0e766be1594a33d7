import Foundation
import ObjectGraph
import Testing

/// A model may name its attributes as users do (`version`, `context`, `value`…): ObjectGraph's own
/// members have names of their own (issue 11).
@Suite struct ReservedNamesTests {
    @Test func attributesNamedVersionContextAndValueRoundTrip() throws {
        let path = temporaryStorePath()
        let release = Release(version: "2.1.0")
        release.context = "nightly"
        release.value = 12.5
        release.globalID = UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))
        release.changedKeys = "all of them"
        release.persistentModelID = 7
        let component = Component(name: "core")
        component.version = 3
        release.components = [component]
        do {
            let context = try ObjectContainer(for: Release.self, configuration: .file(path)).newBackgroundContext()
            context.insert(release)
            try context.save()
            // The library's members still answer, beside the user's attributes of similar names.
            #expect(release.objectContext === context)
            #expect(release.objectVersion == 1)
            #expect(release.objectGlobalID != release.globalID)
            release.version = "2.1.1"
            #expect(release.changedPersistentKeys == ["version"])
            try context.save()
            #expect(release.objectVersion == 2)
        }

        let context = try ObjectContainer(for: Release.self, configuration: .file(path)).newBackgroundContext()
        let fetched = try #require(
            try context.fetch(
                FetchDescriptor<Release>(
                    predicate: #Predicate { $0.version == "2.1.1" && $0.context == "nightly" && $0.value > 12 })
            ).first)
        #expect(fetched.version == "2.1.1")
        #expect(fetched.context == "nightly")
        #expect(fetched.value == 12.5)
        #expect(fetched.globalID == UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)))
        #expect(fetched.changedKeys == "all of them")
        #expect(fetched.persistentModelID == 7)
        #expect(fetched.objectVersion == 2)
        #expect(try fetched.checkedValue(\.version) == "2.1.1")
        #expect(fetched.components.map(\.version) == [3])
        let sorted = try context.fetch(FetchDescriptor<Component>(sortBy: [SortDescriptor(\.version)]))
        #expect(sorted.map(\.name) == ["core"])
    }
}
