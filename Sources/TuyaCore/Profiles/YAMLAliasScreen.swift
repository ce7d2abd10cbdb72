/// Finds YAML anchors (`&name`) and aliases (`*name`) before the text reaches the parser.
///
/// Yams' composer resolves an alias by reusing the anchored node, so a "billion laughs"
/// document stays small in memory, but anything that walks or hashes it (Yams itself
/// hashes mapping keys to find duplicates) does exponential work. Anchors are also
/// useless in a profile. After composing, the nodes no longer say reliably whether they
/// came from an alias (the anchor reference is weak), so the screen runs on the text.
///
/// It errs on the side of refusing: an `&` or `*` followed by a non-blank character is
/// treated as an anchor or alias whenever it stands where a YAML node can start, which is
/// at the start of a line or after `-`, `:`, `?`, `[`, `{`, `,` or a `!tag`. In running
/// text (`R&D`, `10*100`, `Clean & refill`) the characters are fine.
public enum YAMLAliasScreen {
    public struct Finding: Equatable, Sendable {
        /// 1-based.
        public var line: Int
        public var isAnchor: Bool

        public init(line: Int, isAnchor: Bool) {
            self.line = line
            self.isAnchor = isAnchor
        }
    }

    public static func firstAnchorOrAlias(in text: String) -> Finding? {
        let scalars = Array(text.unicodeScalars)
        var line = 1
        // Starts of the run of non-blank characters being read and of the one before it,
        // tracked here so no candidate rescans a long run (that was quadratic in the text).
        var runStart = 0
        var previousRunStart = 0
        for index in scalars.indices {
            let scalar = scalars[index]
            if isLineBreak(scalar) {
                // CR LF counts once.
                if !(scalar == "\r" && index + 1 < scalars.count && scalars[index + 1] == "\n") { line += 1 }
                continue
            }
            if isBlank(scalar) { continue }
            if index == 0 || isBlank(scalars[index - 1]) || isLineBreak(scalars[index - 1]) {
                previousRunStart = runStart
                runStart = index
            }
            guard scalar == "&" || scalar == "*" else { continue }
            let next = index + 1 < scalars.count ? scalars[index + 1] : nil
            guard let next, !isBlank(next), !isLineBreak(next) else { continue }
            // The word before the candidate: the current run when nothing separates them.
            let wordStart = runStart < index ? runStart : previousRunStart
            if standsAtNodeStart(scalars, before: index, wordStart: wordStart) {
                return Finding(line: line, isAnchor: scalar == "&")
            }
        }
        return nil
    }

    private static func standsAtNodeStart(_ scalars: [Unicode.Scalar], before index: Int, wordStart: Int) -> Bool {
        var cursor = index - 1
        while cursor >= 0, isBlank(scalars[cursor]) { cursor -= 1 }
        guard cursor >= 0, !isLineBreak(scalars[cursor]) else { return true }
        let previous = scalars[cursor]
        if "-:?[{,".unicodeScalars.contains(previous) { return true }
        // A tag (`!!str`, `!local`, `!<uri>`) may precede an anchor or alias.
        if scalars[wordStart] == "!" { return true }
        // Letters, digits and ordinary punctuation mean the character sits inside running text.
        // A preceding `*` or `&` ends a word that was screened itself.
        return
            !(previous.properties.isAlphabetic || previous.properties.numericType != nil
            || ".)]}'\"/=+_;(<>%$@^~|\\#`*&".unicodeScalars.contains(previous))
    }

    private static func isBlank(_ scalar: Unicode.Scalar) -> Bool { scalar == " " || scalar == "\t" }

    /// libyaml follows YAML 1.1, which also breaks lines at NEL, LS and PS; the BOM starts a line too.
    private static func isLineBreak(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x0D, 0x85, 0x2028, 0x2029, 0xFEFF: true
        default: false
        }
    }
}
