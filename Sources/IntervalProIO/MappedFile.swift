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

    public init(_ path: String) throws(FileError) {
        self.path = path
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(FilePath(path), .readOnly)
        } catch {
            throw FileError(path: path, operation: .open, errno: error as? Errno ?? .ioError)
        }
        // The mapping outlives the descriptor.
        defer { try? fd.close() }
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

    deinit {
        if let start { munmap(start, count) }
    }

    /// The file's bytes, valid while this object lives.
    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: start, count: count) }

    private static func failure(_ path: String, _ operation: FileError.Operation) -> FileError {
        FileError(path: path, operation: operation, errno: Errno(rawValue: errno))
    }
}
