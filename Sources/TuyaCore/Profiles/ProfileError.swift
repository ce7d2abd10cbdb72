/// Why a device profile (`devices/*.yaml`) was rejected, and where.
///
/// Profiles are written by hand, often by users adding their own product, so every
/// error names the file, the key path inside it (`data_points[3].max`), the line when
/// the YAML parser knows it, and what to change. `description` reads like a compiler
/// diagnostic: `devices/foo.yaml:12: data_points[2].id: duplicate DP id 20 (also at data_points[0])`.
public struct ProfileError: Error, CustomStringConvertible, Hashable, Sendable {
    /// The file (or other source name) the profile came from.
    public var source: String
    /// Dotted key path with sequence indices, e.g. `capabilities.color_temp`;
    /// empty when the problem concerns the whole document.
    public var keyPath: String
    /// 1-based line of the offending node, when known.
    public var line: Int?
    /// What is wrong and, where it helps, how to fix it.
    public var reason: String

    public init(source: String, keyPath: String = "", line: Int? = nil, reason: String) {
        self.source = source
        self.keyPath = keyPath
        self.line = line
        self.reason = reason
    }

    public var description: String {
        var text = source
        if let line { text += ":\(line)" }
        text += ": "
        if !keyPath.isEmpty { text += "\(keyPath): " }
        return text + reason
    }
}
