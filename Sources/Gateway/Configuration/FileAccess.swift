import Foundation

/// The only file-system calls the loader makes, injectable so tests need no real `/etc`.
struct FileAccess: Sendable {
    var exists: @Sendable (String) -> Bool
    /// The text of a file of at most `maximumSize` bytes.
    var read: @Sendable (_ path: String, _ maximumSize: Int) throws(InvalidValue) -> String
    var isReadable: @Sendable (String) -> Bool

    static let system = FileAccess(
        exists: { FileManager.default.fileExists(atPath: $0) },
        read: { path, maximumSize throws(InvalidValue) in try readText(path, maximumSize: maximumSize) },
        isReadable: { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
                && FileManager.default.isReadableFile(atPath: path)
        })

    private static func readText(_ path: String, maximumSize: Int) throws(InvalidValue) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw InvalidValue("no such file")
        }
        guard !isDirectory.boolValue else { throw InvalidValue("is a directory, not a YAML file") }
        // Opening a FIFO waits for a writer, and a device can be endless: only regular files,
        // reached through any symbolic links (a config linked from a dotfiles folder or a
        // NixOS or Kubernetes mount).
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw InvalidValue("is not a regular file")
        }
        guard FileManager.default.isReadableFile(atPath: path), let handle = FileHandle(forReadingAtPath: path) else {
            throw InvalidValue("not readable by this user")
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: maximumSize + 1) ?? Data()
        } catch {
            throw InvalidValue("cannot be read: \(error.localizedDescription)")
        }
        guard data.count <= maximumSize else {
            throw InvalidValue("file is over \(maximumSize) bytes; a configuration is limited to \(maximumSize) bytes")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw InvalidValue("not UTF-8 text") }
        return text
    }
}
