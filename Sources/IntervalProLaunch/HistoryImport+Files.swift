import IntervalProCore
import IntervalProFormats
import IntervalProIO
import Synchronization

/// Where `history import` and `readiness import` find their files: a path, a folder's files
/// at any depth, and the parts of the zip archives among them.
extension HistoryImport {
    /// The files each of `paths` holds, in order (a shell's `*.gpx` gives many). Every path
    /// must exist: one that does not fails the import before anything is read.
    /// A file reached twice (globs that overlap, a folder and a file in it, `runs` and
    /// `./runs`) is read once: the second reading was counted, and said to be a run "imported
    /// before" by the very command that imported it.
    static func files(in paths: [String]) throws -> [Candidate] {
        var seen = Set<String>()
        return try paths.flatMap { path in
            try files(in: path).filter { candidate in candidate.identity.map { seen.insert($0).inserted } ?? true }
        }
    }

    /// How the summary names what was imported: the path, or how many were given.
    static func described(_ paths: [String]) -> String {
        paths.count == 1 ? paths[0] : "the \(paths.count) paths given"
    }

    /// The files `path` holds: itself, the files of a folder at any depth, and the parts of
    /// each zip archive among them (of a zip inside one too, by its name; one told only by
    /// its content is opened where it is read).
    static func files(in path: String) throws -> [Candidate] {
        guard FileIO.isDirectory(path) else {
            // The one path asked for must exist: its absence is the command's failure.
            let candidate = Candidate(name: path, load: { try readInput(path) }, identity: identity(of: path))
            return try holdsZip(path) ? archiveParts(of: candidate) : [candidate]
        }
        var contents: FileIO.FolderContents
        do {
            contents = try FileIO.files(under: path)
        } catch {
            throw LaunchError(error)
        }
        // What macOS left on a stick, below the folder named (one named is read as asked).
        contents.files.removeAll { MacMetadata.holds(String($0.dropFirst(path.count))) }
        let names = exportNames(contents.files.map { file in (file, { try readInput(file) }) })
        var candidates: [Candidate] = []
        for file in contents.files {
            let candidate = Candidate(name: file, load: { try readInput(file) }, activityName: names[file], identity: identity(of: file))
            candidates += (try? holdsZip(file)) == true ? archiveParts(of: candidate) : [candidate]
        }
        // A folder within that cannot be opened is named among the files that cannot be read;
        // so is a link to a folder, which is not followed.
        for failure in contents.unopened {
            candidates.append(Candidate(name: failure.path, load: { throw LaunchError(failure) }))
        }
        for name in contents.misnamed {
            let reason = "its name is not UTF-8 (from an older system's disk?), which IntervalPro cannot open by: rename it (`convmv -f latin1 -t utf8 -r --notest FOLDER` renames them all)"
            candidates.append(Candidate(name: name, load: { throw LaunchError(reason, kind: .missingInput) }))
        }
        for link in contents.brokenLinks {
            let reason = "a link to \(link.target), which is not there (moved or deleted?)"
            candidates.append(Candidate(name: link.path, load: { throw LaunchError(reason, kind: .missingInput) }))
        }
        for link in contents.linkedFolders {
            let reason = "a link to a folder, not followed (one to a parent would loop): import the folder it links to by its own path"
            candidates.append(Candidate(name: link, load: { throw LaunchError(reason, kind: .missingInput) }))
        }
        return candidates
    }

    /// The parts of a zip archive on disk, read from it mapped rather than read into memory:
    /// a Strava export with its photos and videos may be larger than the memory. An archive
    /// that cannot be mapped or read is left to be read, and said, as a file.
    static func archiveParts(of candidate: Candidate) -> [Candidate] {
        guard let archive = try? MappedFile(candidate.name) else { return [candidate] }
        return parts(of: candidate, in: archive)
    }

    /// The parts of a mapped zip archive, or the candidate itself when it cannot be read as
    /// one. A zip inside it (Garmin's export keeps its FIT files in `UploadedFiles_*.zip`, up
    /// to gigabytes) is written to a temporary file and mapped in turn, never held in memory.
    static func parts(of candidate: Candidate, in archive: MappedFile) -> [Candidate] {
        guard let entries = try? Zip.entries(archive.bytes) else { return [candidate] }
        let names = exportNames(entries.map { entry in (entry.name, { try Zip.contents(of: entry, in: archive.bytes) }) })
        var parts: [Candidate] = []
        for entry in entries where !entry.isFolderOrMacResource {
            let part = Candidate(
                name: "\(candidate.name) (\(entry.name))",
                // A file larger than any activity (a video) is not taken out: it holds none.
                load: { entry.isLargerThanAnyActivity ? [] : try Zip.contents(of: entry, in: archive.bytes) },
                activityName: names[entry.name], identity: candidate.identity.map { "\($0) (\(entry.name))" })
            guard entry.name.lowercased().hasSuffix(".zip") else {
                parts.append(part)
                continue
            }
            // One that cannot be taken out is left to be read, and its damage said, as a file.
            // One whose copy cannot be written (the temporary folder full) is said as that:
            // it was read as a file larger than any activity, "holds no activity", and its
            // runs were left out without a word.
            let unwritten = Mutex<FileError?>(nil)
            let inner = try? MappedFile.temporary { (write) throws(Zip.ArchiveError) in
                try Zip.contents(of: entry, in: archive.bytes) { (piece) throws(Zip.ArchiveError) in
                    do throws(FileError) {
                        try write(piece)
                    } catch {
                        unwritten.withLock { $0 = error }
                        throw Zip.ArchiveError(message: "\(entry.name): \(error)")
                    }
                }
            }
            if let failure = unwritten.withLock({ $0 }) {
                let copy = "\(failure) (a copy of the zip inside, made in the temporary folder: TMPDIR, else /var/tmp)"
                parts.append(Candidate(name: part.name, load: { throw LaunchError(copy, kind: .io) }))
                continue
            }
            parts += inner.map { self.parts(of: part, in: $0) } ?? [part]
        }
        return parts
    }

    /// A file on disk as the system knows it, however the path reached it; nil for none.
    static func identity(of path: String) -> String? {
        FileIO.identity(of: path).map { "\($0.device):\($0.inode)" }
    }

    /// The names a Strava export's activities.csv gives its activities, by the path of each
    /// activity's file: for every activities.csv among `files` (by path, with how to read it),
    /// its rows' files are in the folder that holds it. A CSV that cannot be read names none.
    static func exportNames(_ files: [(path: String, read: () throws -> [UInt8])]) -> [String: String] {
        var names: [String: String] = [:]
        for (path, read) in files where path == "activities.csv" || path.hasSuffix("/activities.csv") {
            guard let csv = try? read() else { continue }
            let folder = path.dropLast("activities.csv".count)
            for (file, name) in StravaActivitiesCSV.names(csv) { names[folder + file] = name }
        }
        return names
    }
}
