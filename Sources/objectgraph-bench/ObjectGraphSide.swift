import Foundation
import ObjectGraph

/// The dataset through ObjectGraph, the way an app would write and read it.
enum ObjectGraphSide {
    static func openContainer(at path: String) throws -> ObjectContainer {
        let container = try ObjectContainer(for: Mood.self, configuration: .file(path))
        openContainers.append(WeakContainer(container: container))
        return container
    }

    private struct WeakContainer { weak var container: ObjectContainer? }
    /// The containers the workloads opened; only the benchmark's main thread touches it.
    nonisolated(unsafe) private static var openContainers: [WeakContainer] = []

    /// Waits, untimed, for what the stores' writers still do after a run: a large commit leaves its
    /// checkpoint (the copy of the write-ahead log into the database file) queued on the writer, and
    /// it must not run into the next contender's time. A batch update that matches nothing waits in
    /// the writer's queue behind it.
    static func settle() throws {
        openContainers.removeAll { $0.container == nil }
        for container in openContainers.compactMap(\.container) {
            try container.newBackgroundContext().batchUpdate(
                Mood.self, where: #Predicate { _ in false }, set: [.set(\.rating, to: 3)])
        }
    }

    /// Inserts moods `range` of the dataset in one save, creating the continent and countries first if
    /// there are none.
    static func insert(_ range: Range<Int>, of dataset: Dataset, into container: ObjectContainer) throws {
        let context = container.newBackgroundContext()
        // Marked countries too: the dataset marks every mood of some countries, and Moody marks those.
        var countries = try context.fetch(FetchDescriptor<Country>(includesMarkedForDeletion: true)).map { $0 }
        if countries.isEmpty {
            let continent = Continent(name: Dataset.continentName)
            countries = (0..<dataset.countryCount).map { Country(name: dataset.countryName($0), continent: continent) }
            for country in countries { context.insert(country) }
        } else {
            let byName = Dictionary(uniqueKeysWithValues: countries.map { ($0.name, $0) })
            countries = (0..<dataset.countryCount).compactMap { byName[dataset.countryName($0)] }
        }
        for index in range {
            let mood = Mood(
                text: dataset.text(index), rating: dataset.rating(index), date: dataset.date(index),
                country: countries[dataset.countryIndex(index)])
            mood.remoteIdentifier = dataset.remoteIdentifier(index)
            mood.markedForDeletionDate = dataset.markedForDeletionDate(index)
            context.insert(mood)
        }
        try context.save()
    }

    /// Checks what a deletion left in the store.
    static func verifyCounts(in container: ObjectContainer, continents: Int, countries: Int, moods: Int) throws {
        let context = container.newBackgroundContext()
        try WorkloadError.check(
            "continents", try context.fetchCount(FetchDescriptor<Continent>(includesMarkedForDeletion: true)), continents)
        try WorkloadError.check("countries", try context.fetchCount(FetchDescriptor<Country>(includesMarkedForDeletion: true)), countries)
        try WorkloadError.check("moods", try context.fetchCount(FetchDescriptor<Mood>(includesMarkedForDeletion: true)), moods)
    }

    static func consume(_ mood: Mood) {
        Sink.consume(mood.text, mood.rating, mood.date, mood.remoteIdentifier, mood.markedForDeletionDate)
    }
}
