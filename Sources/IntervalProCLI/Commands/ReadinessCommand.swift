import ArgumentParser

struct ReadinessCommand: AsyncParsableCommand {
    // ASCII only: the man page generator drops every other character ("mean  0.5 SD").
    static let configuration = CommandConfiguration(
        commandName: "readiness",
        abstract: "Morning HRV check: measure rMSSD with a chest strap, see it against your baseline.",
        usage: "intervalpro readiness [measure] [<options>]\nintervalpro readiness history|import|delete [<options>]",
        discussion: """
            Lie still with the strap on, just after waking. The first 30 s settle and are not \
            scored; then --duration minutes of RR intervals are corrected for artifacts \
            (Lipponen & Tarvainen 2019) and give rMSSD. Your baseline is the 7-day mean of ln \
            rMSSD, judged against your own 60-day normal range (mean +/- 0.5 SD).

            Without a subcommand it measures: its options (--hr, --replay, --duration, \
            --upload, ...) are measure's, in 'intervalpro help readiness measure'.
            """,
        subcommands: [ReadinessMeasureCommand.self, ReadinessHistoryCommand.self, ReadinessImportCommand.self, ReadinessDeleteCommand.self],
        defaultSubcommand: ReadinessMeasureCommand.self
    )
}
