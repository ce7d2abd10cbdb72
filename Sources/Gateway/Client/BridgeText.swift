/// Makes text that came from the network safe for one terminal line.
public enum BridgeText {
    /// Longest text kept from a peer; anything longer is cut with "…".
    public static let maximumLength = 300

    /// `text` with control characters (ESC, newlines, DEL, C1) shown as `\u{…}` escapes
    /// and cut to `maximumLength` characters, so it cannot move the cursor, recolour the
    /// terminal or split one error into several lines.
    public static func printable(_ text: String, maximumLength: Int = maximumLength) -> String {
        var out = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count >= maximumLength {
                out += "…"
                break
            }
            let value = scalar.value
            if value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029 {
                out += "\\u{" + String(value, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
            count += 1
        }
        return out
    }
}
