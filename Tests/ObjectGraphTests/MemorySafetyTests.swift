import Foundation
import ObjectGraph
import Testing

/// Memory-safety loose ends (issue 10, point 8).
@Suite struct MemorySafetyTests {
    @Test func anAttributeOfAnEnumWithNoCaseIsRefusedAtModelTime() {
        guard let message = invalidModelMessage({ _ = try Schema(Impossible.self) }) else { return }
        #expect(message.contains("Impossible.value"))
        #expect(message.contains("NoCase"))
    }

    @Test func aTransientObjectMadeDuringMaterializationDoesNotTakeTheFetchedObjectsState() throws {
        let container = try ObjectContainer(for: Holder.self, configuration: .inMemory)
        let writer = container.newBackgroundContext()
        let saved = Holder(name: "kept")
        writer.insert(saved)
        try writer.save()

        let reader = container.newBackgroundContext()
        let fetched = try reader.fetch(FetchDescriptor<Holder>())
        #expect(fetched.count == 1)
        let holder = try #require(fetched.first)
        #expect(holder.objectID == saved.objectID)
        #expect(holder.name == "kept")
        #expect(holder.objectContext === reader)
        #expect(holder.badge.objectContext == nil)
        #expect(holder.badge.label == "transient")
        #expect(!holder.badge.isFault)
    }
}
