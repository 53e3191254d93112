// libFuzzer target: XML through MarkupReader (Foundation's XMLParser, libxml2), then as a
// Zwift workout (ZwiftWorkout.read) and as a TCX activity (ActivityImport.readTCX).
//
// Thrown errors are expected outcomes; a trap or sanitizer report is a failure. Checked:
// every plan that reads meets `checkImportedPlan`; an activity's recording is in time
// order (from 0), and every value it holds decodes.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let root: MarkupElement
    do {
        root = try MarkupReader.read(bytes)
    } catch {
        _ = error.message
        return 0
    }
    if let imported = try? ZwiftWorkout.read(root, file: "fuzz.zwo") { checkImportedPlan(imported.plan) }
    if let activity = try? ActivityImport.readTCX(root, file: "fuzz.tcx") { checkActivityRecording(activity.recording) }
    return 0
}
