import ArgumentParser
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
            // Read first: where no store was made there is no session to delete, and none to
            // create (in a data folder that may not be written, that said "cannot create it", 74).
            let reading = try self.store.open(readingOnly: true)
            let listed = try storeCall { () throws(StoreError) in try reading.listing(id: id) }
            guard listed != nil else {
                throw LaunchError("no session \(id) in \(reading.path)", kind: .missingInput)
            }
            let store = try self.store.open()
            let deletion = try storeCall { () throws(StoreError) in try store.delete(id: id) }
            switch deletion {
            case .deleted: Terminal.writeStandardError("intervalpro: deleted session \(id)\n")
            case .noSuchSession: throw LaunchError("no session \(id) in \(store.path)", kind: .missingInput)
            case .running: throw LaunchError("session \(id) is running: finish it first", kind: .unavailable)
            }
        }
    }
}
