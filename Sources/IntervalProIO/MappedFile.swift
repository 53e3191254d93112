import SystemPackage
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
