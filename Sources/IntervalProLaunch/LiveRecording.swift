public import IntervalProCore
import IntervalProBlueZ
import IntervalProEventLoop
import IntervalProIO
import IntervalProRuntime

/// Live sensors written to a recording as they arrive (`record`): every batch of values is
/// one write, so Ctrl-C, a crash or a power cut keeps everything received until then.
public enum LiveRecording {
    /// Records until `duration` (session time) or Ctrl-C. `notice` hears what the sensors say
    /// (a sensor lost, reconnecting); `progress`, when given, hears the time and the values
    /// so far by characteristic, about once a second. Returns how many notifications were
    /// written.
    public static func run(
        _ request: SensorRequest, to path: String, duration: SessionTime?, cadenceUnit: CadenceUnit?,
        notice: (String) -> Void, progress: ((SessionTime, [String: Int]) -> Void)?
    ) async throws -> Int {
        do throws(FileError) { try RecordingWriter.checkTarget(path) } catch { throw LaunchError(error) }
        let sensors: LiveSensorSet
        // Start-up is over: its pages go back before the sensors need theirs.
        CodePages.giveBack()
        do {
            // Nothing waits on a recording's values in real time: acquired ones are read
            // once a second, each with its arrival time, which saves a wake-up per value.
            sensors = try await LiveSensorSet.connect(
                request, cadenceUnit: cadenceUnit, coalescing: .seconds(1), interrupt: .ctrlC())
        } catch let unavailable as LiveSensorConnection.UnavailableError {
            throw LaunchError("\(unavailable)", kind: .unavailable)
        } catch is LiveSensorConnection.InterruptedError {
            throw LaunchError("stopped while connecting to the sensors; nothing was recorded", kind: .cancelled)
        }
        let writer: RecordingWriter
        do throws(FileError) {
            let header = RecordingHeader(startedAt: WallClock.iso8601Now(), devices: sensors.devices)
            writer = try RecordingWriter(path: path, headerLine: RecordingLine.header(header))
            writer.syncsEachSecond = true
        } catch {
            await sensors.stop()
            throw LaunchError(error)
        }
        InterruptSignal.install()
        if let interrupt = InterruptSignal.descriptor { sensors.wakeOnInput(interrupt, drain: InterruptSignal.drain) }
        let feed = sensors.feed
        feed.begin()
        var counts: [String: Int] = [:]
        var failure: FileError?
        // On the sensors' loop: woken by a value, a notice, Ctrl-C, the end or the progress clock.
        try await sensors.run {
            var stopping = false
            var timeout: Duration? = .zero
            while !stopping {
                await sensors.arrivals.wait(timeout: timeout)
                stopping = InterruptSignal.take() || duration.map { feed.now >= $0 } ?? false
                // The values of the window so far belong in the file before it closes.
                if stopping { await sensors.readWaitingValues() }
                let poll = feed.poll()
                for text in poll.notices { notice(text) }
                do throws(FileError) {
                    let kept = poll.entries.filter { entry in duration.map { entry.time <= $0 } ?? true }
                    // One write for what arrived together.
                    let wasHeld = writer.isHeldByFullDisk
                    try writer.write(lines: kept.map(RecordingLine.entry))
                    try writer.keep(through: poll.now.seconds)
                    if let news = writer.fullDiskNews(wasHeld: wasHeld) { notice(news) }
                    for case .notification(let n) in kept { counts[n.characteristicID, default: 0] += 1 }
                } catch {
                    failure = error
                    break
                }
                progress?(poll.now, counts)
                var wake: SessionTime? = progress != nil ? .seconds((poll.now.seconds + 1).rounded(.down)) : nil
                if let duration { wake = min(wake ?? duration, duration) }
                timeout = wake.map { .microseconds(max(0, ($0 - poll.now).microseconds)) }
            }
        }
        await sensors.stop()
        do throws(FileError) { try writer.close() } catch { failure = failure ?? error }
        if let failure { throw LaunchError(failure) }
        return counts.values.reduce(0, +)
    }
}
