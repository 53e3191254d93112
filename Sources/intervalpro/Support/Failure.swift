import ArgumentParser
import IntervalProCore
import IntervalProIO

/// sysexits(3) codes, the exit statuses scripts can rely on.
enum ExitStatus: Int32 {
    case usage = 64
    case dataError = 65
    case noInput = 66
    case unavailable = 69
    case software = 70
    case ioError = 74
}

/// An error the user can act on: printed as one line, then exit with its status.
struct Failure: Error {
    var message: String
    var status: ExitStatus

    init(_ message: String, status: ExitStatus) {
        self.message = message
        self.status = status
    }

    init(_ error: FileError) {
        // Only a file we were asked to read is "missing input"; an output we cannot create is I/O.
        let missingInput = error.isNotFound && (error.operation == .open || error.operation == .read)
        self.init(error.description, status: missingInput ? .noInput : .ioError)
    }
}

/// Runs a command body, turning `Failure`s into a message on stderr and their exit code
/// (ArgumentParser would print them with a generic code 1).
func reportingFailures(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let failure as Failure {
        Terminal.writeStandardError("intervalpro: error: \(failure.message)\n")
        throw ExitCode(failure.status.rawValue)
    }
}

func readInput(_ path: String) throws -> [UInt8] {
    do {
        return try FileIO.readAll(path)
    } catch {
        throw Failure(error)
    }
}

func loadPlan(_ path: String) throws -> Plan {
    let bytes = try readInput(path)
    do {
        return try PlanDecoder.decode(bytes, file: path)
    } catch {
        throw Failure(error.description, status: .dataError)
    }
}

func loadRecording(_ path: String) throws -> ParsedRecording {
    let bytes = try readInput(path)
    do {
        return try RecordingParser.read(bytes, file: path)
    } catch {
        throw Failure(error.description, status: .dataError)
    }
}
