/// The files macOS leaves beside a user's own on a disk or in an archive it writes: resource
/// forks (AppleDouble `._NAME`, an archive's `__MACOSX/`), Finder's `.DS_Store`, and the
/// folders of Spotlight, the Trash and fsevents on a stick. Never an activity or a morning:
/// a stick of 300 runs copied from a Mac listed 300 `._` files as unreadable.
public enum MacMetadata {
    static let folders: Set<Substring> = ["__MACOSX", ".Spotlight-V100", ".fseventsd", ".Trashes", ".TemporaryItems"]

    /// Whether `path` (relative to what the user named: a folder's contents, an archive's
    /// entries) is one of them.
    public static func holds(_ path: String) -> Bool {
        let components = path.split(separator: "/")
        guard let name = components.last else { return false }
        return name.hasPrefix("._") || name == ".DS_Store" || components.dropLast().contains(where: folders.contains)
    }
}
