/// The name IntervalPro writes as the creator of the files it exports (a FIT file's
/// product_name, a TCX file's `<Creator>`), by which it knows them when they come back.
public enum ProgramName {
    public static let creator = "IntervalPro"

    /// How IntervalPro's TCX export names its session in the activity's notes, before anything
    /// else it says there: "IntervalPro session 214: Cadence pyramid".
    public static func sessionNotes(id: Int64, planName: String) -> String {
        "\(creator) session \(id): \(planName)"
    }

    /// The plan's name such notes give, `ending` (what the export says after the name) left
    /// out: imported elsewhere, the run keeps its name ("Imported run", it was).
    public static func planName(inSessionNotes notes: String, ending: String) -> String? {
        let session = notes.dropFirst("\(creator) session ".count)
        guard notes.hasPrefix("\(creator) session "), let colon = session.firstIndex(of: ":"),
            session[colon...].hasPrefix(": ")
        else { return nil }
        var name = session[session.index(colon, offsetBy: 2)...]
        if !ending.isEmpty, let end = name.indices.reversed().first(where: { name[$0...].hasPrefix(ending) }) {
            name = name[..<end]
        }
        return name.isEmpty ? nil : String(name)
    }
}
