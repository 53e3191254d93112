import SystemPackage
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A file's bytes mapped read-only into memory instead of read into it. The kernel pages in
/// what is read and may drop those pages again, so an archive larger than the memory (a
/// Strava export with its photos and videos, several gigabytes) is read on a Pi all the same:
/// only the entries taken out of it are held. Unmapped when released.
///
/// The file must not shrink while it is mapped: a page past its new end cannot be read.
public final class MappedFile: @unchecked Sendable {
    public let path: String
    /// Immutable once mapped, and read-only: shared between threads without a lock.
    private let start: UnsafeMutableRawPointer?
    private let count: Int

    public convenience init(_ path: String) throws(FileError) {
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(FilePath(path), .readOnly)
        } catch {
            throw FileError(path: path, operation: .open, errno: error as? Errno ?? .ioError)
        }
        // The mapping outlives the descriptor.
        defer { try? fd.close() }
        try self.init(mapping: fd, path: path)
    }

    private init(mapping fd: FileDescriptor, path: String) throws(FileError) {
        self.path = path
        var info = stat()
        guard fstat(fd.rawValue, &info) == 0 else { throw Self.failure(path, .read) }
        count = Int(info.st_size)
        // An empty file has nothing to map (mmap refuses a length of 0).
        guard count > 0 else {
            start = nil
            return
        }
        let mapped = mmap(nil, count, PROT_READ, MAP_PRIVATE, fd.rawValue, 0)
        guard let mapped, mapped != MAP_FAILED else { throw Self.failure(path, .read) }
        start = mapped
        BusErrorNotice.prepare(for: path)
    }

    /// A file that `fill` writes, a piece at a time through the function it is given, then
    /// mapped: for content too large to hold in memory (a zip inside a zip). The file is in
    /// `folder`, and is removed as soon as it is made: nothing is left of it once it is
    /// released, even after a crash.
    public static func temporary<Failure: Error>(
        in folder: String = temporaryFolder, _ fill: ((UnsafeRawBufferPointer) throws(FileError) -> Void) throws(Failure) -> Void
    ) throws -> MappedFile {
        var template = Array("\(folder)/intervalpro-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw failure(folder, .create) }
        let path = String(cString: template)
        unlink(path)
        let fd = FileDescriptor(rawValue: descriptor)
        defer { try? fd.close() }
        try fill { (piece) throws(FileError) in
            do {
                _ = try fd.writeAll(piece)
            } catch {
                throw FileError(path: path, operation: .write, errno: error as? Errno ?? .ioError)
            }
        }
        return try MappedFile(mapping: fd, path: path)
    }

    /// $TMPDIR, else /var/tmp: on disk where /tmp may be memory.
    public static var temporaryFolder: String {
        getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/var/tmp"
    }

    deinit {
        if let start { munmap(start, count) }
    }

    /// The file's bytes, valid while this object lives.
    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: start, count: count) }

    private static func failure(_ path: String, _ operation: FileError.Operation) -> FileError {
        FileError(path: path, operation: operation, errno: Errno(rawValue: errno))
    }
}

/// A mapped file cut short by another program while it is read (`cp new.zip run.zip` over it,
/// a USB stick pulled) raises SIGBUS at the first page past its new end: the process died
/// with "Bus error" and nothing else. The handler says which file, as one line, and exits 74;
/// what was saved before stays, as after any stop.
enum BusErrorNotice {
    /// The line to write, copied in when a file is mapped (a signal handler may not allocate);
    /// one buffer for good, so that the handler never reads one freed.
    private static let capacity = 4096
    private nonisolated(unsafe) static let line = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
    private nonisolated(unsafe) static var length = 0
    private static let installed = Mutex(false)

    static func prepare(for path: String) {
        installed.withLock { installed in
            let text = Array("intervalpro: cannot read '\(path)': it became shorter while it was read (changed by another program?)\n".utf8)
            length = 0
            let count = min(text.count, capacity)
            text.withUnsafeBufferPointer { line.update(from: $0.baseAddress!, count: count) }
            length = count
            guard !installed else { return }
            installed = true
            let handler: @convention(c) (Int32) -> Void = { _ in
                _ = write(STDERR_FILENO, BusErrorNotice.line, BusErrorNotice.length)
                _exit(74)
            }
            signal(SIGBUS, handler)
        }
    }
}
