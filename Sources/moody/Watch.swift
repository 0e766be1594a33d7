import ArgumentParser
import Foundation
import MoodyModel
import ObjectGraph

/// `moody watch`: the moods by country, live in the terminal, redrawn from the list monitor's
/// changes, whoever makes them: another process (`moody add` in another terminal) or `--simulate`.
struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the moods by country, live, redrawn from the list monitor's changes.",
        discussion: """
            Change the store from another terminal (moody add "Happy" --country France, moody delete ID) \
            and the list follows, without fetching again. --simulate makes the changes itself.
            """)
    @OptionGroup var options: StoreOption
    @Option(help: "Make this many random changes from a background context, then stop.") var simulate: Int?
    @Option(help: "Seconds between simulated changes.") var interval = 1.0

    @MainActor func run() async throws {
        let container = try options.open()
        let screen = MoodListScreen(
            try MoodListScreen.monitor(in: container.viewContext),
            style: .live(clearsScreen: isatty(STDOUT_FILENO) != 0))
        screen.draw(clearsScreen: isatty(STDOUT_FILENO) != 0, footer: [])
        guard let simulate else {
            print(
                "Watching \(options.store): change it from another terminal (moody add \"Happy\" --country France). "
                    + "Ctrl-C stops.")
            fflush(nil)
            while true { try await Task.sleep(for: .seconds(3_600)) }
        }
        for step in 0..<simulate {
            try await Task.sleep(for: .seconds(interval))
            let merged = container.viewContext.objectsDidChangeNotifications
            try await container.performBackgroundTask { sync in try SimulatedSync.makeChange(in: sync, step: step) }
            for await _ in merged { break }  // the view context merged it on the main actor
        }
        print("Made \(simulate) changes; the list was drawn \(screen.redraws) times from the monitor's changes.")
    }
}

/// Random edits, as a sync would bring them: a new mood, a renamed or re-rated one, a deletion.
enum SimulatedSync {
    private static let countries = ["France", "Spain", "Italy", "Japan"]
    private static let words = ["Sunny", "Rainy", "Calm", "Busy", "Happy", "Tired", "Lazy", "Bright"]

    static func makeChange(in context: ObjectContext, step: Int) throws {
        var random = SystemRandomNumberGenerator()
        let moods = try context.fetch(FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.text)]))
        let target = moods.randomElement(using: &random)
        switch moods.count < 4 ? 0 : Int.random(in: 0..<4, using: &random) {
        case 1: target?.text = "\(words.randomElement(using: &random) ?? "Calm") \(step)"
        case 2: target?.rating = Int.random(in: 1...5, using: &random)
        case 3: if let target { context.delete(target) }
        default:
            let name = countries.randomElement(using: &random) ?? "France"
            let country =
                try context.fetch(FetchDescriptor<Country>(predicate: #Predicate { $0.name == name })).first
                ?? Country(name: name)
            context.insert(
                Mood(
                    text: "\(words.randomElement(using: &random) ?? "Calm") \(step)",
                    rating: Int.random(in: 1...5, using: &random), country: country))
        }
        try context.save()
    }
}
