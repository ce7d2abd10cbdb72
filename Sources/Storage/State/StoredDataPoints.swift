import Foundation
import TuyaCore

/// The JSON text that stores a `DataPoints` value: each DP keyed by its id, its value
/// tagged with its type (`{"20":{"bool":true},"1":{"raw":"00ff"},"4":{"enum":"large"}}`).
///
/// The tag is what makes the round trip exact: Tuya's own JSON cannot tell an enum label
/// from a string, or a bitmap from a value, without the device profile.
enum StoredDataPoints {
    /// Written by hand, byte for byte what `JSONEncoder` with sorted keys wrote (DPs in
    /// id order, no spaces, `/` unescaped): every group commit encodes each device's state,
    /// and `JSONEncoder` cost more than the rest of the commit.
    static func encode(_ values: DataPoints) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(16 + values.count * 24)
        out.append(UInt8(ascii: "{"))
        for (index, id) in values.keys.sorted(by: Self.jsonKeyOrder).enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: id.jsonKey.utf8)
            out.append(contentsOf: #"":{""#.utf8)
            // `values[id]` is there: `id` is one of its keys.
            switch values[id] ?? .bool(false) {
            case .raw(let bytes):
                out.append(contentsOf: #"raw":""#.utf8)
                for byte in bytes {
                    out.append(Self.hexDigits[Int(byte >> 4)])
                    out.append(Self.hexDigits[Int(byte & 0x0F)])
                }
                out.append(UInt8(ascii: "\""))
            case .bool(let on):
                out.append(contentsOf: #"bool":"#.utf8)
                out.append(contentsOf: (on ? "true" : "false").utf8)
            case .value(let number):
                out.append(contentsOf: #"value":"#.utf8)
                out.append(contentsOf: String(number).utf8)
            case .string(let text):
                out.append(contentsOf: #"string":"#.utf8)
                appendString(text, to: &out)
            case .enumeration(let label):
                out.append(contentsOf: #"enum":"#.utf8)
                appendString(label, to: &out)
            case .bitmap(let bits):
                out.append(contentsOf: #"bitmap":"#.utf8)
                out.append(contentsOf: String(bits).utf8)
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    /// The order `JSONEncoder`'s `.sortedKeys` gives the keys: by their text, byte by byte.
    private static func jsonKeyOrder(_ a: DataPointID, _ b: DataPointID) -> Bool {
        a.jsonKey.utf8.lexicographicallyPrecedes(b.jsonKey.utf8)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// A JSON string as `JSONEncoder` writes it: quotes, backslashes and control
    /// characters escaped, everything else (`/` and non-ASCII included) as it is.
    private static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
            case 0x0A: out.append(contentsOf: #"\n"#.utf8)
            case 0x0D: out.append(contentsOf: #"\r"#.utf8)
            case 0x09: out.append(contentsOf: #"\t"#.utf8)
            case 0x08: out.append(contentsOf: #"\b"#.utf8)
            case 0x0C: out.append(contentsOf: #"\f"#.utf8)
            case 0..<0x20:
                out.append(contentsOf: #"\u00"#.utf8)
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Throws `corrupt` for text this binary did not write: a stored value that does not
    /// decode means the file was edited or damaged, and guessing would apply wrong state.
    static func decode(_ text: String, path: String, column: String) throws(StorageError) -> DataPoints {
        let corrupt = StorageError.corrupt(
            path: path,
            hint: "the \(column) column holds data points this binary cannot read; \(GatewayDatabase.corruptHint)")
        guard let object = try? JSONDecoder().decode([String: TaggedValue].self, from: Data(text.utf8)) else {
            throw corrupt
        }
        var values: DataPoints = [:]
        for (key, tagged) in object {
            guard let id = DataPointID(jsonKey: key), let value = tagged.decoded else { throw corrupt }
            values[id] = value
        }
        return values
    }

    /// Exactly one member is present; its name is the DP type.
    private struct TaggedValue: Codable {
        var raw: String?
        var bool: Bool?
        var value: Int32?
        var string: String?
        var enumeration: String?
        var bitmap: UInt32?

        enum CodingKeys: String, CodingKey {
            case raw, bool, value, string, bitmap
            case enumeration = "enum"
        }

        init(_ value: DPValue) {
            switch value {
            case .raw(let bytes): raw = bytes.map { String($0, radix: 16).leftPadded() }.joined()
            case .bool(let b): bool = b
            case .value(let v): self.value = v
            case .string(let s): string = s
            case .enumeration(let e): enumeration = e
            case .bitmap(let m): bitmap = m
            }
        }

        var decoded: DPValue? {
            let present = [raw != nil, bool != nil, value != nil, string != nil, enumeration != nil, bitmap != nil]
            guard present.filter({ $0 }).count == 1 else { return nil }
            if let raw { return Self.bytes(hex: raw).map(DPValue.raw) }
            if let bool { return .bool(bool) }
            if let value { return .value(value) }
            if let string { return .string(string) }
            if let enumeration { return .enumeration(enumeration) }
            if let bitmap { return .bitmap(bitmap) }
            return nil
        }

        private static func bytes(hex: String) -> [UInt8]? {
            let digits = Array(hex.utf8)
            guard digits.count.isMultiple(of: 2) else { return nil }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(digits.count / 2)
            for index in stride(from: 0, to: digits.count, by: 2) {
                guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
                bytes.append(high << 4 | low)
            }
            return bytes
        }

        private static func nibble(_ digit: UInt8) -> UInt8? {
            switch digit {
            case 0x30...0x39: digit - 0x30
            case 0x61...0x66: digit - 0x61 + 10
            default: nil
            }
        }
    }
}

extension String {
    fileprivate func leftPadded() -> String { count == 1 ? "0" + self : self }
}
