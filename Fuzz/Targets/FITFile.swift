// libFuzzer target: FIT files (FITFileReader.read), then as a workout (FITWorkout.read)
// and as an activity (ActivityImport.readFIT).
//
// Thrown errors are expected outcomes; a trap or sanitizer report is a failure. Checked:
// every plan that reads meets `checkImportedPlan`; an activity's recording is in time
// order (from 0), and every value it holds decodes.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        _ = try FITFileReader.read(bytes)
    } catch {
        _ = error.description
        return 0
    }
    if let imported = try? FITWorkout.read(bytes, file: "fuzz.fit") { checkImportedPlan(imported.plan) }
    if let activity = try? ActivityImport.readFIT(bytes, file: "fuzz.fit") { checkActivityRecording(activity.recording) }
    return 0
}
