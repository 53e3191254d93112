import ArgumentParser
import IntervalProCore
import IntervalProHRV
import IntervalProLaunch
import IntervalProStorage

struct ReadinessHistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List readiness measurements, oldest first, with today's verdict."
    )

    @Option(help: "Show at most this many measurements (the latest).")
    var limit: Int = 30

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var store: StoreOptions

    func validate() throws {
        guard limit > 0 else { throw ValidationError("--limit must be at least 1") }
    }

    func run() async throws {
        try await reportingFailures {
            let opened = try store.open(readingOnly: true)
            let records = try storeCall { () throws(StoreError) in try opened.readinessRecords(limit: limit) }
            if json {
                print(JSONValue.array(records.map { .object(ReadinessJSON.measurement($0)) }).serialized(pretty: true))
                return
            }
            guard !records.isEmpty else {
                print("No readiness measurements saved yet. `intervalpro readiness` takes one.")
                return
            }
            let rows = records.map { r -> [String] in
                let f = r.figures
                return [
                    "\(r.id ?? 0)", r.localDate, HistoryCommand.displayDate(r.takenAt).suffix(5).description,
                    HistoryCommand.figure(f.hrv.rmssd, 1), HistoryCommand.figure(f.hrv.lnRMSSD, 2),
                    HistoryCommand.figure(f.hrv.meanHeartRate), "\(f.beatsReceived)", "\(f.artifactsCorrected)", r.source.rawValue,
                ]
            }
            print(
                TextTable.render(
                    header: ["id", "date", "UTC", "rMSSD", "ln", "HR", "beats", "fixed", "source"], rows: rows,
                    rightAligned: [0, 3, 4, 5, 6, 7]
                ).joined(separator: "\n"))
            if let latest = records.last {
                let since = ReadinessBaseline.windowStart(today: latest.localDate) ?? latest.localDate
                let window = try storeCall { () throws(StoreError) in try opened.readinessRecords(since: since) }
                let assessment = ReadinessBaseline.assess(
                    window.map { ReadinessBaseline.Measurement(date: $0.localDate, lnRMSSD: $0.figures.hrv.lnRMSSD) },
                    today: latest.localDate)
                print("\(latest.localDate): \(assessment.summary); \(assessment.advice)")
            }
        }
    }
}
