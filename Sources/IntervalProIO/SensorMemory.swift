public import IntervalProCore
import SystemPackage
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The sensors chosen last time, so the next run connects to them straight away:
/// $XDG_CONFIG_HOME/intervalpro/sensors.json (~/.config when XDG_CONFIG_HOME is unset).
public struct SensorMemory: Equatable, Sendable {
    public struct Sensor: Equatable, Sendable {
        public var address: String
        public var name: String?
        public var cadenceUnit: CadenceUnit?
        /// What a later version keeps of the sensor, as JSON text by key: written back while
        /// the sensor is remembered.
        public var others: [String: String] = [:]

        mutating func keepOthers(of previous: Sensor?) {
            if others.isEmpty, let previous, previous.address == address { others = previous.others }
        }

        public init(address: String, name: String? = nil, cadenceUnit: CadenceUnit? = nil) {
            self.address = address
            self.name = name
            self.cadenceUnit = cadenceUnit
        }
    }

    // The same device chosen again keeps what a later version keeps of it.
    public var heartRate: Sensor? { didSet { heartRate?.keepOthers(of: oldValue) } }
    public var cadence: Sensor? { didSet { cadence?.keepOthers(of: oldValue) } }
    /// The file's version: a later one's is written back as it was, with what else it keeps
    /// (`otherMembers`). Rewritten as version 1, a later version's file lost all of that.
    public var version = 1
    public var otherMembers: [String: String] = [:]

    public init(heartRate: Sensor? = nil, cadence: Sensor? = nil) {
        self.heartRate = heartRate
        self.cadence = cadence
    }

    public static var defaultPath: String? {
        UserFolders.configuration.map { $0 + "/sensors.json" }
    }

    /// What the file says; an absent file is empty memory, an unreadable one an error.
    public static func load(from path: String) throws -> SensorMemory {
        let bytes: [UInt8]
        do {
            bytes = try FileIO.readAll(path)
        } catch {
            if error.isNotFound { return SensorMemory() }
            throw error
        }
        let root: JSONNode
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            throw SensorMemoryError(path: path, message: "\(SourceLocation(offset: error.offset, in: bytes)): \(error.message)")
        }
        // A list or a number read as no memory without a word, where a typo was said.
        guard case .object = root.kind else {
            throw SensorMemoryError(path: path, message: "expected an object, found \(root.typeName)")
        }
        func sensor(_ key: String) throws -> Sensor? {
            guard let node = root[key] else { return nil }
            guard let address = node["address"]?.stringValue else {
                throw SensorMemoryError(path: path, message: "\(key).address must be a string")
            }
            var sensor = Sensor(
                address: address, name: node["name"]?.stringValue,
                cadenceUnit: node["cadence_unit"]?.stringValue.flatMap(CadenceUnit.init(rawValue:)))
            sensor.others = node.members(besides: ["address", "name", "cadence_unit"])
            return sensor
        }
        var memory = SensorMemory(heartRate: try sensor("heart_rate"), cadence: try sensor("cadence"))
        if let version = root["version"]?.numberValue, version == version.rounded(), version > 1, version < 1e6 {
            memory.version = Int(version)
        }
        memory.otherMembers = root.members(besides: ["version", "heart_rate", "cadence"])
        return memory
    }

    public var json: JSONValue {
        func sensor(_ sensor: Sensor) -> JSONValue {
            var fields: [(String, JSONValue)] = [("address", .string(sensor.address))]
            if let name = sensor.name { fields.append(("name", .string(name))) }
            if let unit = sensor.cadenceUnit { fields.append(("cadence_unit", .string(unit.rawValue))) }
            return .object(fields + JSONValue.literals(sensor.others))
        }
        var fields: [(String, JSONValue)] = [("version", .int(version))]
        if let heartRate { fields.append(("heart_rate", sensor(heartRate))) }
        if let cadence { fields.append(("cadence", sensor(cadence))) }
        return .object(fields + JSONValue.literals(otherMembers))
    }


    /// Writes the file whole (a temporary file renamed over it), creating its folder.
    public func save(to path: String) throws(FileError) {
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !folder.isEmpty { try FileIO.makeDirectories(folder) }
        try FileIO.replaceContents(of: path, with: json.serialized(pretty: true) + "\n")
    }
}

public struct SensorMemoryError: Error, CustomStringConvertible {
    public var path: String
    public var message: String
    public var description: String { "\(path): \(message)" }
}

extension FileIO {
    /// mkdir -p, with mode 0700 for new folders (they hold the user's own data).
    public static func makeDirectories(_ path: String) throws(FileError) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o700) != 0, errno != EEXIST {
                throw FileError(path: current, operation: .create, errno: Errno(rawValue: errno))
            }
        }
    }

    /// Replaces a file's contents atomically: readers see the old file or the new one.
    ///
    /// The new file is written at a name of this process's own (`Replacement`'s), so that two
    /// processes writing the same file (`serve` and a command, both keeping sensors.json) never
    /// meet at one temporary: with one fixed `.tmp` name the second failed with EEXIST. Within
    /// the process, one replacement at a time.
    public static func replaceContents(of path: String, with text: String) throws(FileError) {
        try replacingContents.withLock { _ throws(FileError) in
            removeAbandonedReplacements(of: path)
            let temporary = replacementName(of: path)
            // A new file of the owner's alone: one left at that name (0644, or a link elsewhere)
            // was written through, and the token or the accounts came out with its mode. The
            // name is this process's, and the lock keeps its other threads away: ours to remove.
            if unlink(temporary) != 0, errno != ENOENT {
                throw FileError(path: temporary, operation: .write, errno: Errno(rawValue: errno))
            }
            let fd: FileDescriptor
            do {
                fd = try FileDescriptor.open(
                    FilePath(temporary), .writeOnly, options: [.create, .exclusiveCreate], permissions: [.ownerReadWrite])
            } catch {
                throw FileError(path: temporary, operation: .write, errno: error as? Errno ?? .ioError)
            }
            do {
                try fd.closeAfter { _ = try fd.writeAll(text.utf8) }
            } catch {
                // Not left behind: a disk full as accounts.json was written left a 0-byte .tmp.
                unlink(temporary)
                throw FileError(path: temporary, operation: .write, errno: error as? Errno ?? .ioError)
            }
            if rename(temporary, path) != 0 {
                let failure = Errno(rawValue: errno)
                unlink(temporary)
                throw FileError(path: path, operation: .write, errno: failure)
            }
        }
    }

    private static let replacingContents = Mutex(())
}
