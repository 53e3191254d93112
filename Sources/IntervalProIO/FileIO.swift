public import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// A file operation that failed, with the path and the system's reason.
public struct FileError: Error, Sendable, CustomStringConvertible {
    public enum Operation: String, Sendable {
        case open = "open", read = "read", write = "write to", create = "create", sync = "sync"
    }

    public var path: String
    public var operation: Operation
    public var errno: Errno
    /// Said instead of the error's own text, where it tells more ("a recording is never
    /// written over").
    public var reason: String?

    public init(path: String, operation: Operation, errno: Errno, reason: String? = nil) {
        self.path = path
        self.operation = operation
        self.errno = errno
        self.reason = reason
    }

    public var isNotFound: Bool { errno == .noSuchFileOrDirectory }
    public var isPermissionDenied: Bool { errno == .permissionDenied }
    /// A folder where a file was to be read.
    public var isFolder: Bool { errno == .isDirectory }
    /// The path names no file there is to read: missing, a file where its path wants a folder,
    /// a loop of links, or a name too long.
    public var namesNoFile: Bool {
        [.noSuchFileOrDirectory, .notDirectory, .tooManySymbolicLinkLevels, .fileNameTooLong].contains(errno)
    }

    public var description: String {
        "cannot \(operation.rawValue) '\(path)': \(reason ?? errno.description.capitalisedFirst)"
    }
}

extension String {
    fileprivate var capitalisedFirst: String { prefix(1).uppercased() + dropFirst() }
}

public enum FileIO {
    /// Reads a whole file; plans and recordings are small enough to hold in memory.
    public static func readAll(_ path: String) throws(FileError) -> [UInt8] {
        let fd = try openForReading(path)
        defer { try? fd.close() }
        return try readAll(from: fd, name: path)
    }

    /// Reads all of standard input, from its descriptor: opened again as /dev/stdin, a pipe
    /// from another user (`cat plan.json | sudo -u runner intervalpro plan check -`) was
    /// "Permission denied", and a socket (a systemd unit's) "No such device or address".
    public static func readStandardInput() throws(FileError) -> [UInt8] {
        try readAll(from: .standardInput, name: "standard input")
    }

    private static func readAll(from fd: FileDescriptor, name path: String) throws(FileError) -> [UInt8] {
        // A regular file is read straight into an array of its size: grown chunk by chunk,
        // the array was copied into new pages at each doubling (a replay's recording: a third
        // of its page faults). What a pipe sends, or a file that grew meanwhile, comes after.
        var info = stat()
        let size = fstat(fd.rawValue, &info) == 0 && info.st_mode & S_IFMT == S_IFREG ? Int(info.st_size) : 0
        guard size <= largestRead else { throw tooLarge(path) }
        var failure: Errno?
        var bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            while initialized < buffer.count {
                do {
                    let rest = UnsafeMutableBufferPointer(rebasing: buffer[initialized...])
                    let count = try fd.read(into: UnsafeMutableRawBufferPointer(rest))
                    if count == 0 { return }
                    initialized += count
                } catch {
                    failure = error as? Errno ?? .ioError
                    return
                }
            }
        }
        if let failure { throw FileError(path: path, operation: .read, errno: failure) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count: Int
            do {
                count = try chunk.withUnsafeMutableBytes { try fd.read(into: $0) }
            } catch {
                throw FileError(path: path, operation: .read, errno: error as? Errno ?? .ioError)
            }
            if count == 0 { return bytes }
            // /dev/zero or `yes` on a pipe grew to every byte of memory, then trapped.
            guard bytes.count + count <= largestRead else { throw tooLarge(path) }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// More than any plan, recording, workout or activity file holds (a day's recording is
    /// some 20 MB), and what a compressed one may inflate to: past it, the input is refused.
    public static let largestRead = 512 << 20

    private static func tooLarge(_ path: String) -> FileError {
        FileError(
            path: path, operation: .read, errno: .fileTooLarge,
            reason: "it holds more than \(largestRead >> 20) MiB, more than any plan, recording or activity (an endless stream?)")
    }

    /// The first `count` bytes of a file (fewer when it is shorter): enough to tell what it is.
    public static func readPrefix(_ path: String, count: Int) throws(FileError) -> [UInt8] {
        let fd = try openForReading(path)
        defer { try? fd.close() }
        var bytes = [UInt8](repeating: 0, count: count)
        do {
            let read = try bytes.withUnsafeMutableBytes { try fd.read(into: $0) }
            bytes.removeSubrange(read...)
        } catch {
            throw FileError(path: path, operation: .read, errno: error as? Errno ?? .ioError)
        }
        return bytes
    }

    private static func openForReading(_ path: String) throws(FileError) -> FileDescriptor {
        do {
            return try FileDescriptor.open(FilePath(path), .readOnly)
        } catch {
            throw FileError(path: path, operation: .open, errno: error as? Errno ?? .ioError)
        }
    }

    /// Whether `path` is a folder (following a symbolic link to it).
    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Whether `path` is a regular file (following a symbolic link to it): one that can be
    /// read twice, or mapped, unlike a pipe.
    public static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// A named pipe, a socket or a device (/dev/stdin, `<(…)`): what it holds can be read once.
    public static func isStream(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        let kind = info.st_mode & S_IFMT
        return kind == S_IFIFO || kind == S_IFCHR || kind == S_IFSOCK
    }

    /// Whether two paths name the same file or folder (its device and inode), however each
    /// is reached: through links, `..`, another mount's name.
    public static func isSameFile(_ one: String, _ other: String) -> Bool {
        guard let a = identity(of: one) else { return false }
        return identity(of: other) == a
    }

    /// A file or folder as the system knows it: the same however a path reaches it.
    public struct Identity: Hashable, Sendable {
        public let device: UInt64
        public let inode: UInt64
    }

    /// The identity of what `path` names (a link's target); nil when it names nothing.
    public static func identity(of path: String) -> Identity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// What a folder holds at any depth: its regular files, sorted by path, and the folders
    /// within it that could not be opened (no permission: a disk's `lost+found`), each left
    /// out with its reason rather than failing the whole walk.
    public struct FolderContents: Sendable {
        public var files: [String] = []
        public var unopened: [FileError] = []
        /// Links to folders, not followed: one to a parent would loop, one to `/` or the home
        /// folder would walk far more than was asked.
        public var linkedFolders: [String] = []
        /// Links to nothing (what they named was moved or deleted), each with what it names.
        public var brokenLinks: [(path: String, target: String)] = []
        /// Files and folders whose names are not UTF-8 (Latin-1 from an old disk), which a
        /// path here cannot name: each with its bytes that are not written `\xE4`.
        public var misnamed: [String] = []
    }

    /// The regular files under `folder` at any depth, sorted by path, links to files among
    /// them. Only `folder` itself must open; a folder within it that does not is named in
    /// `unopened`, a link to a folder in `linkedFolders`, a link to nothing in `brokenLinks`.
    public static func files(under folder: String) throws(FileError) -> FolderContents {
        var contents = FolderContents()
        try walk(folder, into: &contents)
        contents.files.sort()
        return contents
    }

    /// What the link at `path` names, as written in it.
    private static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink(path, &buffer, buffer.count - 1)
        guard length >= 0 else { return nil }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func walk(_ folder: String, into contents: inout FolderContents) throws(FileError) {
        guard let directory = opendir(folder) else {
            throw FileError(path: folder, operation: .open, errno: Errno(rawValue: errno))
        }
        defer { closedir(directory) }
        var folders: [String] = []
        while let entry = readdir(directory) {
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            // Decoded with replacement characters, such a name named no file and was passed
            // over without a word, a folder with all it held.
            guard let name = String(validating: bytes, as: UTF8.self) else {
                let shown = bytes.map { $0 < 0x80 ? String(UnicodeScalar($0)) : "\\x" + String($0, radix: 16, uppercase: true) }.joined()
                contents.misnamed.append(folder.hasSuffix("/") ? folder + shown : folder + "/" + shown)
                continue
            }
            guard name != ".", name != ".." else { continue }
            let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR: folders.append(path)
            case S_IFREG: contents.files.append(path)
            case S_IFLNK:
                // Through the link to what it names. A link to nothing was passed over without
                // a word, where the same link named alone was "No such file or directory".
                guard stat(path, &info) == 0 else {
                    contents.brokenLinks.append((path, linkTarget(path) ?? "?"))
                    continue
                }
                switch info.st_mode & S_IFMT {
                case S_IFREG: contents.files.append(path)
                case S_IFDIR: contents.linkedFolders.append(path)
                default: break
                }
            default: break
            }
        }
        for path in folders {
            do {
                try walk(path, into: &contents)
            } catch {
                contents.unopened.append(error)
            }
        }
    }
}

/// Writes a recording line by line as notifications arrive. Each line reaches the
/// kernel with its own write, so Ctrl-C or a crash keeps everything received so far;
/// `close` (or deinit) also syncs the file to disk.
extension FileIO {
    /// A file's permission bits (0o644), or nil when it cannot be looked at.
    public static func permissions(_ path: String) -> UInt32? {
        var info = stat()
        return stat(path, &info) == 0 ? UInt32(info.st_mode) & 0o7777 : nil
    }

    /// Takes group's and others' access away from a file that holds a secret (written 0600,
    /// but one copied in, or left by an older version, may say 0644).
    public static func keepPrivate(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & 0o077 != 0 else { return }
        _ = chmod(path, info.st_mode & 0o700)
    }

    /// Whether `path`'s folder cannot be written (a read-only mount, an immutable folder):
    /// SQLite then says only that it "cannot open the database file".
    public static func folderIsReadOnly(at path: String) -> Bool {
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
        return access(folder, W_OK) != 0 && (errno == EROFS || errno == EACCES || errno == EPERM)
    }

    /// Whether the file begins with zeros where SQLite's header belongs: a damaged
    /// store (a card's error, a crash of the disk), not another program's file.
    public static func beginsWithZeros(_ path: String, count: Int = 100) -> Bool {
        guard let fd = try? openForReading(path) else { return false }
        defer { try? fd.close() }
        var bytes = [UInt8](repeating: 1, count: count)
        let read = (try? bytes.withUnsafeMutableBytes { try fd.read(into: $0) }) ?? 0
        return read == count && bytes.allSatisfy { $0 == 0 }
    }

    /// Whether the file system holding `path` (a file, or the folder it would be made in)
    /// has no room for an unprivileged writer: SQLite says only "disk I/O error" when its
    /// shared-memory file cannot grow on a full disk.
    public static func fileSystemIsFull(at path: String) -> Bool {
        var info = statvfs()
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
        guard statvfs(path, &info) == 0 || statvfs(folder, &info) == 0 else { return false }
        // Less than a few pages left: SQLite's next page, its journal's, and the shm's 32 KiB.
        return UInt64(info.f_bavail) * UInt64(info.f_frsize) < 64 << 10
    }
}

public final class RecordingWriter {
    public let path: String
    private var fd: FileDescriptor?
    /// What a full disk left unwritten, written first when there is room: a line is never left
    /// half-written, and a disk full for a moment no longer ends the recording.
    private var unwritten: [UInt8] = []
    /// Bytes written, and of them those up to the end of the last whole line: a disk still
    /// full at the close leaves the file cut there, not in half a line.
    private var written = 0
    private var wholeLines = 0
    /// Bytes a full disk may hold in memory (some hours of a live session): past them, writing fails.
    static let heldLimit = 16 << 20

    /// Whether a full disk holds the end of the recording in memory.
    public var isHeldByFullDisk: Bool { !unwritten.isEmpty }

    /// What to say after a write, when the full disk's hold began or ended; `wasHeld` is
    /// `isHeldByFullDisk` before it.
    public func fullDiskNews(wasHeld: Bool) -> String? {
        switch (wasHeld, isHeldByFullDisk) {
        case (false, true): "\(path): the disk is full: the recording is held in memory and written when there is room"
        case (true, false): "\(path): recording again: the disk has room, and what it held is written"
        default: nil
        }
    }

    /// Refuses a file that holds something already: a recording run again with the same name
    /// replaced the first without a word (an empty file, as `mktemp` leaves, or a pipe is taken).
    public init(path: String, headerLine: String) throws(FileError) {
        self.path = path
        let opened: FileDescriptor
        do {
            opened = try FileDescriptor.open(
                FilePath(path), .writeOnly, options: [.create, .append],
                permissions: [.ownerReadWrite, .groupRead, .otherRead])
        } catch {
            throw FileError(path: path, operation: .create, errno: error as? Errno ?? .ioError)
        }
        // Held while it is written: two recordings started at once onto one name both found it
        // empty and both wrote (two headers, a file replay refuses). A regular file only: a
        // pipe or a terminal is another program's to share.
        var info = stat()
        if fstat(opened.rawValue, &info) == 0, info.st_mode & S_IFMT == S_IFREG, flock(opened.rawValue, LOCK_EX | LOCK_NB) != 0 {
            try? opened.close()
            throw FileError(
                path: path, operation: .create, errno: .resourceTemporarilyUnavailable,
                reason: "another recording is being written to it")
        }
        if fstat(opened.rawValue, &info) == 0, Self.holdsSomething(info) {
            try? opened.close()
            throw Self.exists(path)
        }
        fd = opened
        try write(line: headerLine)
    }

    /// Says now what `init` would refuse (a file that holds something, a folder that is not
    /// there), before sensors are looked for and connected: up to `--scan-timeout` in vain.
    public static func checkTarget(_ path: String) throws(FileError) {
        var info = stat()
        if stat(path, &info) == 0 {
            if holdsSomething(info) { throw exists(path) }
            // A folder was found out only once the sensors were up, when the first write failed.
            if info.st_mode & S_IFMT == S_IFDIR { throw FileError(path: path, operation: .create, errno: .isDirectory) }
            return
        }
        let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        if !folder.isEmpty, stat(folder, &info) != 0 {
            throw FileError(path: path, operation: .create, errno: Errno(rawValue: errno))
        }
    }

    /// A regular file with bytes in it: not to be written over.
    private static func holdsSomething(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFREG && info.st_size > 0 }

    /// Whatever the file holds: "a recording is never written over" read as if it held one.
    private static func exists(_ path: String) -> FileError {
        FileError(
            path: path, operation: .create, errno: .fileExists,
            reason: "it exists and is not empty, and recording never writes over a file: choose another name, or remove it first")
    }

    public func write(line: String) throws(FileError) {
        guard fd != nil else { return }
        unwritten.append(contentsOf: (line + "\n").utf8)
        try writeUnwritten(holdingWhenFull: true)
    }

    /// Writes what waits; a full disk keeps it waiting (up to `heldLimit`) when `holdingWhenFull`.
    private func writeUnwritten(holdingWhenFull: Bool) throws(FileError) {
        guard let fd else { return }
        var done = 0
        defer { unwritten.removeFirst(done) }
        while done < unwritten.count {
            let count = unwritten.withUnsafeBytes { bytes in
                Glibc.write(fd.rawValue, bytes.baseAddress! + done, bytes.count - done)
            }
            if count > 0 {
                if let newline = unwritten[done..<(done + count)].lastIndex(of: UInt8(ascii: "\n")) {
                    wholeLines = written + (newline - done) + 1
                }
                written += count
                done += count
                continue
            }
            let code = count < 0 ? errno : EIO
            if code == EINTR { continue }
            if code == ENOSPC, holdingWhenFull, unwritten.count - done <= Self.heldLimit { return }
            // Given up: the file ends at its last whole line, what follows it never written.
            if wholeLines < written, ftruncate(fd.rawValue, off_t(wholeLines)) == 0 {
                written = wholeLines
                unwritten.removeAll()
                done = 0
            }
            throw FileError(path: path, operation: .write, errno: Errno(rawValue: code))
        }
    }

    /// Set for a recording made in real time: what is written reaches the disk once a second
    /// (`keep(through:)`), so a power cut loses the last second at most, as the docs promise;
    /// it was synced only at the close.
    public var syncsEachSecond = false
    private var syncedSecond = Int.min

    /// After the values up to `seconds` of the session are written: syncs them to the disk
    /// when a new second began (only with `syncsEachSecond`).
    public func keep(through seconds: Double) throws(FileError) {
        let second = Int(seconds.rounded(.down))
        guard syncsEachSecond, second != syncedSecond, unwritten.isEmpty, let fd else { return }
        syncedSecond = second
        if fdatasync(fd.rawValue) != 0 {
            throw FileError(path: path, operation: .sync, errno: Errno(rawValue: errno))
        }
    }

    /// Several lines in one write (values that arrived together).
    public func write(lines: [String]) throws(FileError) {
        guard !lines.isEmpty else { return }
        try write(line: lines.joined(separator: "\n"))
    }

    public func close() throws(FileError) {
        guard let fd else { return }
        let held: FileError?
        do throws(FileError) {
            try writeUnwritten(holdingWhenFull: false)
            held = nil
        } catch {
            held = error
        }
        self.fd = nil
        if let held {
            try? fd.close()
            throw held
        }
        do {
            try fd.closeAfter {
                if fsync(fd.rawValue) != 0 { throw Errno(rawValue: errno) }
            }
        } catch {
            throw FileError(path: path, operation: .sync, errno: error as? Errno ?? .ioError)
        }
    }

    deinit {
        try? close()
    }
}

