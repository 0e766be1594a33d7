import Foundation
import MoodyModel
import ObjectGraph
import Synchronization
import Testing

/// A container's save rules see every save of its contexts as proposed and refuse what they must
/// not let through, with a typed failure naming the object and the rule; nothing is written then.
@Suite("Save rules: a policy of a library above the store, held at every save")
struct SaveRuleTests {
    @Test("A rule that refuses an update fails the save with a refusal naming the object, the property and the rule; nothing is written")
    func refusedUpdateWritesNothing() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let mood = Mood(text: "kept")
        context.insert(mood)
        try context.save()
        let rule = container.addSaveRule(named: "frozen") { save in
            for case let mood as Mood in save.updatedObjects where mood.text != "kept" {
                save.refuse(mood, property: "text", because: "frozen moods keep their text")
            }
        }
        mood.text = "changed"
        let error = #expect(throws: ObjectGraphError.self) { try context.save() }
        #expect(error?.code == .validationFailed)
        #expect(
            error?.validationFailures == [
                ValidationFailure(
                    entity: "Mood", objectID: mood.objectID, property: "text",
                    reason: .refused(rule: "frozen", message: "frozen moods keep their text"))
            ])
        let stored = try container.newBackgroundContext().fetch(FetchDescriptor<Mood>()).map(\.text)
        #expect(stored == ["kept"])
        withExtendedLifetime(rule) {}
    }

    @Test("A rule sees the inserted, updated and deleted objects of a save and its author, and every context's saves")
    func ruleSeesEverySave() throws {
        let container = try makeContainer()
        let seen = Mutex<[String]>([])
        let rule = container.addSaveRule(named: "watch") { save in
            let line = "\(save.author ?? "-"): +\(save.insertedObjects.count) ~\(save.updatedObjects.count) -\(save.deletedObjects.count)"
            seen.withLock { $0.append(line) }
        }
        let first = container.newBackgroundContext()
        first.name = "first"
        let (a, b) = (Mood(text: "a"), Mood(text: "b"))
        first.insert(a)
        first.insert(b)
        try first.save()
        a.text = "A"
        first.delete(b)
        try first.save()
        let second = container.newBackgroundContext()
        second.insert(Mood(text: "c"))
        try second.save()
        #expect(seen.withLock { $0 } == ["first: +2 ~0 -0", "first: +0 ~1 -1", "-: +1 ~0 -0"])
        withExtendedLifetime(rule) {}
    }

    @Test("A rule whose token is released or cancelled no longer refuses anything")
    func releasedRuleStops() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        var rule: ObservationToken? = container.addSaveRule(named: "nothing") { save in
            for object in save.insertedObjects { save.refuse(object, because: "no") }
        }
        context.insert(Mood(text: "refused"))
        #expect(throws: ObjectGraphError.self) { try context.save() }
        rule = nil
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Mood>()) == 1)
        withExtendedLifetime(rule) {}
    }
}
