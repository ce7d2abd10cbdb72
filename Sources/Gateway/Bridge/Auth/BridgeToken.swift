import Foundation

/// The secret that signs bridge requests (`BridgeAuthentication`): 32 random bytes, kept as 64
/// hex characters in `bridge.token_file` (mode 0600). Its description is redacted, so a value
/// holding one can be logged without leaking it.
public struct BridgeToken: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    let bytes: [UInt8]

    /// 64 hex characters, surrounding whitespace ignored; nil for anything else.
    public init?(text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.utf8.count == 64, let bytes = Hex.bytes(trimmed) else { return nil }
        self.bytes = bytes
    }

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    static func random() -> BridgeToken {
        var generator = SystemRandomNumberGenerator()
        return BridgeToken(bytes: (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// The file's text.
    var fileText: String { Hex.string(bytes) + "\n" }

    /// Reads the token at `path`; the error says why it cannot be used, never its content.
    public static func read(path: String) throws(BridgeTokenError) -> BridgeToken {
        guard FileManager.default.fileExists(atPath: path) else {
            throw BridgeTokenError("\(path) does not exist (the daemon writes it on its first start)")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BridgeTokenError(
                "\(path) cannot be read (permission denied? it is readable by the daemon's user only)")
        }
        guard data.count <= 1024, let token = BridgeToken(text: String(decoding: data, as: UTF8.self)) else {
            throw BridgeTokenError("\(path) does not hold a bridge token (64 hex characters)")
        }
        return token
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

/// Why the bridge token could not be read.
public struct BridgeTokenError: Error, Hashable, Sendable, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// Lower-case hex, both ways.
enum Hex {
    static func string(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// nil unless `text` is an even number of hex digits (either case).
    static func bytes(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count.isMultiple(of: 2) else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }
}
