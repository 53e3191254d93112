// libFuzzer target: FIT files (FITFileReader.readSalvaging and read), then as a workout
// (FITWorkout.read) and as an activity (ActivityImport.readFIT, salvaging and strict).
//
// Thrown errors are expected outcomes; a trap or sanitizer report is a failure. Checked:
// every plan that reads meets `checkImportedPlan`; an activity's recording is in time
// order (from 0), and every value it holds decodes.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // A damaged file read up to its damage: what `read` refuses is exactly what has damage,
    // and what both read is the same.
    let salvage: FITFileReader.Salvage
    do {
        salvage = try FITFileReader.readSalvaging(bytes)
    } catch {
        _ = error.description
        return 0
    }
    precondition(salvage.readUpTo <= bytes.count)
    switch (Result { () throws(FITReadError) in try FITFileReader.read(bytes) }, salvage.damage) {
    case (.success(let records), nil): precondition(records.count == salvage.records.count)
    case (.failure(let error), let damage?): precondition(error == damage)
    default: preconditionFailure("read and readSalvaging disagree on whether the file is damaged")
    }
    if let imported = try? FITWorkout.read(bytes, file: "fuzz.fit") { checkImportedPlan(imported.plan) }
    if let activity = try? ActivityImport.readFIT(bytes, file: "fuzz.fit") { checkActivityRecording(activity.recording) }
    if let activity = try? ActivityImport.readFIT(bytes, file: "fuzz.fit", choice: ActivityChoice(strict: true, anySport: true)) {
        precondition(salvage.damage == nil)
        checkActivityRecording(activity.recording)
    }
    return 0
}
