import ArgumentParser
import IntervalProCore
import IntervalProIO
import IntervalProLaunch

struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record live sensors to a file in the recording format, for replay later.",
        discussion: """
            Notifications are read once a second and written at once, each with its arrival \
            time: Ctrl-C keeps everything received, and a crash or a power cut all but the last \
            second at most. Stops after --duration, or on Ctrl-C.
            """
    )

    @Argument(
        help: ArgumentHelp("The recording to write (JSON Lines, recording format version 1).", valueName: "out.jsonl"),
        completion: .file(extensions: ["jsonl"]))
    var output: String

    @Option(parsing: .unconditional, help: ArgumentHelp("Stop after this many seconds.", valueName: "seconds"))
    var duration: Double?

    @OptionGroup(title: "Live sensors") var sensors: SensorOptions<HeartRateAndCadence>

    @Option(help: "Cadence unit of the RSC devices, written into the header: steps, strides or auto.")
    var cadenceUnit: CadenceUnitArgument?

    func validate() throws {
        if let duration, !(duration > 0 && duration <= 86_400) {
            throw ValidationError("--duration must be more than 0 and at most 86400 seconds")
        }
    }

    func run() async throws {
        try await reportingFailures {
            // On a terminal a progress line is redrawn in place; a notice clears it first.
            let progress = ProgressLine()
            let total: Int
            do {
                total = try await LiveRecording.run(
                    sensors.request, to: output, duration: duration.map(SessionTime.seconds), cadenceUnit: cadenceUnit?.unit,
                    notice: {
                        progress.clear()
                        Terminal.writeStandardError("intervalpro: \($0)\n")
                    },
                    progress: progress.shown
                        ? { now, counts in
                            let received = counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
                            progress.draw("recording \(formatClock(now.seconds))  \(received.joined(separator: " · "))")
                        } : nil)
            } catch {
                progress.clear()
                throw error
            }
            progress.clear()
            // Values: the one-off reads (battery, sensor location) count with the notifications.
            Terminal.writeStandardError("intervalpro: recorded \(total) values to \(output)\n")
        }
    }
}
