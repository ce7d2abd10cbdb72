import Foundation
import YoullTestSupport

/// Reads a systemd unit or sysusers file from scripts/systemd the way systemd.syntax(7) does:
/// `[Section]` headers, `Key=value` lines, `#`/`;` comments, a trailing backslash continuing a
/// line. Keys may repeat (`After=` twice), so each maps to all its values in order.
struct SystemdUnitFile {
    struct Malformed: Error, CustomStringConvertible {
        var line: Int
        var text: String
        var description: String { "line \(line): '\(text)' is neither a [Section], a Key=value nor a comment" }
    }

    private(set) var sections: [String: [String: [String]]] = [:]

    /// The checkout's `scripts/systemd/<name>`, found from this source file.
    static func scriptURL(_ name: String) -> URL {
        URL(fileURLWithPath: Repository.path("scripts/systemd/\(name)"))
    }

    init(contentsOf url: URL) throws {
        try self.init(text: String(contentsOf: url, encoding: .utf8))
    }

    init(text: String) throws {
        var section: String?
        var pending = ""
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = pending + raw.trimmingCharacters(in: .whitespaces)
            pending = ""
            if line.hasSuffix("\\") {
                line.removeLast()
                pending = line + " "
                continue
            }
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                section = String(line.dropFirst().dropLast())
                continue
            }
            guard let section, let equals = line.firstIndex(of: "="), equals != line.startIndex else {
                throw Malformed(line: index + 1, text: line)
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            sections[section, default: [:]][key, default: []].append(value)
        }
    }

    /// The last value of `key`, the one systemd uses for a single-valued setting.
    func value(_ section: String, _ key: String) -> String? {
        sections[section]?[key]?.last
    }

    /// Every space-separated word over all the `key` lines, for list settings.
    func words(_ section: String, _ key: String) -> [String] {
        (sections[section]?[key] ?? []).flatMap { $0.split(separator: " ").map(String.init) }
    }
}
