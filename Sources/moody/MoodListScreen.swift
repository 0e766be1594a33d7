import Foundation
import MoodyModel
import ObjectGraph

/// A terminal list of moods in sections by country, kept by a ``ListMonitor``: what a table view does
/// with the monitor's callbacks, in text. It never fetches: each change it is told of is applied to
/// the lines it shows, and the screen is drawn from the monitor's sections.
@MainActor final class MoodListScreen: @MainActor ListSectionObserver {
    /// What the screen does with each change: prints it (the demo), or redraws the whole list (watch).
    enum Style {
        case changes
        case live(clearsScreen: Bool)
    }

    let monitor: ListMonitor<Mood>
    private let style: Style
    private var changeLines: [String] = []
    private(set) var redraws = 0
    /// Lines drawn under the list, such as the sync's status.
    var statusLines: [String] = []

    /// The moods not marked for deletion, in sections by country name, by text within a section.
    static func monitor(in context: ObjectContext) throws -> ListMonitor<Mood> {
        try context.monitorSectionedList(
            Mood.self, sectionBy: SectionBy(\.country?.name) { $0 ?? "No country" },
            sortBy: [SortDescriptor(\.country?.name), SortDescriptor(\.text)])
    }

    init(_ monitor: ListMonitor<Mood>, style: Style) {
        self.monitor = monitor
        self.style = style
        monitor.addObserver(self)
    }

    func listMonitorWillChange(_ monitor: ListMonitor<Mood>) {
        changeLines = []
    }

    func listMonitor(_ monitor: ListMonitor<Mood>, didInsertObject object: Mood, toIndexPath indexPath: IndexPath) {
        changeLines.append("insert '\(object.text)' at \(Self.describe(indexPath))")
    }

    func listMonitor(_ monitor: ListMonitor<Mood>, didDeleteObject object: Mood, fromIndexPath indexPath: IndexPath) {
        changeLines.append("delete '\(object.text)' from \(Self.describe(indexPath))")
    }

    func listMonitor(_ monitor: ListMonitor<Mood>, didUpdateObject object: Mood, atIndexPath indexPath: IndexPath) {
        changeLines.append("update '\(object.text)' at \(Self.describe(indexPath))")
    }

    func listMonitor(_ monitor: ListMonitor<Mood>, didMoveObject object: Mood, fromIndexPath: IndexPath, toIndexPath: IndexPath) {
        changeLines.append("move '\(object.text)' from \(Self.describe(fromIndexPath)) to \(Self.describe(toIndexPath))")
    }

    func listMonitor(_ monitor: ListMonitor<Mood>, didInsertSection section: ListSection<Mood>, toSectionIndex sectionIndex: Int) {
        changeLines.append("insert section '\(section.name ?? "")' at \(sectionIndex)")
    }

    func listMonitor(_ monitor: ListMonitor<Mood>, didDeleteSection section: ListSection<Mood>, fromSectionIndex sectionIndex: Int) {
        changeLines.append("delete section '\(section.name ?? "")' from \(sectionIndex)")
    }

    func listMonitorDidChange(_ monitor: ListMonitor<Mood>) {
        switch style {
        case .changes:
            for line in changeLines { print("    \(line)") }
        case .live(let clearsScreen):
            draw(clearsScreen: clearsScreen, footer: changeLines)
        }
    }

    func listMonitorDidRefetch(_ monitor: ListMonitor<Mood>) {
        if case .live(let clearsScreen) = style { draw(clearsScreen: clearsScreen, footer: ["(fetched again)"]) }
    }

    /// Draws the list from the monitor's sections, with the last changes under it.
    func draw(clearsScreen: Bool, footer: [String]) {
        redraws += 1
        var text = clearsScreen ? "\u{1B}[2J\u{1B}[H" : "\n"
        text += "Moods by country (\(monitor.count)), drawn from the monitor's changes:\n"
        for section in monitor.sections {
            text += "  \(section.name ?? "") (\(section.objects.count))\n"
            for mood in section.objects {
                text += "    \(String(repeating: "★", count: max(0, min(mood.rating, 5)))) \(mood.text)\n"
            }
        }
        for line in statusLines { text += line + "\n" }
        if !footer.isEmpty { text += "  last change: " + footer.joined(separator: "; ") + "\n" }
        print(text, terminator: "")
        fflush(nil)  // drawn now, also when the output is a pipe
    }

    private static func describe(_ indexPath: IndexPath) -> String {
        "[\(indexPath[0]), \(indexPath[1])]"
    }
}
