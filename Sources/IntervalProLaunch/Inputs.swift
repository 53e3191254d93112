public import IntervalProCore
public import IntervalProFormats
public import IntervalProIO
import Logging

/// An error the user can act on, named by what failed: a line of text and its kind. The
/// command line turns the kind into an exit status and the web page into an HTTP status,
/// each in one place; the library knows neither.
public struct LaunchError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// The request itself is wrong: an option, a combination of them.
        case usage
        /// A file, a plan or an answer is not what it should be.
        case invalidData
        /// A file or a thing asked for is not there.
        case missingInput
        /// A device, a service or a directory cannot be used now.
        case unavailable
        /// Something that should not happen did.
        case internalError
        /// Reading or writing failed.
        case io
        /// A service refused the credential, or there is none.
        case refused
        /// Stopped by the runner before there was anything to keep.
        case cancelled
        /// Standard output's reader went away (`| head`, a pager quit): nothing more is
        /// written, and there is no one to tell.
        case outputClosed
    }

    public var message: String
    public var kind: Kind

    public init(_ message: String, kind: Kind) {
        self.message = message
        self.kind = kind
    }

    public init(_ error: FileError) {
        // Only a file we were asked to read is missing input, when it is not there (a loop of
        // links, a file as a folder, a name too long: no file either), may not be read or is a
        // folder (sysexits' EX_NOINPUT: "did not exist or was not readable"); an output we
        // cannot create is I/O.
        let missingInput =
            (error.namesNoFile || error.isPermissionDenied || error.isFolder) && (error.operation == .open || error.operation == .read)
        let outputClosed = error.errno.isBrokenPipe && error.operation == .write
        self.init(error.description, kind: missingInput ? .missingInput : outputClosed ? .outputClosed : .io)
    }

    public var description: String { message }
}

/// Writes a file the user asked for (an export, a report, a plan), or says why it cannot be.
/// Writes a command's file: `-` is standard output, as for any Unix tool (it wrote a file
/// named "-").
public func writeOutput(_ bytes: [UInt8], to path: String, readingFrom inputs: [String] = []) throws {
    do {
        let output = try openOutput(path, readingFrom: inputs)
        try output.write(bytes)
        try output.commit()
    } catch {
        throw LaunchError(error)
    }
}

/// A command's file to write, put in place by `commit`: `-` is standard output. Never one
/// of `inputs`, the files the command reads.
func openOutput(_ path: String, readingFrom inputs: [String] = []) throws(FileError) -> FileIO.Replacement {
    path == "-" ? try FileIO.Replacement(standardOutput: ()) : try FileIO.Replacement(path, readingFrom: inputs)
}

/// Reads a file a command was given: `-` is standard input.
public func readInput(_ path: String) throws -> [UInt8] {
    do {
        return try path == "-" ? FileIO.readStandardInput() : FileIO.readAll(path)
    } catch {
        throw LaunchError(error)
    }
}

/// Reads a plan from any format `WorkoutImport` recognises (plan JSON, intervals.icu text,
/// Zwift .zwo, FIT workout); warnings about what was left out go to stderr.
public func importPlan(_ path: String) throws -> ImportedPlan {
    try readPlan(path).imported
}

/// The plan at `path` and the bytes it was read from: read once, since a plan on standard
/// input cannot be read again.
private func readPlan(_ path: String) throws -> (imported: ImportedPlan, bytes: [UInt8]) {
    let path = resolvePlan(path)
    let bytes = try withExampleNamed(
        path, kind: "plan", extension: ".json", found: BundledFiles.plan(named:), folder: ("Plans", BundledFiles.plansDirectory)
    ) {
        try readInput(path)
    }
    do {
        let imported = try WorkoutImport.read(bytes, file: path, xml: MarkupReader.read)
        for warning in imported.warnings { logger.warning("\(warning)") }
        return (imported, bytes)
    } catch {
        throw LaunchError(error.description, kind: .invalidData)
    }
}

public func loadPlan(_ path: String) throws -> Plan { try importPlan(path).plan }

/// A plan argument as a file: itself when it exists, else an example plan of that name.
public func resolvePlan(_ argument: String) -> String {
    BundledFiles.exists(argument) ? argument : BundledFiles.plan(named: argument) ?? argument
}

/// Reads a plan and the plan-format text the history keeps with a session: the file itself
/// when it is a plan, the imported plan written as one otherwise.
public func loadPlanKeepingText(_ path: String) throws -> (plan: Plan, text: String) {
    let (imported, bytes) = try readPlan(path)
    if imported.format == .planJSON { return (imported.plan, String(decoding: Windows1252.utf8UnlessDamagedUTF8(bytes), as: UTF8.self)) }
    return (imported.plan, PlanWriter.json(imported.plan).serialized(pretty: true) + "\n")
}

/// Reads a recording, or a FIT, TCX or GPX activity as one (by content): as it is, gzipped, or
/// the one such file in a zip archive. Warnings go to stderr. `choice` says how to read an
/// activity: a damaged FIT file, a leg of a multisport one, a sport that is not running.
public func loadRecording(_ path: String, choice: ActivityChoice = .init()) throws -> ParsedRecording {
    let path = BundledFiles.exists(path) || path == "-" ? path : BundledFiles.recording(named: path) ?? path
    let (bytes, file) = try withExampleNamed(
        path, kind: "recording", extension: ".jsonl", found: BundledFiles.recording(named:),
        folder: ("Recordings", BundledFiles.recordingsDirectory)
    ) {
        try loadedRecordingBytes(path, choice: choice)
    }
    return try readRecording(bytes, file: file, choice: choice)
}

/// Writes `recording` to a recording file, never over one that holds something: `replay FILE
/// --record OUT` without a plan, what the source delivered (a watch's activity as the
/// recording format). `--record` was passed over there without a word, and nothing written.
public func writeRecording(_ recording: ParsedRecording, to path: String) throws {
    do throws(FileError) {
        let writer = try RecordingWriter(path: path, headerLine: RecordingLine.header(recording.header))
        try writer.write(lines: recording.entries.map(RecordingLine.entry))
        try writer.close()
    } catch {
        throw LaunchError(error)
    }
}

/// `read`, and when the file is not there but IntervalPro ships an example of its name
/// (`Plans/cadence-ladder.json` typed outside a clone), the name to give instead.
private func withExampleNamed<T>(
    _ path: String, kind: String, extension suffix: String, found: (String) -> String?,
    folder: (name: String, find: () -> String?), _ read: () throws -> T
) throws -> T {
    do {
        return try read()
    } catch var failure as LaunchError where failure.kind == .missingInput && !BundledFiles.exists(path) {
        let file = path.split(separator: "/").last.map(String.init) ?? path
        let name = file.hasSuffix(suffix) ? String(file.dropLast(suffix.count)) : file
        if name != path, found(name) != nil { failure.message += "; the example \(kind) of that name is given by its name alone: \(name)" }
        // A bare name, where no example could be looked for: a binary copied out of its
        // checkout or install said only "No such file or directory" of `pyramid`.
        if !path.contains("/"), folder.find() == nil {
            failure.message += "; no example \(kind)s were found either (they are in \(folder.name)/ of a checkout, or "
                + "share/intervalpro/\(folder.name) of an install; INTERVALPRO_\(folder.name.uppercased()) names another folder)"
        }
        throw failure
    }
}

/// A recording's bytes as they are, gunzipped, or from the one activity in a zip archive.
private func loadedRecordingBytes(_ path: String, choice: ActivityChoice) throws -> (bytes: [UInt8], file: String) {
    try holdsZip(path) ? zippedActivity(path) : unpacked(try readInput(path), path: path, choice: choice)
}

/// Whether the file at `path` starts as a zip archive does; throws when it cannot be opened.
/// A pipe (`<(zcat …)`) is never taken for one: its first bytes, once read, would be gone.
func holdsZip(_ path: String) throws -> Bool {
    // Standard input is a pipe or a terminal as often as a file.
    guard path != "-" else { return false }
    do {
        guard FileIO.isRegularFile(path) else {
            // A named pipe or a device is read once, never opened to look first: a pipe's
            // writer went with that first open, and the read after it waited for good.
            if FileIO.isStream(path) { return false }
            // Opened only, so that a missing file is said here as it would be when read.
            _ = try FileIO.readPrefix(path, count: 0)
            return false
        }
        return Zip.isZip(try FileIO.readPrefix(path, count: 4))
    } catch {
        throw LaunchError(error)
    }
}

/// What a file read into memory holds, and the name its errors give it: "PATH (inflated)" for
/// a gzip file's content, "PATH (ENTRY)" for a zip entry, whose lines and bytes they count.
private func unpacked(_ bytes: [UInt8], path: String, choice: ActivityChoice) throws -> (bytes: [UInt8], file: String) {
    if Gzip.isGzip(bytes) {
        // A copy cut short keeps what it holds before the cut, unless --strict: a recording
        // reads to its last whole line, a FIT file to its last whole message.
        let salvage: (content: [UInt8], damage: Gzip.InflateError?)
        do {
            salvage = try Gzip.inflateSalvaging(bytes)
        } catch {
            throw LaunchError("\(path): a gzip file that cannot be inflated: \(error.message)", kind: .invalidData)
        }
        let content = salvage.content
        if let damage = salvage.damage {
            guard !choice.strict else {
                throw LaunchError("\(path): a gzip file that cannot be inflated: \(damage.message)", kind: .invalidData)
            }
            // A recording cut there ends in a line cut in two, which `readActivity` reads as a
            // crash leaves one.
            logger.warning(
                "\(path): a gzip file that cannot be inflated whole: \(damage.message); reading the \(content.count) bytes before it (`replay --strict` refuses the file)")
        }
        return (content, "\(path) (inflated)")
    }
    guard Zip.isZip(bytes) else { return (bytes, path) }
    // A zip archive through a pipe: read into memory, since a pipe cannot be mapped.
    return try bytes.withUnsafeBytes { archive in try oneActivity(in: archive, path: path) }
}

/// The one activity or recording in a zip archive (as Garmin Connect's "Export Original" hands
/// one out), and the name its errors give it, "PATH (ENTRY)". The archive is mapped, not read
/// into memory: a whole Strava export given by mistake is said to hold many activities without
/// holding them all.
private func zippedActivity(_ path: String) throws -> (bytes: [UInt8], file: String) {
    let archive: MappedFile
    do {
        archive = try MappedFile(path)
    } catch {
        throw LaunchError(error)
    }
    return try oneActivity(in: archive.bytes, path: path)
}

/// The one activity or recording among the files of `archive`, a zip archive read from `path`.
private func oneActivity(in archive: UnsafeRawBufferPointer, path: String) throws -> (bytes: [UInt8], file: String) {
    let files: [Zip.Entry]
    var first: (bytes: [UInt8], file: String)?
    var activityNames: [String] = []
    do {
        files = try Zip.entries(archive).filter { !$0.isFolderOrMacResource }
        for entry in files where !entry.isLargerThanAnyActivity {
            var content = try Zip.contents(of: entry, in: archive)
            var file = "\(path) (\(entry.name))"
            if Gzip.isGzip(content), let inflated = try? Gzip.inflate(content) {
                content = inflated
                file = "\(path) (\(entry.name), inflated)"
            }
            guard holdsActivityOrRecording(content) else { continue }
            activityNames.append(entry.name)
            if first == nil { first = (content, file) }
        }
    } catch {
        throw LaunchError("\(path): a zip file that cannot be read: \(error.message)", kind: .invalidData)
    }
    guard activityNames.count == 1, let first else {
        func listed(_ names: [String]) -> String { names.prefix(5).joined(separator: ", ") + (names.count > 5 ? ", …" : "") }
        let message =
            switch (activityNames.count, files.count) {
            case (0, 0): "\(path): an empty zip file: no activity or recording in it"
            case (0, let count): "\(path): a zip file with no activity or recording in it (\(count) file\(count == 1 ? "" : "s"): \(listed(files.map(\.name))))"
            // Its activities, not its other files (an export's activities.csv and photos).
            default: "\(path): a zip file with \(activityNames.count) activities (\(listed(activityNames))): unzip it and replay one"
            }
        throw LaunchError(message, kind: .invalidData)
    }
    return first
}

/// Whether `bytes` look like something `readActivity` reads: a FIT file, XML, or a
/// recording's header line; anything else (RR intervals as text too: beats, not a run) is
/// another kind of file.
func holdsActivityOrRecording(_ bytes: [UInt8]) -> Bool {
    switch ActivityImport.encoding(of: bytes) {
    case .fit, .markup: true
    case .recording: RecordingFormat.begins(bytes)
    case .rrIntervalText, .other: false
    }
}

private func readRecording(_ bytes: [UInt8], file path: String, choice: ActivityChoice) throws -> ParsedRecording {
    do {
        let activity = try readActivity(bytes, file: path, choice: choice)
        for warning in activity.warnings { logger.warning("\(warning)") }
        return activity.recording
    } catch let problem as ImportError {
        throw LaunchError(problem.description, kind: .invalidData)
    } catch let error as RecordingError {
        throw LaunchError(error.description, kind: .invalidData)
    }
}

/// An activity as `history import` keeps it: a recording's runner commands are the run's
/// pauses, as a watch's timer stops are (an export kept its pauses so, and came back as a
/// second run, the paused minutes "no signal"). `replay` gives them as commands instead.
func readRunToKeep(_ bytes: [UInt8], file path: String, choice: ActivityChoice) throws -> ImportedActivity {
    var activity = try readActivity(bytes, file: path, choice: choice)
    guard activity.format == .recording else { return activity }
    (activity.recording.entries, activity.pauses, activity.finishedAt) = activity.recording.runnerPausesApart
    return activity
}

/// A recording, or a FIT, TCX or GPX activity read as one (by content), with what was said
/// about it. Throws `ImportError` or `RecordingError`.
func readActivity(_ bytes: [UInt8], file path: String, choice: ActivityChoice) throws -> ImportedActivity {
    var activity: ImportedActivity
    // An empty .gpx was "empty recording: no header line" to `replay`, and said as a GPX by `history import`.
    if !choice.heartRateOnly, ActivityImport.holdsNothing(bytes), let format = HistoryImport.statedFormat(of: path) {
        throw ImportError(file: path, message: "named as a \(format) activity, but the file is empty")
    }
    switch ActivityImport.encoding(of: bytes) {
    case .recording where choice.heartRateOnly && ActivityImport.holdsNothing(bytes):
        // For a morning, an empty file is as likely RR text as a recording: said plainly.
        throw ImportError(file: path, message: "the file is empty: no beats in it")
    case .recording:
        // A recording interrupted as it was written (a crash, a pulled plug) keeps its whole
        // lines, as a FIT file cut short keeps its whole messages.
        let recording: ParsedRecording
        do {
            recording = try RecordingParser.read(bytes, file: path, acceptingCutLastLine: !choice.strict)
        } catch {
            // A plan is JSON too: said for what it is, as `plan check` says a recording is one.
            if (try? PlanDecoder.decode(bytes, file: path)) != nil {
                throw ImportError(
                    file: path,
                    message: "a plan, not a recording: run it with `intervalpro run \(path)`, or score a recording against it with `intervalpro replay RECORDING --plan \(path)`")
            }
            throw error
        }
        let warnings = recording.cutLastLine.map { cut in
            ImportError(
                file: path, place: "\(cut.line)",
                message: "the last line is cut short (\(cut.message)): the recording was interrupted as it was written; "
                    + "read the \(cut.line - 1) lines before it (`replay --strict` refuses the file)")
        }
        return ImportedActivity(
            recording: recording, format: .recording, points: recording.entries.count, warnings: warnings.map { [$0] } ?? [])
    case .other:
        throw ImportError(
            file: path, message: "not a recording, a FIT, TCX or GPX activity, nor RR intervals as text: \(ActivityImport.opening(bytes))")
    case .rrIntervalText:
        // Beats without steps: a morning measurement's, not a run to replay or keep.
        guard choice.heartRateOnly else {
            throw ImportError(
                file: path,
                message: "RR intervals (beat-to-beat times, as HRV apps export them), not an activity: `intervalpro readiness --replay \(path)` measures from them",
                kind: .notAnActivity)
        }
        let intervals = try RRIntervalText.read(bytes, file: path)
        let recording = RRIntervalText.recording(intervals, startedAt: RRIntervalText.timeWritten(bytes))
        return ImportedActivity(recording: recording, format: .rrIntervals, points: intervals.count, warnings: [])
    case .fit:
        activity = try ActivityImport.readFIT(bytes, file: path, choice: choice)
    case .markup:
        func invalid(_ error: MarkupError) -> ImportError {
            ImportError(file: path, place: error.line.map { "\($0)" }, message: "invalid XML: \(error.message)")
        }
        // A TCX or GPX file cut off part way is read up to the damage, as a FIT file is.
        let read: (root: MarkupElement, damage: MarkupError?)
        do {
            read = choice.strict ? (try MarkupReader.read(bytes), nil) : try MarkupReader.readSalvaging(bytes)
        } catch {
            throw invalid(error)
        }
        do {
            activity = try ActivityImport.readXML(read.root, file: path, choice: choice)
        } catch {
            // Nothing usable before the damage: the damage is what to say.
            throw read.damage.map(invalid) ?? error
        }
        if let damage = read.damage {
            activity.isDamaged = true
            activity.warnings.append(
                ImportError(
                    file: path, place: damage.line.map { "\($0)" },
                    message: "invalid XML: \(damage.message); read what comes before it: "
                        + "\(activity.points) point\(activity.points == 1 ? "" : "s") (`replay --strict` refuses the file)"))
        }
    }
    return activity
}

/// How plans are shown in one line: a step's end and a cadence zone.
public enum PlanText {
    public static func zone(_ zone: CadenceZone?) -> String {
        guard let zone else { return "-" }
        return "\(JSONValue.format(zone.low))-\(JSONValue.format(zone.high)) spm (target \(JSONValue.format(zone.target)))"
    }

    public static func end(_ end: StepEnd) -> String {
        switch end {
        case .time(let length): formatClock(length.seconds)
        // To 10 m and to the metre: a mile is 1.61 km, not 1.609344.
        case .distance(let metres):
            metres >= 1000 ? "\(JSONValue.format((metres / 10).rounded() / 100)) km" : "\(JSONValue.format(metres.rounded())) m"
        case .open: "open"
        }
    }
}
