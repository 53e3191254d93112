import ArgumentParser
import IntervalProBlueZ
import IntervalProCore
import IntervalProEventLoop
import IntervalProIO
import IntervalProLaunch
import IntervalProRuntime

struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record live sensors to a file in the recording format, for replay later.",
        discussion: """
            Every notification is written as it arrives, so Ctrl-C, a crash or a power cut keeps \
            everything received until then. Stops after --duration, or on Ctrl-C.
            """
    )

    @Argument(help: ArgumentHelp("The recording to write (JSON Lines, recording format version 1).", valueName: "out.jsonl"))
    var output: String

    @Option(help: ArgumentHelp("Stop after this many seconds.", valueName: "seconds"))
    var duration: Double?

    @OptionGroup(title: "Live sensors") var sensors: SensorOptions

    @Option(help: "Cadence unit of the RSC devices, written into the header: steps, strides or auto.")
    var cadenceUnit: CadenceUnitArgument?

    func validate() throws {
        if let duration, !(duration > 0 && duration <= 86_400) {
            throw ValidationError("--duration must be more than 0 and at most 86400 seconds")
        }
    }

    func run() async throws {
        try await reportingFailures {
            let sensors: LiveSensorSet
            do {
                // Nothing waits on a recording's values in real time: acquired ones are read
                // once a second, each with its arrival time, which saves a wake-up per value.
                sensors = try await LiveSensorSet.connect(
                    self.sensors.request, cadenceUnit: cadenceUnit?.unit, coalescing: .seconds(1))
            } catch let unavailable as LiveSensorConnection.UnavailableError {
                throw LaunchError("\(unavailable)", kind: .unavailable)
            }
            let writer: RecordingWriter
            do throws(FileError) {
                let header = RecordingHeader(startedAt: WallClock.iso8601Now(), devices: sensors.devices)
                writer = try RecordingWriter(path: output, headerLine: RecordingLine.header(header))
            } catch {
                await sensors.stop()
                throw LaunchError(error)
            }
            InterruptSignal.install()
            if let interrupt = InterruptSignal.descriptor { sensors.wakeOnInput(interrupt, drain: InterruptSignal.drain) }
            let feed = sensors.feed
            feed.begin()
            let limit = duration.map(SessionTime.seconds)
            let progress = Terminal.standardErrorIsTerminal
            var counts: [String: Int] = [:]
            var failure: FileError?
            // On the sensors' loop: woken by a value, a notice, Ctrl-C, the end or the progress clock.
            try await sensors.run {
                var stopping = false
                var timeout: Duration? = .zero
                while !stopping {
                    await sensors.arrivals.wait(timeout: timeout)
                    stopping = InterruptSignal.take() || limit.map { feed.now >= $0 } ?? false
                    // The values of the window so far belong in the file before it closes.
                    if stopping { await sensors.readWaitingValues() }
                    let poll = feed.poll()
                    for notice in poll.notices { Terminal.writeStandardError("\(progress ? "\r\u{1B}[K" : "")intervalpro: \(notice)\n") }
                    do throws(FileError) {
                        let kept = poll.entries.filter { entry in limit.map { entry.time <= $0 } ?? true }
                        // One write for what arrived together.
                        try writer.write(lines: kept.map(RecordingLine.entry))
                        for case .notification(let n) in kept { counts[n.characteristicID, default: 0] += 1 }
                    } catch {
                        failure = error
                        break
                    }
                    if progress {
                        let received = counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: " · ")
                        Terminal.writeStandardError("\rrecording \(formatClock(poll.now.seconds))  \(received) ")
                    }
                    var wake: SessionTime? = progress ? .seconds((poll.now.seconds + 1).rounded(.down)) : nil
                    if let limit { wake = min(wake ?? limit, limit) }
                    timeout = wake.map { .microseconds(max(0, ($0 - poll.now).microseconds)) }
                }
            }
            if progress { Terminal.writeStandardError("\r\u{1B}[K") }
            await sensors.stop()
            do throws(FileError) { try writer.close() } catch { failure = failure ?? error }
            if let failure { throw LaunchError(failure) }
            let total = counts.values.reduce(0, +)
            Terminal.writeStandardError("intervalpro: recorded \(total) notifications to \(output)\n")
        }
    }
}
