import Foundation
import TuyaCore

/// The JSON text that stores a `DataPoints` value: each DP keyed by its id, its value
/// tagged with its type (`{"20":{"bool":true},"1":{"raw":"00ff"},"4":{"enum":"large"}}`).
///
/// The tag is what makes the round trip exact: Tuya's own JSON cannot tell an enum label
/// from a string, or a bitmap from a value, without the device profile.
enum StoredDataPoints {
    static func encode(_ values: DataPoints) -> String {
        var object: [String: TaggedValue] = [:]
        for (id, value) in values { object[id.jsonKey] = TaggedValue(value) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding strings, integers and optionals cannot fail.
        let data = (try? encoder.encode(object)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
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
