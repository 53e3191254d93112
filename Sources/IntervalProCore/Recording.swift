/// The recording format, version 1 (JSON Lines; see docs/reference/contracts.md, "Recording format").
///
/// A header line names the devices; every other line is one raw notification or one
/// event, timestamped in seconds since the start. Values stay raw bytes so that every
/// replay runs them through the parsers again.
public enum RecordingFormat {
    public static let version = 1

    /// The device of the runner's own commands in a recording (`{"t": 13.2, "dev": "intervalpro",
    /// "event": "finish"}`: pause, resume, next, finish, as each took effect), so that a session
    /// stopped or paused live replays to the same summary. A reader of version 1 that knows
    /// nothing of it reads an event of a device the header does not name, which it keeps.
    public static let runnerDevice = "intervalpro"

    /// Whether `bytes` begin as a recording does: its header line's key within the first
    /// 256 bytes. Enough to tell a recording from a plan, or from another JSON file.
    public static func begins(_ bytes: [UInt8]) -> Bool {
        String(decoding: bytes.prefix(256), as: UTF8.self).contains("\"intervalpro_recording\"")
    }
}

public struct RecordingHeader: Equatable, Sendable {
    public var startedAt: String?
    public var devices: [RecordedDevice]
    /// The plan the session ran (plan format 1, as JSON text), when the writer gives it: a
    /// session's export carries its plan to another store, which took it for a run without
    /// one ("Imported run", no zone, no in-zone figure).
    public var planText: String?

    public init(startedAt: String?, devices: [RecordedDevice], planText: String? = nil) {
        self.startedAt = startedAt
        self.devices = devices
        self.planText = planText
    }

    /// The cadence units the header declares, by device id.
    public var cadenceUnits: [String: CadenceUnit] { devices.cadenceUnits }
}

/// One GATT value as it arrived, before decoding.
public struct RawNotification: Equatable, Sendable {
    public var time: SessionTime
    public var device: String
    /// The characteristic as written; nil `characteristic` means one IntervalPro does not know.
    public var characteristicID: String
    public var characteristic: GATTCharacteristic?
    public var bytes: [UInt8]

    public init(time: SessionTime, device: String, characteristic: GATTCharacteristic, bytes: [UInt8]) {
        self.time = time
        self.device = device
        self.characteristicID = characteristic.shortID
        self.characteristic = characteristic
        self.bytes = bytes
    }

    public init(time: SessionTime, device: String, characteristicID: String, bytes: [UInt8]) {
        self.init(
            time: time, device: device, characteristicID: characteristicID,
            characteristic: GATTCharacteristic(identifier: characteristicID), bytes: bytes)
    }

    /// With the characteristic `characteristicID` reads as, known already.
    init(time: SessionTime, device: String, characteristicID: String, characteristic: GATTCharacteristic?, bytes: [UInt8]) {
        self.time = time
        self.device = device
        self.characteristicID = characteristicID
        self.characteristic = characteristic
        self.bytes = bytes
    }
}

public enum RecordingEntry: Equatable, Sendable {
    case notification(RawNotification)
    /// A device event such as "connected" or "disconnected".
    case event(time: SessionTime, device: String, name: String)

    /// The runner's command as a recording keeps it, an event of `RecordingFormat.runnerDevice`.
    public static func runnerCommand(_ command: UserCommand, at time: SessionTime) -> RecordingEntry {
        .event(time: time, device: RecordingFormat.runnerDevice, name: command.rawValue)
    }

    public var time: SessionTime {
        switch self {
        case .notification(let n): n.time
        case .event(let time, _, _): time
        }
    }

    public var device: String {
        switch self {
        case .notification(let n): n.device
        case .event(_, let device, _): device
        }
    }
}

public struct RecordingError: Error, Equatable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var message: String

    public init(file: String, line: Int, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String { "\(file):\(line): \(message)" }
}

/// A recording as read: its entries in time order whatever the order of its lines.
public struct ParsedRecording: Sendable {
    public var header: RecordingHeader
    /// In time order, stable for equal times.
    public var entries: [RecordingEntry]
    /// Lines whose time is earlier than the line before's (two devices' streams merged, say):
    /// the format allows them; they were put in order.
    public var outOfOrderLines: Int
    /// What is wrong with the last line, when it is cut part way (the recording was
    /// interrupted as it was written) and the reader was asked to read up to it: the entries
    /// are those of the lines before. Nil when the file ends whole.
    public var cutLastLine: RecordingError?

    /// The first two readings `gap` or more apart: a recording whose readings are a day apart
    /// is not one run to keep second by second (three lines weeks apart made a store of 268 MB).
    /// `finishedAt`, where the runner finished (the commands taken apart), counts as one more
    /// time: a finish a day after the readings made an imported run of 25 hours.
    public func firstGap(atLeast gap: SessionTime, finishedAt: SessionTime? = nil) -> (from: SessionTime, to: SessionTime)? {
        let times = (entries.map(\.time) + (finishedAt.map { [$0] } ?? [])).sorted()
        return zip(times, times.dropFirst()).first { $1 - $0 >= gap }.map { (from: $0, to: $1) }
    }

    /// The entries without the runner's commands (`RecordingFormat.runnerDevice`), the
    /// pauses those commands made (a pause to the next resume, or to the last entry) and
    /// where the runner finished: how a run is kept when it is imported. An export kept its
    /// pauses so, and came back as a second run, the paused minutes "no signal"; one finished
    /// after its sensors fell silent came back shorter. What comes after the finish is no part
    /// of the run, as a replay ends there.
    public var runnerPausesApart: (entries: [RecordingEntry], pauses: [Range<SessionTime>], finishedAt: SessionTime?) {
        var kept: [RecordingEntry] = []
        var pauses: [Range<SessionTime>] = []
        var pausedAt: SessionTime?
        var finishedAt: SessionTime?
        for entry in entries {
            guard case .event(let time, RecordingFormat.runnerDevice, let name) = entry else {
                kept.append(entry)
                continue
            }
            switch UserCommand(rawValue: name) {
            case .finish where finishedAt == nil: finishedAt = time
            case .pause where pausedAt == nil: pausedAt = time
            case .resume:
                if let from = pausedAt, from < time { pauses.append(from..<time) }
                pausedAt = nil
            default: break
            }
        }
        if let finishedAt {
            kept.removeAll { $0.time > finishedAt }
            pauses = pauses.compactMap { $0.lowerBound < finishedAt ? $0.lowerBound..<min($0.upperBound, finishedAt) : nil }
        }
        if let from = pausedAt, let last = finishedAt ?? kept.last?.time, from < last { pauses.append(from..<last) }
        return (kept, pauses, finishedAt)
    }

    public init(header: RecordingHeader, entries: [RecordingEntry], outOfOrderLines: Int, cutLastLine: RecordingError? = nil) {
        self.header = header
        self.entries = entries
        self.outOfOrderLines = outOfOrderLines
        self.cutLastLine = cutLastLine
    }
}

/// Reads a recording line by line. Lines need not be in time order (recording format
/// version 1 gives every line a time and asks no order): `outOfOrderLines` counts those
/// earlier than the line before, and `parse` puts the entries in order.
public struct RecordingParser {
    public let file: String
    public private(set) var header: RecordingHeader?
    public private(set) var outOfOrderLines = 0
    private var lineNumber = 0
    private var lastTime = SessionTime.zero
    private var scanner = RecordingLineScanner()
    /// The header's device ids by their lower case: a line's "aa:bb:…" is the header's
    /// "AA:BB:…" (Bluetooth addresses know no case), whose cadence unit it then has.
    private var headerIDs: [String: String] = [:]
    /// The header's device ids as written: a line that names one exactly is that device's,
    /// though another id differs from it only in case.
    private var exactHeaderIDs: Set<String> = []
    /// The last few ids as written and what each reads as: a recording's lines take turns
    /// between its devices, and lowering the case of each line's id again cost a replay more
    /// than reading the rest of the line.
    private var resolvedDevices: [(written: String, id: String)] = []

    public init(file: String) {
        self.file = file
    }

    private func error(_ message: String) -> RecordingError {
        RecordingError(file: file, line: lineNumber, message: message)
    }

    /// Feeds the next line (without its newline). Returns the entry it holds, or nil for
    /// the header and blank lines.
    public mutating func parse(line: ArraySlice<UInt8>) throws(RecordingError) -> RecordingEntry? {
        lineNumber += 1
        // A position in an error counts from after a byte order mark (the contract's rule).
        let bytes = lineNumber == 1 ? line.droppingUTF8ByteOrderMark : line
        if header != nil, let line = scanner.notification(bytes), line.seconds <= Self.latestTime {
            return .notification(
                RawNotification(
                    time: arrived(at: line.seconds), device: deviceID(line.device), characteristicID: line.characteristicID,
                    characteristic: line.characteristic, bytes: line.bytes))
        }
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return nil }
        let node: JSONNode
        do {
            node = try JSONParser.parse(Array(bytes))
        } catch {
            throw self.error("invalid JSON at column \(error.offset + 1): \(error.message)")
        }
        guard case .object = node.kind else { throw error("expected a JSON object, found \(node.typeName)") }
        guard header != nil else {
            header = try parseHeader(node)
            return nil
        }
        return try parseEntry(node)
    }

    private mutating func parseHeader(_ node: JSONNode) throws(RecordingError) -> RecordingHeader {
        guard let versionNode = node["intervalpro_recording"] else {
            throw error("not an IntervalPro recording: the first line has no \"intervalpro_recording\" key")
        }
        // 1.0 is 1 (a writer's number type), as a plan's "version": 1.0 is.
        guard case .number(let version, _) = versionNode.kind, version == Double(RecordingFormat.version) else {
            if case .number(let later, _) = versionNode.kind, later == later.rounded(), later > Double(RecordingFormat.version), later < 1e9 {
                throw error("recording format version \(Int(later)) is a later IntervalPro's; this one reads version \(RecordingFormat.version)")
            }
            throw error("unsupported recording version (this program reads version \(RecordingFormat.version))")
        }
        var devices: [RecordedDevice] = []
        if let list = node["devices"] {
            guard case .array(let elements) = list.kind else { throw error("\"devices\" must be an array") }
            for (i, element) in elements.enumerated() {
                guard let id = element["id"]?.stringValue, !id.isEmpty else {
                    throw error("devices[\(i)] needs an \"id\" string")
                }
                var unit: CadenceUnit?
                // null is no unit, as `replay --json` and `show --json` write it.
                if let unitNode = element["cadence_unit"], !unitNode.isNull {
                    guard let text = unitNode.stringValue else {
                        throw error("devices[\(i)].cadence_unit must be \"steps\", \"strides\", \"auto\" or \"none\"")
                    }
                    // A unit a later version added (as "none" was, within version 1) is decided
                    // from the readings, as "auto" is: refused, its whole recording was.
                    unit = CadenceUnit(rawValue: text) ?? .auto
                }
                devices.append(RecordedDevice(id: id, name: element["name"]?.stringValue, cadenceUnit: unit))
            }
        }
        for device in devices where headerIDs[device.id.lowercased()] == nil { headerIDs[device.id.lowercased()] = device.id }
        exactHeaderIDs = Set(devices.map(\.id))
        // A plan that is no object is no plan this version reads: passed over, as unknown keys are.
        let plan = node["plan"].flatMap { plan -> String? in
            guard case .object = plan.kind else { return nil }
            return plan.value.serialized(pretty: true) + "\n"
        }
        return RecordingHeader(startedAt: node["started_at"]?.stringValue, devices: devices, planText: plan)
    }

    private mutating func deviceID(_ written: String) -> String {
        guard !headerIDs.isEmpty else { return written }
        if let known = resolvedDevices.first(where: { $0.written == written }) { return known.id }
        let id = exactHeaderIDs.contains(written) ? written : headerIDs[written.lowercased()] ?? written
        if resolvedDevices.count == 8 { resolvedDevices.removeFirst() }
        resolvedDevices.append((written, id))
        return id
    }

    private mutating func parseEntry(_ node: JSONNode) throws(RecordingError) -> RecordingEntry {
        guard let tNode = node["t"] else { throw error("missing \"t\" (seconds since the start)") }
        guard let seconds = tNode.numberValue, seconds >= 0, seconds <= Self.latestTime else {
            throw error("\"t\" must be a number of seconds from 0 to 10000000 (115 days)")
        }
        let time = arrived(at: seconds)
        // A key written with a number where text belongs is said as such, not as missing.
        func text(_ key: String, _ what: String) throws(RecordingError) -> String? {
            guard let value = node[key] else { return nil }
            guard let text = value.stringValue else { throw error("\"\(key)\" must be a string (\(what)), not \(value.typeName)") }
            return text
        }
        guard let written = try text("dev", "the device id") else { throw error("missing \"dev\" (the device id)") }
        let device = deviceID(written)
        if let event = node["event"] {
            guard let name = event.stringValue else { throw error("\"event\" must be a string") }
            return .event(time: time, device: device, name: name)
        }
        guard let characteristic = try text("char", "the characteristic UUID, \"2a53\" or in full") else {
            throw error("missing \"char\" (the characteristic UUID) or \"event\"")
        }
        guard let hexText = try text("hex", "the raw value in hex digits") else { throw error("missing \"hex\" (the raw value)") }
        guard let bytes = Hex.decode(hexText) else {
            throw error(hexText.count % 2 == 1 ? "\"hex\" is not an even number of hex digits" : "\"hex\" holds characters that are not hex digits (0-9, a-f)")
        }
        return .notification(RawNotification(time: time, device: device, characteristicID: characteristic, bytes: bytes))
    }

    /// Up to 10^7 s (115 days) inclusive: a time just under it rounds to it in microseconds,
    /// and a recording written back must read again. Activities read from other formats keep
    /// to it too (`ActivityImport`).
    public static let latestTime = 1e7

    /// A line's time, counted out of order when earlier than the line before's.
    private mutating func arrived(at seconds: Double) -> SessionTime {
        let time = SessionTime.seconds(seconds)
        if time < lastTime { outOfOrderLines += 1 }
        lastTime = time
        return time
    }

    /// Parses a whole recording held in memory; entries in time order.
    public static func parse(
        _ bytes: [UInt8], file: String
    ) throws(RecordingError) -> (header: RecordingHeader, entries: [RecordingEntry]) {
        let recording = try read(bytes, file: file)
        return (recording.header, recording.entries)
    }

    /// Parses a whole recording held in memory, saying how many lines were out of order.
    ///
    /// With `acceptingCutLastLine`, a last line that is not JSON and has no newline after it
    /// (what a recording interrupted as it was written leaves: a crash, a pulled plug) ends
    /// the recording at the line before, and `cutLastLine` says so; anywhere else, such a
    /// line is an error.
    public static func read(
        _ bytes: [UInt8], file: String, acceptingCutLastLine: Bool = false
    ) throws(RecordingError) -> ParsedRecording {
        var parser = RecordingParser(file: file)
        var entries: [RecordingEntry] = []
        entries.reserveCapacity(bytes.count / 48)
        var cutLastLine: RecordingError?
        var start = 0
        while start < bytes.count {
            let end = bytes.withUnsafeBufferPointer { lineEnd(in: $0, from: start) }
            let line = bytes[start..<end]
            do {
                if let entry = try parser.parse(line: line) { entries.append(entry) }
            } catch where acceptingCutLastLine && end == bytes.count && parser.header != nil
                && (try? JSONParser.parse(Array(line))) == nil
            {
                cutLastLine = error
            }
            start = end + 1
        }
        guard let header = parser.header else {
            throw RecordingError(file: file, line: 1, message: "empty recording: no header line")
        }
        if parser.outOfOrderLines > 0 {
            // Stable: lines with equal times keep their file order.
            entries = entries.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
        }
        return ParsedRecording(
            header: header, entries: entries, outOfOrderLines: parser.outOfOrderLines, cutLastLine: cutLastLine)
    }

    /// Where the line from `start` ends: the index of the next newline, or the end. Eight bytes
    /// at a time (a recording is a megabyte an hour, looked through for about 60-byte lines).
    static func lineEnd(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        if let base = bytes.baseAddress {
            let ones: UInt64 = 0x0101_0101_0101_0101
            while index + 8 <= bytes.count {
                // A newline byte becomes zero; the lowest flagged byte is the first zero byte.
                let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)) ^ (ones &* 0x0A)
                let zeros = (word &- ones) & ~word & (ones &* 0x80)
                if zeros != 0 { return index + zeros.trailingZeroBitCount / 8 }
                index += 8
            }
        }
        while index < bytes.count, bytes[index] != 0x0A { index += 1 }
        return index
    }
}

/// Lines in the recording format, for writers.
public enum RecordingLine {
    public static func header(_ header: RecordingHeader) -> String {
        var fields: [(String, JSONValue)] = [("intervalpro_recording", .int(RecordingFormat.version))]
        if let startedAt = header.startedAt { fields.append(("started_at", .string(startedAt))) }
        fields.append(
            (
                "devices",
                .array(
                    header.devices.map { device in
                        var d: [(String, JSONValue)] = [("id", .string(device.id))]
                        if let name = device.name { d.append(("name", .string(name))) }
                        if let unit = device.cadenceUnit { d.append(("cadence_unit", .string(unit.rawValue))) }
                        return .object(d)
                    })
            ))
        if let planText = header.planText, let plan = try? JSONParser.parse(planText), case .object = plan.kind {
            fields.append(("plan", plan.value))
        }
        return JSONValue.object(fields).serialized()
    }

    public static func entry(_ entry: RecordingEntry) -> String {
        switch entry {
        case .notification(let n):
            JSONValue.object([
                ("t", .literal(seconds(n.time))), ("dev", .string(n.device)),
                ("char", .string(n.characteristicID)), ("hex", .string(Hex.encode(n.bytes))),
            ]).serialized()
        case .event(let time, let device, let name):
            JSONValue.object([
                ("t", .literal(seconds(time))), ("dev", .string(device)), ("event", .string(name)),
            ]).serialized()
        }
    }

    /// Seconds with at least three decimals and as many as needed (up to microseconds),
    /// so that reading a recording back gives the very same times.
    static func seconds(_ time: SessionTime) -> String {
        let micros = time.microseconds
        let whole = micros / 1_000_000
        var fraction = String(micros % 1_000_000)
        fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
        while fraction.count > 3, fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(whole).\(fraction)"
    }
}

