import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where human output goes and whether it may be coloured: only on a terminal, and never
/// when `NO_COLOR` is set (https://no-color.org: any non-empty value).
struct Terminal: Sendable {
    var usesColour: Bool

    init(usesColour: Bool) {
        self.usesColour = usesColour
    }

    init(environment: [String: String], standardOutputIsTerminal: Bool) {
        usesColour =
            standardOutputIsTerminal && environment["NO_COLOR", default: ""].isEmpty
            && environment["TERM"] != "dumb"
    }

    /// The terminal of this process.
    static var current: Terminal {
        Terminal(environment: ProcessInfo.processInfo.environment, standardOutputIsTerminal: isatty(STDOUT_FILENO) == 1)
    }

    /// True when a person can answer a question on standard input.
    static var standardInputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    enum Colour: String, Sendable {
        case green = "32"
        case red = "31"
        case yellow = "33"
        case dim = "2"
        case bold = "1"
    }

    /// `text` in `colour` when colour is on; unchanged otherwise.
    func paint(_ text: String, _ colour: Colour?) -> String {
        guard usesColour, let colour, !text.isEmpty else { return text }
        return "\u{1B}[\(colour.rawValue)m\(text)\u{1B}[0m"
    }

    /// The colour that says how healthy an availability or result word is.
    static func colour(forStatus word: String) -> Colour? {
        switch word.lowercased() {
        case "online", "ok", "paired", "on": .green
        case "offline", "failed", "error": .red
        case "unknown", "-": .dim
        default: nil
        }
    }
}
