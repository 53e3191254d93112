import IntervalProCore
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

extension FileIO {
    /// A file a command writes for the user (an export, a report, a rendered WAV), replacing
    /// what `path` held: written in a new file beside it and renamed over it by `commit`, so
    /// that a full disk or a failure half way leaves the old file (or none), never half of the
    /// new. A device, a pipe or a link is written in place, and standard output as it is. A
    /// database (the session store, named by mistake), a recording, an activity another
    /// program wrote, a file the command reads and a file its owner made read-only are never
    /// written over.
    public final class Replacement {
        public let path: String
        private var descriptor: FileDescriptor?
        /// Where the bytes go until `commit`; nil when written in place.
        private let temporary: String?
        private let closesDescriptor: Bool

        /// `inputs`: the files the command reads, which it must not write over (`render-audio
        /// -o` naming its own `--replay` made the recording a WAV).
        public init(_ path: String, readingFrom inputs: [String] = []) throws(FileError) {
            self.path = path
            closesDescriptor = true
            var info = stat()
            let exists = lstat(path, &info) == 0
            let kind = info.st_mode & S_IFMT
            if exists, kind == S_IFREG || kind == S_IFLNK { try Self.checkMayWriteOver(path, readingFrom: inputs) }
            let inPlace = exists && kind != S_IFREG
            if !inPlace { FileIO.removeAbandonedReplacements(of: path) }
            let target = inPlace ? path : FileIO.replacementName(of: path)
            do {
                descriptor = try FileDescriptor.open(
                    FilePath(target), .writeOnly, options: inPlace ? [.create, .truncate] : [.create, .exclusiveCreate],
                    permissions: [.ownerReadWrite, .groupRead, .otherRead])
            } catch {
                throw FileError(path: path, operation: .create, errno: error as? Errno ?? .ioError)
            }
            temporary = inPlace ? nil : target
            // A file replaced keeps who may read it.
            if exists, let temporary { chmod(temporary, info.st_mode & 0o7777) }
        }

        /// Refuses to write over what is worth more than the output: the session store, a
        /// recording (as `record` never writes over one), the command's own input, and a file
        /// its owner made read-only (the rename beside it would replace it: the shell and `cp`
        /// refuse). `path` is a regular file or a link.
        private static func checkMayWriteOver(_ path: String, readingFrom inputs: [String]) throws(FileError) {
            // A dangling link: nothing is there to keep.
            guard FileIO.isRegularFile(path) else { return }
            if FileIO.holdsDatabase(path) {
                throw FileError(
                    path: path, operation: .write, errno: .fileExists,
                    reason: "it holds an SQLite database (the session store?), which is never written over: choose another file")
            }
            for input in inputs where input != "-" {
                if FileIO.isSameFile(input, path) {
                    throw FileError(
                        path: path, operation: .write, errno: .fileExists,
                        reason: "it is \(input == path ? "the file" : "\(input), the file") this command reads: choose another file")
                }
            }
            if FileIO.holdsRecording(path) {
                throw FileError(
                    path: path, operation: .write, errno: .fileExists,
                    reason: "it holds an IntervalPro recording, which is never written over: choose another name, or remove it first")
            }
            if let activity = othersActivity(path) {
                throw FileError(
                    path: path, operation: .write, errno: .fileExists,
                    reason: "it holds \(activity) IntervalPro did not write (a watch's run?), which is never written over: choose another name, or remove it first")
            }
            if access(path, W_OK) != 0, errno == EACCES || errno == EROFS {
                throw FileError(path: path, operation: .write, errno: Errno(rawValue: errno))
            }
            // As root, `access` allows what the mode refuses: a file its owner made read-only
            // was written over (`report -o notes.txt` of a chmod 444 file).
            var info = stat()
            if stat(path, &info) == 0, info.st_mode & 0o222 == 0 {
                throw FileError(
                    path: path, operation: .write, errno: .permissionDenied,
                    reason: "it is read-only (mode \(String(info.st_mode & 0o777, radix: 8))), which is never written over: choose another file")
            }
        }

        /// Standard output, past anything `print` buffered.
        public init(standardOutput: ()) throws(FileError) {
            path = "standard output"
            if let failure = Terminal.flushStandardOutput() {
                throw FileError(path: path, operation: .write, errno: failure)
            }
            descriptor = .standardOutput
            temporary = nil
            closesDescriptor = false
        }

        deinit {
            // Not committed: the old file stays as it was.
            if closesDescriptor { try? descriptor?.close() }
            if let temporary, descriptor != nil { unlink(temporary) }
        }

        public func write(_ bytes: UnsafeRawBufferPointer) throws(FileError) {
            guard let descriptor else { return }
            do {
                _ = try descriptor.writeAll(bytes)
            } catch {
                throw FileError(path: path, operation: .write, errno: error as? Errno ?? .ioError)
            }
        }

        public func write(_ bytes: some Sequence<UInt8>) throws(FileError) {
            guard let descriptor else { return }
            do {
                _ = try descriptor.writeAll(bytes)
            } catch {
                throw FileError(path: path, operation: .write, errno: error as? Errno ?? .ioError)
            }
        }

        /// Closes the file and puts it in place of the old one.
        public func commit() throws(FileError) {
            guard let descriptor else { return }
            defer { self.descriptor = nil }
            guard closesDescriptor else { return }
            do {
                try descriptor.close()
            } catch {
                if let temporary { unlink(temporary) }
                throw FileError(path: path, operation: .write, errno: error as? Errno ?? .ioError)
            }
            guard let temporary else { return }
            guard rename(temporary, path) == 0 else {
                let failure = Errno(rawValue: errno)
                unlink(temporary)
                throw FileError(path: path, operation: .write, errno: failure)
            }
        }
    }

    /// Where this process writes the new contents of `path` before renaming them over it: a name
    /// no other process writes, which tells whose it is when it is left behind.
    static func replacementName(of path: String) -> String { "\(path).intervalpro-\(getpid()).tmp" }

    /// Removes the new files of `path` a killed writer left beside it (`kill -9` of a long
    /// `render-audio` left 261 MB that nothing removed): those named by a process that is gone.
    static func removeAbandonedReplacements(of path: String) {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { path[..<$0].isEmpty ? "/" : String(path[..<$0]) } ?? "."
        let prefix = (slash.map { String(path[path.index(after: $0)...]) } ?? path) + ".intervalpro-"
        guard let directory = opendir(folder) else { return }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasPrefix(prefix), name.hasSuffix(".tmp"), let pid = pid_t(name.dropFirst(prefix.count).dropLast(4)),
                pid > 0, pid != getpid()
            else { continue }
            // Another user's live process answers EPERM, not ESRCH: its file stays.
            if kill(pid, 0) != 0, errno == ESRCH { unlink(folder + "/" + name) }
        }
    }

    /// Writes `bytes` to `path`, replacing what was there (see `Replacement`).
    public static func write(_ bytes: some Sequence<UInt8>, to path: String) throws(FileError) {
        let file = try Replacement(path)
        try file.write(bytes)
        try file.commit()
    }

    /// Writes `bytes` to standard output, past anything `print` buffered.
    public static func writeStandardOutput(_ bytes: [UInt8]) throws(FileError) {
        let output = try Replacement(standardOutput: ())
        try output.write(bytes)
    }

    /// Whether the file at `path` begins as an SQLite database does ("SQLite format 3\0").
    private static func holdsDatabase(_ path: String) -> Bool {
        let header = opening(path, count: 16)
        return header.count == 16 && header == Array("SQLite format 3\u{0}".utf8)
    }

    /// Whether the file at `path` begins with a recording's header line.
    private static func holdsRecording(_ path: String) -> Bool {
        RecordingFormat.begins(opening(path, count: 256))
    }

    /// What the file at `path` holds, when it is an activity another program wrote ("a FIT
    /// file", "a TCX file", "a GPX file", "a gzip file", "a zip file"); nil otherwise. Exported
    /// over (`export 1 --format jsonl -o run002.fit`), a watch's run was lost, as a recording is
    /// not. IntervalPro's own FIT files name it in a device_info or file_id message near their
    /// start, its TCX files in the `<Creator>` at their end: exported again, they are replaced.
    private static func othersActivity(_ path: String) -> String? {
        let head = opening(path, count: 512)
        func contains(_ bytes: [UInt8], _ text: String) -> Bool {
            let needle = Array(text.utf8)
            return bytes.count >= needle.count && (0...(bytes.count - needle.count)).contains { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
        }
        if head.count >= 12, head[8..<12].elementsEqual(".FIT".utf8) {
            return contains(head, ProgramName.creator + "\u{0}") ? nil : "a FIT file"
        }
        if head.starts(with: [0x1F, 0x8B]) { return "a gzip file" }
        if head.starts(with: Array("PK\u{3}\u{4}".utf8)) { return "a zip file" }
        if contains(head, "<gpx") { return "a GPX file" }
        if contains(head, "<TrainingCenterDatabase") {
            return contains(ending(path, count: 1024), "<Name>\(ProgramName.creator)</Name>") ? nil : "a TCX file"
        }
        return nil
    }

    /// Up to `count` bytes from the start of the file at `path` (none when it cannot be read).
    private static func opening(_ path: String, count: Int) -> [UInt8] {
        guard let fd = try? FileDescriptor.open(FilePath(path), .readOnly) else { return [] }
        defer { try? fd.close() }
        var bytes = [UInt8](repeating: 0, count: count)
        let read = (try? bytes.withUnsafeMutableBytes { try fd.read(into: $0) }) ?? 0
        return Array(bytes.prefix(read))
    }

    /// Up to the last `count` bytes of the file at `path` (none when it cannot be read).
    private static func ending(_ path: String, count: Int) -> [UInt8] {
        guard let fd = try? FileDescriptor.open(FilePath(path), .readOnly) else { return [] }
        defer { try? fd.close() }
        guard let size = try? fd.seek(offset: 0, from: .end), (try? fd.seek(offset: max(0, size - Int64(count)), from: .start)) != nil else {
            return []
        }
        var bytes = [UInt8](repeating: 0, count: count)
        let read = (try? bytes.withUnsafeMutableBytes { try fd.read(into: $0) }) ?? 0
        return Array(bytes.prefix(read))
    }
}
