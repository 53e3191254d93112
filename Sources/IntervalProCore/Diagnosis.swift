/// One finding of `intervalpro doctor`: what was checked, whether it is fine, and if not,
/// what to do about it. Bluetooth's checks, the system's and the launcher's all report in it.
public struct Diagnosis: Equatable, Sendable {
    public var check: String
    public var ok: Bool
    public var detail: String
    public var fix: String?

    public init(check: String, ok: Bool, detail: String, fix: String? = nil) {
        self.check = check
        self.ok = ok
        self.detail = detail
        self.fix = fix
    }
}
