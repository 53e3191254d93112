import ArgumentParser
import IntervalProCore
import IntervalProIO
import IntervalProLaunch
import IntervalProStorage

struct HistoryImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import the runs a watch recorded: a FIT, TCX or GPX file, a folder, or an export archive.",
        discussion: """
            PATH is an activity file (gzipped or not), a folder (read at any depth), or a zip archive: \
            a Strava bulk export, a Garmin Connect export (zips inside a zip) or any mix. Each \
            running activity becomes a session (source "imported", the watch's start time, no plan: \
            its cadence, heart rate and distance), listed by `history` and drawn by `trends` and \
            `report`. An activity imported before (same start time, same device) is skipped, so \
            importing again adds nothing. Other sports and files that hold no activity are left out; \
            a damaged file is read up to the damage, as `replay` reads it. Exits 65 when PATH holds \
            activity files and none could be read.
            """
    )

    @Argument(help: "An activity file, a folder, or a zip archive.", completion: .file())
    var path: String

    @Flag(help: "Print what was imported and skipped as JSON.")
    var json = false

    @OptionGroup var store: StoreOptions

    func run() async throws {
        try await reportingFailures {
            let store = try store.open()
            let showsProgress = Terminal.standardErrorIsTerminal
            let report = try HistoryImport.run(path, into: store) { done, total in
                guard showsProgress else { return }
                Terminal.writeStandardError("\r\u{1B}[KImporting: \(done) of \(total) files")
            }
            if showsProgress { Terminal.writeStandardError("\r\u{1B}[K") }
            if json {
                print(Self.json(report).serialized(pretty: true))
            } else {
                print(Self.text(report, path: path).joined(separator: "\n"))
            }
            if report.imported.isEmpty, report.duplicates.isEmpty, report.notRuns.isEmpty, !report.unreadable.isEmpty {
                throw ExitCode(ExitStatus.dataError.rawValue)
            }
        }
    }

    static func json(_ report: HistoryImport.Report) -> JSONValue {
        func skipped(_ list: [HistoryImport.Skipped]) -> JSONValue {
            .array(list.map { .object([("file", .string($0.file)), ("reason", .string($0.reason))]) })
        }
        return .object([
            ("files_read", .int(report.filesRead)),
            ("imported", .array(report.imported.map { .int(Int($0)) })),
            ("duplicates", skipped(report.duplicates)),
            ("not_runs", skipped(report.notRuns)),
            ("unreadable", skipped(report.unreadable)),
            ("other_files", .int(report.otherFiles)),
            ("warnings", .array(report.warnings.map { .string($0) })),
        ])
    }

    /// The summary: counts first, then what went wrong, file by file (the first few of each).
    static func text(_ report: HistoryImport.Report, path: String) -> [String] {
        func count(_ n: Int, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }
        var lines = [
            "Imported \(count(report.imported.count, "run", "runs")) from \(path) (\(count(report.filesRead, "file", "files")) read)."
        ]
        if !report.duplicates.isEmpty { lines.append("Skipped \(count(report.duplicates.count, "run", "runs")) imported before.") }
        if !report.notRuns.isEmpty {
            var sports: [String: Int] = [:]
            for skipped in report.notRuns { sports[skipped.reason, default: 0] += 1 }
            let list = sports.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
            lines.append("Left out \(count(report.notRuns.count, "activity", "activities")) of other sports: \(list) (`replay --sport any` reads one).")
        }
        if report.otherFiles > 0 { lines.append("Left out \(count(report.otherFiles, "file", "files")) that hold no activity.") }
        if !report.unreadable.isEmpty {
            lines.append("Could not read \(count(report.unreadable.count, "file", "files")):")
            lines += report.unreadable.prefix(10).map { "  \($0.file): \($0.reason)" }
            if report.unreadable.count > 10 { lines.append("  … and \(report.unreadable.count - 10) more (--json lists them all)") }
        }
        if !report.warnings.isEmpty {
            lines.append("Read with \(count(report.warnings.count, "warning", "warnings")):")
            lines += report.warnings.prefix(10).map { "  \($0)" }
            if report.warnings.count > 10 { lines.append("  … and \(report.warnings.count - 10) more (--json lists them all)") }
        }
        if !report.imported.isEmpty { lines.append("See them with `intervalpro history` and `intervalpro trends --weeks 52`.") }
        return lines
    }
}
