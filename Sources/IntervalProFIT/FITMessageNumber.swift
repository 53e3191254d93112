/// The global message numbers (the FIT profile's `mesg_num`) of the messages IntervalPro
/// reads or writes: one home for them, whichever file or format uses them.
public enum FITMessageNumber {
    public static let fileID: UInt16 = 0
    public static let sport: UInt16 = 12
    public static let session: UInt16 = 18
    public static let lap: UInt16 = 19
    public static let record: UInt16 = 20
    public static let event: UInt16 = 21
    public static let deviceInfo: UInt16 = 23
    public static let workout: UInt16 = 26
    public static let workoutStep: UInt16 = 27
    public static let activity: UInt16 = 34
    public static let fileCreator: UInt16 = 49
    public static let hrv: UInt16 = 78
    public static let fieldDescription: UInt16 = 206
    public static let developerDataID: UInt16 = 207
}
