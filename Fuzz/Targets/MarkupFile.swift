// libFuzzer target: XML through MarkupReader (libxml2's reader), then as a Zwift workout
// (ZwiftWorkout.read) and as a TCX or GPX activity (ActivityImport.readXML), whole and as
// what a damaged document salvages.
//
// Thrown errors are expected outcomes; a trap or sanitizer report is a failure. Checked:
// `read` refuses exactly what `readSalvaging` finds damaged, and both give the same tree
// otherwise; every plan that reads meets `checkImportedPlan`; an activity's recording is in
// time order (from 0), and every value it holds decodes.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let salvaged = try? MarkupReader.readSalvaging(bytes)
    let root: MarkupElement
    do {
        root = try MarkupReader.read(bytes)
    } catch {
        _ = error.message
        precondition(salvaged == nil || salvaged?.damage == error)
        if let salvaged, let activity = try? ActivityImport.readXML(salvaged.root, file: "fuzz.gpx", choice: ActivityChoice(anySport: true)) {
            checkActivityRecording(activity.recording)
        }
        return 0
    }
    precondition(salvaged?.damage == nil && salvaged?.root == root)
    if let imported = try? ZwiftWorkout.read(root, file: "fuzz.zwo") { checkImportedPlan(imported.plan) }
    if let activity = try? ActivityImport.readXML(root, file: "fuzz.tcx", choice: ActivityChoice(anySport: true)) {
        checkActivityRecording(activity.recording)
    }
    return 0
}
