import Foundation
import MoodyModel
import ObjectGraph
import Testing

@testable import ObjectGraphFeatures

/// The reducer of a list monitor, on its own: a sorted, sectioned list of objects that no context
/// holds, fed objects leaving and entering, producing the changesets a screen applies.
@Suite struct SectionedListTests {
    private static let byRating = [SortDescriptor(\Mood.rating), SortDescriptor(\Mood.text)]

    private func list(_ moods: [Mood], sectioned: Bool = true) -> SectionedList<Mood> {
        let sorted = moods.sorted { Self.byRating.orders($0, before: $1) }
        return SectionedList(
            sorted: sorted, sortBy: Self.byRating, sectionBy: sectioned ? SectionBy(\Mood.rating) : nil)
    }

    private func shown(_ list: SectionedList<Mood>) -> ShownList {
        ShownList(
            sections: list.sectionKeys.indices.map { index in
                (list.sectionKeys[index], list.positions(ofSection: index).map { ObjectIdentifier(list.object(at: $0)) })
            })
    }

    @Test func aListIsGroupedInSectionsInTheOrderOfItsSort() {
        let a = Mood(text: "a", rating: 2), b = Mood(text: "b", rating: 2), c = Mood(text: "c", rating: 5)
        let list = list([c, b, a])
        #expect(list.sectionKeys == ["2", "5"])
        #expect(list.sectionStarts == [0, 2])
        #expect(list.positions(ofSection: 1) == 2..<3)
        #expect(list.indexPath(ofPosition: 2) == IndexPath(indexes: [1, 0]))
        #expect(list.section(at: 0).objects == [a, b])
    }

    @Test func anUnsectionedListHasOneSectionEvenWhenEmpty() {
        var list = list([], sectioned: false)
        #expect(list.sectionKeys == [nil] && list.count == 0)
        let mood = Mood(text: "a")
        let changeset = list.apply(leaving: [], entering: [mood])
        #expect(changeset.changes == [.insertObject(mood, at: IndexPath(indexes: [0, 0]))])
        #expect(list.sectionKeys == [nil])
    }

    @Test func anObjectEnteringANewSectionInsertsTheSectionThenTheObject() {
        let a = Mood(text: "a", rating: 2), c = Mood(text: "c", rating: 5)
        var list = list([a, c])
        let b = Mood(text: "b", rating: 4)
        let changeset = list.apply(leaving: [], entering: [b])
        #expect(
            changeset.changes == [
                .insertSection(ListSection(key: "4", name: "4", objects: [b]), at: 1),
                .insertObject(b, at: IndexPath(indexes: [1, 0]))
            ])
        #expect(!changeset.isRefetch)
    }

    @Test func anObjectChangingSectionMovesAndTheEmptiedSectionIsDeleted() {
        let a = Mood(text: "a", rating: 2), c = Mood(text: "c", rating: 5)
        var list = list([a, c])
        c.rating = 1
        let changeset = list.apply(leaving: [c], entering: [c])
        #expect(
            changeset.changes == [
                .deleteSection(ListSection(key: "5", name: "5", objects: []), from: 1),
                .insertSection(ListSection(key: "1", name: "1", objects: [c]), at: 0),
                .moveObject(c, from: IndexPath(indexes: [1, 0]), to: IndexPath(indexes: [0, 0]))
            ])
        #expect(list.sectionKeys == ["1", "2"])
    }

    @Test func anObjectChangedInPlaceIsAnUpdateAndOneLeavingIsADeletion() {
        let a = Mood(text: "a", rating: 2), b = Mood(text: "b", rating: 2), c = Mood(text: "c", rating: 2)
        var list = list([a, b, c])
        let changeset = list.apply(leaving: [b, c], entering: [b])
        #expect(
            changeset.changes == [
                .deleteObject(c, from: IndexPath(indexes: [0, 2])),
                .updateObject(b, at: IndexPath(indexes: [0, 1]))
            ])
    }

    @Test func anObjectLeavingThatIsNotInTheListChangesNothing() {
        let a = Mood(text: "a", rating: 2)
        var list = list([a])
        let changeset = list.apply(leaving: [Mood(text: "z")], entering: [])
        #expect(changeset.changes.isEmpty)
        #expect(list.count == 1)
    }

    /// Random changes (objects entering, leaving, or changing rating and text) from a seed: the
    /// changeset applied to what a screen showed gives the list, and the list is what sorting the
    /// objects from scratch gives.
    @Test(arguments: 0..<40)
    func randomChangesAppliedToTheShownListGiveTheListItself(seed: UInt64) throws {
        var random = SeededGenerator(state: seed)
        var members = (0..<Int.random(in: 0..<30, using: &random)).map { index in
            Mood(text: "m\(index)", rating: Int.random(in: 1...5, using: &random))
        }
        let sectioned = seed % 4 != 3
        var list = list(members, sectioned: sectioned)
        var screen = shown(list)
        for round in 0..<20 {
            var leaving: [Mood] = [], entering: [Mood] = []
            for mood in members.shuffled(using: &random).prefix(Int.random(in: 0..<6, using: &random)) {
                leaving.append(mood)
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    members.removeAll { $0 === mood }  // leaves
                case 1:
                    mood.rating = Int.random(in: 1...5, using: &random)
                    entering.append(mood)
                default:
                    // Unique, so that no two objects tie (ties keep the store's order, which a
                    // sort from scratch does not know).
                    mood.text = "r\(round)-\(mood.text)"
                    entering.append(mood)
                }
            }
            for index in 0..<Int.random(in: 0..<4, using: &random) {
                let mood = Mood(text: "n\(round)-\(index)", rating: Int.random(in: 1...5, using: &random))
                members.append(mood)
                entering.append(mood)
            }
            let changeset = list.apply(leaving: leaving, entering: entering)
            screen = try screen.applying(changeset)
            #expect(screen == shown(list), "seed \(seed), round \(round)")
            #expect(shown(list) == shown(self.list(members, sectioned: sectioned)), "seed \(seed), round \(round)")
        }
    }
}
