/// How a device counts cadence in its RSC Measurement.
public enum CadenceUnit: String, Sendable, CaseIterable {
    /// Steps per minute (both feet), as the RSC specification means it.
    case steps
    /// Strides per minute (one foot); doubled to steps.
    case strides
    /// Decided from the readings themselves; see `CadenceNormaliser`.
    case auto
    /// Its RSC Measurement carries speed and distance, and no cadence (the field is mandatory,
    /// so 0): an activity's GPS, in a run a watch recorded without a footpod (recording format
    /// 1, added: its distance was lost).
    case none

    /// What a sensor on the command line may be said to count.
    public static let ofSensors: [CadenceUnit] = [.steps, .strides, .auto]
}

public struct RecordedDevice: Equatable, Sendable {
    public var id: String
    public var name: String?
    public var cadenceUnit: CadenceUnit?

    public init(id: String, name: String? = nil, cadenceUnit: CadenceUnit? = nil) {
        self.id = id
        self.name = name
        self.cadenceUnit = cadenceUnit
    }

    /// The simulated runner's sensors take their addresses from the range RFC 7042 (2.1.2)
    /// keeps for documentation, 00:00:5E:00:53:00 to FF, which no real device has: a
    /// recording of them, replayed or imported anywhere, is still the simulator's.
    public static let simulatorAddressPrefix = "00:00:5E:00:53:"
    /// What a TCX export of a session of the simulator's sensors says before their addresses
    /// in its notes: read back, the run is the simulator's (a FIT export names them in its
    /// device_info messages).
    public static let simulatorsNote = "the simulator's sensors: "

    public var isSimulator: Bool {
        id.count == 17 && id.uppercased().hasPrefix(Self.simulatorAddressPrefix)
    }

    /// How an ANT+ device's id begins ("ant:12345"), on the command line and in recordings.
    public static let antPrefix = "ant:"

    /// Whether a cadence unit given for the session (`--cadence-unit`) applies to it: not to an
    /// ANT+ foot pod, whose pages count strides by the profile and are doubled as they are read
    /// (taken as strides once more, it read 330 spm).
    public var takesCadenceUnitOverride: Bool { !id.hasPrefix(Self.antPrefix) }
}

extension [RecordedDevice] {
    /// Whether every device is the simulator's (and there is one): what they sent is no
    /// runner's run.
    public var areAllSimulators: Bool { !isEmpty && allSatisfy(\.isSimulator) }

    /// The cadence unit each device declares, by device id (the first, where an id repeats):
    /// what the engine is told for a recording's, a stored session's or a live run's devices.
    public var cadenceUnits: [String: CadenceUnit] {
        Dictionary(compactMap { device in device.cadenceUnit.map { (device.id, $0) } }, uniquingKeysWith: { first, _ in first })
    }

    /// `units` with `override` (a session's `--cadence-unit`) for each of these devices it
    /// applies to (`takesCadenceUnitOverride`); `units` itself when there is none.
    public func cadenceUnitsOverridden(_ units: [String: CadenceUnit], by override: CadenceUnit?) -> [String: CadenceUnit] {
        guard let override else { return units }
        var units = units
        for device in self where device.takesCadenceUnitOverride { units[device.id] = override }
        return units
    }

    /// The devices with `override` for the cadence unit each declares, where it applies: what a
    /// recording written during the session says they count.
    public func declaringCadenceUnit(_ override: CadenceUnit?) -> [RecordedDevice] {
        guard let override else { return self }
        return map { device in
            var device = device
            if device.cadenceUnit != nil, device.takesCadenceUnitOverride { device.cadenceUnit = override }
            return device
        }
    }

    /// How a notice names device `id`: by its name where the session knows one ("Simulated
    /// footpod disconnected"), its address added only when another device has that name; else
    /// by its address. Notices said the address alone, which a screen reader reads out in hex.
    public func displayName(of id: String) -> String {
        guard let name = first(where: { $0.id == id })?.name?.trimmingWhitespace, !name.isEmpty else { return id }
        return contains { $0.id != id && $0.name?.trimmingWhitespace == name } ? "\(name) (\(id))" : name
    }
}
