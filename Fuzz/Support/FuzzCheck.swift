// Shared by every fuzz target (Fuzz/run.sh compiles it into each one).

/// `precondition` that keeps its message in -O builds (fatalError prints it; precondition
/// does not), so a crash report says which property failed and why.
func fuzzCheck(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String = "",
    file: StaticString = #fileID, line: UInt = #line
) {
    if !condition() { fatalError("property failed: \(message())", file: file, line: line) }
}
