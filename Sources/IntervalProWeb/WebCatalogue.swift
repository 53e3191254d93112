import IntervalProCore
import IntervalProIO
import IntervalProLaunch
#if canImport(Glibc)
import Glibc
#endif

/// The plans and recordings the page offers, by id. A request names an id from these
/// lists, never a path: nothing outside the listed folders can be read through the page.
public struct WebCatalogue: Sendable {
    public struct Entry: Sendable, Equatable {
        /// "examples/NAME.json", "mine/NAME.json", "recordings/NAME.jsonl".
        public var id: String
        public var path: String
        public var folder: String

        /// A plain file (through a symbolic link too), which a read never waits on.
        public var isRegularFile: Bool { FileIO.isRegularFile(path) }
    }

    /// The example plans, and the user's plan folder ($XDG_CONFIG_HOME/intervalpro/plans).
    public var planFolders: [(folder: String, path: String)] {
        var folders: [(String, String)] = []
        if let examples = BundledFiles.plansDirectory() { folders.append(("examples", examples)) }
        if let mine = Self.userPlanFolder() { folders.append(("mine", mine)) }
        return folders
    }

    public init() {}

    public func plans() -> [Entry] {
        planFolders.flatMap { folder, path in
            // A JSON Schema beside the plans (the examples' plan.schema.json) describes them; it is none.
            Self.files(in: path, endingIn: [".json", ".txt", ".zwo", ".fit"]).filter { !$0.lowercased().hasSuffix(".schema.json") }.map {
                Entry(id: "\(folder)/\($0)", path: "\(path)/\($0)", folder: folder)
            }
        }
    }

    public func recordings() -> [Entry] {
        guard let directory = BundledFiles.recordingsDirectory() else { return [] }
        return Self.files(in: directory, endingIn: [".jsonl"]).map {
            Entry(id: "recordings/\($0)", path: "\(directory)/\($0)", folder: "recordings")
        }
    }

    /// The plan folders that are there but cannot be listed, each with why ("mine/": its
    /// plans vanished from the page without a word when the folder could not be read).
    public func unlistedPlanFolders() -> [(id: String, problem: String)] { Self.unlisted(planFolders) }

    static func unlisted(_ folders: [(folder: String, path: String)]) -> [(id: String, problem: String)] {
        folders.compactMap { folder, path in
            guard let handle = opendir(path) else {
                let failure = errno
                guard failure != ENOENT else { return nil }
                return ("\(folder)/", "cannot read the folder \(path): \(String(cString: strerror(failure)))")
            }
            closedir(handle)
            return nil
        }
    }

    /// Only a regular file is read: a FIFO named like a plan blocked the thread that opened it,
    /// and two such requests left no thread to answer any route.
    public func plan(id: String) -> Entry? { plans().first { $0.id == id && $0.isRegularFile } }
    public func recording(id: String) -> Entry? { recordings().first { $0.id == id && $0.isRegularFile } }

    static func userPlanFolder() -> String? {
        UserFolders.configuration.map { $0 + "/plans" }
    }

    /// Plain files' names in a folder (no dot files) ending in one of `suffixes` (in lower
    /// case; the names' case does not matter), sorted.
    static func files(in directory: String, endingIn suffixes: [String]) -> [String] {
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            // In any case: a watch keeps its workouts as "WORKOUT.FIT", which `run` takes and the
            // page left out without a word.
            let lowered = name.lowercased()
            guard !name.hasPrefix("."), suffixes.contains(where: { lowered.hasSuffix($0) }),
                !BundledFiles.isDirectory("\(directory)/\(name)")
            else { continue }
            names.append(name)
        }
        return names.sorted()
    }
}
