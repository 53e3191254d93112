/// A data page of an ANT+ foot pod (ANT+ Device Profile: Stride Based Speed and Distance,
/// device type 124), or one of the common pages every ANT+ device sends.
public enum ANTPlusStrideSpeedPage: Equatable, Sendable {
    public static let deviceType: UInt8 = 124

    /// Page 1: the pod's time (1/200 s, rolling over at 256 s), distance (1/16 m, rolling over
    /// at 256 m), instantaneous speed (1/256 m/s) and stride count (rolling over at 256).
    case distance(time: Double, distance: Double, speed: Double, strides: UInt8)
    /// Page 2: cadence in strides per minute (1/16), speed, and the pod's status. Page 3 is
    /// page 2 with calories in byte 6 (kcal, rolling over at 256): a pod sends one or the other
    /// beside page 1. `calories` is nil for page 2.
    case cadence(stridesPerMinute: Double, speed: Double, status: Status, calories: UInt8?)
    case common(ANTPlusCommonPage)
    /// A page this decoder does not read (16-22, ...), by number.
    case other(UInt8)

    /// Page 2's status byte: where the pod is worn, its battery, its health, and whether the
    /// runner is moving.
    public struct Status: Equatable, Sendable {
        public var location: UInt8  // 0 laces, 1 midsole, 2 other, 3 ankle
        public var battery: UInt8  // 0 new, 1 good, 2 ok, 3 low
        public var health: UInt8  // 0 ok, 1 error, 2 warning
        public var inactive: Bool

        init(_ byte: UInt8) {
            location = byte >> 6
            battery = (byte >> 4) & 0x03
            health = (byte >> 2) & 0x03
            inactive = byte & 0x03 == 0
        }
    }

    /// Cadence in steps per minute: one stride is two footfalls.
    public var stepsPerMinute: Double? {
        if case .cadence(let strides, _, _, _) = self { return strides * 2 }
        return nil
    }

    public static func parse(_ bytes: [UInt8]) throws(ANTPlusHeartRatePage.ParseError) -> ANTPlusStrideSpeedPage {
        guard bytes.count == 8 else { throw .wrongLength(bytes.count) }
        // Speed: whole m/s in byte 4's low nibble, 1/256 m/s in byte 5 (pages 1, 2 and 3).
        let speed = Double(bytes[4] & 0x0F) + Double(bytes[5]) / 256
        switch bytes[0] & 0x7F {
        case 1:
            return .distance(
                time: Double(bytes[2]) + Double(bytes[1]) / 200, distance: Double(bytes[3]) + Double(bytes[4] >> 4) / 16,
                speed: speed, strides: bytes[6])
        case let page where page == 2 || page == 3:
            return .cadence(
                stridesPerMinute: Double(bytes[3]) + Double(bytes[4] >> 4) / 16, speed: speed, status: Status(bytes[7]),
                calories: page == 3 ? bytes[6] : nil)
        case 80, 81:
            return .common(ANTPlusCommonPage(bytes)!)
        default:
            return .other(bytes[0] & 0x7F)
        }
    }
}

/// The common pages every ANT+ device may send (ANT+ Common Pages): 80, who made it, and 81,
/// its software and serial number.
public enum ANTPlusCommonPage: Equatable, Sendable {
    case manufacturer(hardwareRevision: UInt8, manufacturerID: UInt16, model: UInt16)
    case product(softwareRevision: UInt8, serialNumber: UInt32?)

    public init?(_ bytes: [UInt8]) {
        guard bytes.count == 8 else { return nil }
        switch bytes[0] & 0x7F {
        case 80:
            self = .manufacturer(
                hardwareRevision: bytes[3], manufacturerID: UInt16(bytes[4]) | UInt16(bytes[5]) << 8,
                model: UInt16(bytes[6]) | UInt16(bytes[7]) << 8)
        case 81:
            let serial = UInt32(bytes[4]) | UInt32(bytes[5]) << 8 | UInt32(bytes[6]) << 16 | UInt32(bytes[7]) << 24
            self = .product(softwareRevision: bytes[3], serialNumber: serial == 0xFFFF_FFFF ? nil : serial)
        default:
            return nil
        }
    }
}
