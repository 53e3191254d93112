import Hummingbird
import IntervalProCore
import IntervalProIO
import IntervalProLaunch

/// The page's sensors view: the sensors `run` will prefer (the remembered sensors file, a
/// preference never a requirement), the last scan, and choosing or forgetting one.
enum SensorChoice {
    /// `GET /api/sensors`.
    static func state(host: SessionHost) -> String {
        let memory = SensorMemory.defaultPath.flatMap { try? SensorMemory.load(from: $0) } ?? SensorMemory()
        func sensor(_ remembered: SensorMemory.Sensor?) -> JSONValue {
            guard let remembered else { return .null }
            return .object([("address", .string(remembered.address)), ("name", remembered.name.map(JSONValue.string) ?? .null)])
        }
        let scan = host.scanState
        return JSONValue.object([
            ("remembered", .object([("heartRate", sensor(memory.heartRate)), ("cadence", sensor(memory.cadence))])),
            (
                "scan",
                .object([
                    ("scanning", .bool(scan.scanning)), ("secondsLeft", .int(scan.secondsLeft)),
                    ("devices", .array(scan.sensors.map(\.json))), ("problems", .array(scan.problems.map(JSONValue.string))),
                ])
            ),
        ]).serialized(pretty: false)
    }

    /// `PUT /api/sensors` with `{"heartRate": ADDRESS or null, "cadence": ADDRESS or null}`: each
    /// key given is chosen (an address the last scan found offering that role, or `ant:NUMBER`)
    /// or, null, forgotten; a key not given is left as it is.
    static func choose(_ body: JSONNode, host: SessionHost) -> Response {
        guard let path = SensorMemory.defaultPath else {
            return WebServer.error(.serviceUnavailable, "no configuration folder: set XDG_CONFIG_HOME or HOME")
        }
        var memory: SensorMemory
        do {
            memory = try SensorMemory.load(from: path)
        } catch {
            // An unreadable file is replaced by the choice: it is only a preference.
            memory = SensorMemory()
        }
        // Anything else is no choice to answer 200 for ({"foo": 1} changed nothing, said nothing).
        if let refusal = WebServer.unknownKey(in: body, taking: ["heartRate", "cadence"], "heartRate and cadence are chosen here") {
            return refusal
        }
        let found = host.scanState.sensors
        for (key, offers) in [("heartRate", \ScannedSensor.offersHeartRate), ("cadence", \ScannedSensor.offersCadence)] {
            guard let node = body[key] else { continue }
            let sensor: SensorMemory.Sensor?
            if case .null = node.kind {
                sensor = nil
            } else {
                // What `run --hr`/`--cadence` would take from it: a Bluetooth address, or an ANT+
                // device number; remembered otherwise, it failed every live run after.
                guard let address = node.stringValue, Self.isDeviceChoice(address) else {
                    return WebServer.error(
                        .badRequest, "'\(key)' must be a Bluetooth address (AA:BB:CC:DD:EE:FF), ant:NUMBER or null")
                }
                let scanned = found.first { $0.address.lowercased() == address.lowercased() }
                if let scanned, !scanned[keyPath: offers] {
                    return WebServer.error(.unprocessableContent, "\(scanned.name ?? address) does not offer \(key == "cadence" ? "cadence" : "heart rate")")
                }
                let unit: CadenceUnit? = key == "cadence" && scanned?.isANT == true ? .steps : nil
                sensor = SensorMemory.Sensor(address: scanned?.address ?? address, name: scanned?.name, cadenceUnit: unit)
            }
            if key == "heartRate" { memory.heartRate = sensor } else { memory.cadence = sensor }
        }
        do {
            try memory.save(to: path)
        } catch {
            return WebServer.error(.internalServerError, "could not remember the sensors: \(error)")
        }
        return WebServer.json(.ok, state(host: host))
    }

    /// A Bluetooth address as BlueZ writes one (six hexadecimal pairs), or `ant:NUMBER` with an
    /// ANT+ device number (0 to 65535; 0, any).
    static func isDeviceChoice(_ text: String) -> Bool {
        if let number = ANTSensors.deviceNumber(text) { return number != nil }
        let pairs = text.split(separator: ":", omittingEmptySubsequences: false)
        return pairs.count == 6 && pairs.allSatisfy { $0.count == 2 && $0.allSatisfy(\.isHexDigit) }
    }
}
