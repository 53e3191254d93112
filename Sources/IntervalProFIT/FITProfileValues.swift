/// Values of the FIT profile's types that IntervalPro writes or decides by: one home for
/// them, beside the message and field numbers.
public enum FITFileType {
    public static let activity: Int64 = 4
    public static let workout: Int64 = 5
}

public enum FITManufacturer {
    public static let development: Int64 = 255
}

/// The profile's `sport` type.
public enum FITSport {
    public static let generic: Int64 = 0
    public static let running: Int64 = 1
    public static let cycling: Int64 = 2

    /// The sport's name for messages ("stand up paddleboarding"), as the profile names it
    /// (Profile.xlsx; checked against Garmin's FIT SDK for Python); a number it does not
    /// name is said as one.
    public static func name(_ sport: Int64) -> String {
        names[sport] ?? "sport \(sport)"
    }

    static let names: [Int64: String] = [
        0: "generic", 1: "running", 2: "cycling", 3: "transition", 4: "fitness equipment", 5: "swimming",
        6: "basketball", 7: "soccer", 8: "tennis", 9: "american football", 10: "training", 11: "walking",
        12: "cross country skiing", 13: "alpine skiing", 14: "snowboarding", 15: "rowing", 16: "mountaineering",
        17: "hiking", 18: "multisport", 19: "paddling", 20: "flying", 21: "e biking", 22: "motorcycling",
        23: "boating", 24: "driving", 25: "golf", 26: "hang gliding", 27: "horseback riding", 28: "hunting",
        29: "fishing", 30: "inline skating", 31: "rock climbing", 32: "sailing", 33: "ice skating",
        34: "sky diving", 35: "snowshoeing", 36: "snowmobiling", 37: "stand up paddleboarding", 38: "surfing",
        39: "wakeboarding", 40: "water skiing", 41: "kayaking", 42: "rafting", 43: "windsurfing", 44: "kitesurfing",
        45: "tactical", 46: "jumpmaster", 47: "boxing", 48: "floor climbing", 49: "baseball", 53: "diving",
        56: "shooting", 58: "winter sport", 59: "grinding", 62: "hiit", 63: "video gaming", 64: "racket",
        65: "wheelchair push walk", 66: "wheelchair push run", 67: "meditation", 68: "para sport", 69: "disc golf",
        70: "team sport", 71: "cricket", 72: "rugby", 73: "hockey", 74: "lacrosse", 75: "volleyball",
        76: "water tubing", 77: "wakesurfing", 78: "water sport", 79: "archery", 80: "mixed martial arts",
        81: "motor sports", 82: "snorkeling", 83: "dance", 84: "jump rope", 85: "pool apnea", 86: "mobility",
        87: "geocaching", 88: "canoeing",
    ]
}
