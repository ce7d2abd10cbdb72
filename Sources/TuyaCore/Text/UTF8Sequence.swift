/// UTF-8 well-formedness (Unicode 15, table 3-7): no overlong forms, no surrogates,
/// nothing above U+10FFFF. The one table the JSON parser and the deep-link decoder share.
public enum UTF8Sequence {
    /// What a multi-byte sequence starting with `lead` must look like: its length and the
    /// range its second byte falls in (the later ones are all 0x80...0xBF). Nil for an
    /// ASCII byte, a continuation byte, or a lead that can only start an overlong or
    /// out-of-range sequence.
    public static func shape(lead: UInt8) -> (length: Int, second: ClosedRange<UInt8>)? {
        switch lead {
        case 0xC2...0xDF: (2, 0x80...0xBF)
        case 0xE0: (3, 0xA0...0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: (3, 0x80...0xBF)
        case 0xED: (3, 0x80...0x9F)
        case 0xF0: (4, 0x90...0xBF)
        case 0xF1...0xF3: (4, 0x80...0xBF)
        case 0xF4: (4, 0x80...0x8F)
        default: nil
        }
    }

    /// The length of the well-formed sequence starting at `index` of `bytes` (1 for ASCII),
    /// or nil when it is malformed or cut short.
    public static func length(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int? {
        let lead = bytes[index]
        if lead < 0x80 { return 1 }
        guard let (length, second) = shape(lead: lead), bytes.count - index >= length,
            second.contains(bytes[index + 1])
        else { return nil }
        for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 { return nil }
        return length
    }
}
