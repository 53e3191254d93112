// libFuzzer target: intervals.icu workout text (IntervalsICUWorkout.read).
//
// A thrown ImportProblem is an expected outcome (its description is still built); a trap
// or sanitizer report is a failure. Every plan that reads meets `checkImportedPlan`.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let imported = try IntervalsICUWorkout.read(bytes, file: "fuzz.txt")
        for warning in imported.warnings { _ = warning.description }
        checkImportedPlan(imported.plan)
    } catch {
        _ = error.description
    }
    return 0
}
