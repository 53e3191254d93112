import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory under the system's temporary directory, removed on deinit.
final class TemporaryDirectory {
    let path: String

    init() throws {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("intervalpro-iotests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        path = url.path
    }

    func file(_ name: String) -> String { path + "/" + name }

    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Whether this process holds a descriptor open on `path` (read from /proc/self/fd, so
/// it does not depend on the code under test).
func processHasOpen(_ path: String) -> Bool {
    let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return false }
    return entries.contains { entry in
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)") else {
            return false
        }
        return target == path || target == resolved
    }
}
