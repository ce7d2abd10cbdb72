import Foundation

/// The gateway process's resident memory, read from Linux's `/proc/self/statm`.
enum ProcessMemory {
    /// Resident set size in bytes; nil where `/proc` is missing or unreadable (not Linux).
    static func residentBytes(statmFile path: String = "/proc/self/statm") -> Int64? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return residentBytes(statm: text, pageSize: Int64(sysconf(Int32(_SC_PAGESIZE))))
    }

    /// `statm` is "size resident shared text lib data dt", counted in pages.
    static func residentBytes(statm text: String, pageSize: Int64) -> Int64? {
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count >= 2, let pages = Int64(fields[1]), pages >= 0, pageSize > 0 else { return nil }
        return pages.multipliedReportingOverflow(by: pageSize).overflow ? nil : pages * pageSize
    }
}
