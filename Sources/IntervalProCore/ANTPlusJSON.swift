// The JSON `intervalpro decode --json` prints for ANT+ pages: keys carry their units, as they
// do for GATT values.

extension ANTPlusHeartRatePage {
    public var json: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("page", .int(Int(page))),
            ("heart_rate_bpm", .int(Int(heartRate))),
            ("beat_count", .int(Int(beatCount))),
            ("beat_time_s", .number((Double(beatTime) / 1024).rounded(toPlaces: 4))),
        ]
        switch detail {
        case .none: break
        case .operatingTime(let seconds): fields.append(("operating_time_s", .int(seconds)))
        case .manufacturer(let id, let serialUpper):
            fields += [("manufacturer_id", .int(Int(id))), ("serial_upper", .int(Int(serialUpper)))]
        case .product(let hardware, let software, let model):
            fields += [("hardware_version", .int(Int(hardware))), ("software_version", .int(Int(software))), ("model", .int(Int(model)))]
        case .previousBeat(let time):
            fields += [
                ("previous_beat_time_s", .number((Double(time) / 1024).rounded(toPlaces: 4))),
                ("rr_interval_ms", .number((Double(beatTime &- time) * 1000 / 1024).rounded(toPlaces: 3))),
            ]
        }
        return .object(fields)
    }
}

extension ANTPlusStrideSpeedPage {
    public var json: JSONValue {
        switch self {
        case .distance(let time, let distance, let speed, let strides):
            return .object([
                ("page", .int(1)), ("time_s", .number(time)), ("distance_m", .number(distance)),
                ("speed_mps", .number(speed.rounded(toPlaces: 4))), ("strides", .int(Int(strides))),
            ])
        case .cadence(let strides, let speed, let status, let calories):
            return .object(
                [
                    ("page", .int(calories == nil ? 2 : 3)), ("cadence_strides_per_min", .number(strides)),
                    ("cadence_spm", .number(strides * 2)), ("speed_mps", .number(speed.rounded(toPlaces: 4))),
                    ("location", .int(Int(status.location))), ("battery", .int(Int(status.battery))),
                    ("health", .int(Int(status.health))), ("moving", .bool(!status.inactive)),
                ] + (calories.map { [("calories_kcal", .int(Int($0)))] } ?? []))
        case .common(.manufacturer(let hardware, let manufacturer, let model)):
            return .object([
                ("page", .int(80)), ("hardware_revision", .int(Int(hardware))), ("manufacturer_id", .int(Int(manufacturer))),
                ("model", .int(Int(model))),
            ])
        case .common(.product(let software, let serial)):
            return .object([
                ("page", .int(81)), ("software_revision", .int(Int(software))), ("serial_number", serial.map { .int(Int($0)) } ?? .null),
            ])
        case .other(let page):
            return .object([("page", .int(Int(page)))])
        }
    }
}
