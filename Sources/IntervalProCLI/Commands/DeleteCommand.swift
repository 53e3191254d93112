import ArgumentParser
import IntervalProCore
import IntervalProIO
import IntervalProStorage
import IntervalProLaunch

struct DeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a saved session and everything kept of it."
    )

    @Argument(help: "The session id (see `intervalpro history`).")
    var id: Int64

    @OptionGroup var store: StoreOptions

    func validate() throws {
        guard id > 0 else { throw ValidationError("the session id is a positive number (see `intervalpro history`)") }
    }

    func run() throws {
        try reportingFailures {
            let (deletion, path, freed) = try store.location.delete(id: id)
            switch deletion {
            case .deleted:
                let room = freed > 0 ? " (the store gave \(JSONValue.format((Double(freed) / 1_048_576).rounded(toPlaces: 1))) MB back to the disk)" : ""
                Terminal.writeStandardError("intervalpro: deleted session \(id)\(room)\n")
            case .noSuchSession: throw LaunchError("no session \(id) in \(path)", kind: .missingInput)
            case .running: throw LaunchError("session \(id) is running: finish it first", kind: .unavailable)
            }
        }
    }
}
