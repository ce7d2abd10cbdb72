import TuyaCore

/// Compact JSON for Tuya bodies: the writer emits no whitespace at all, because Tuya
/// devices parse the MQTT/LAN JSON with small embedded parsers and the reference
/// firmware formats its own bodies without spaces (protocol/TUYA.md §2.6, §3.3).
///
/// Both halves work on bytes, never through `JSONSerialization` or `Codable`, so a frame
/// costs one pass each way.
///
/// Decisions a caller can rely on:
/// - Object keys are written in a deterministic order: keys made only of ASCII digits
///   (Tuya DP ids) first, by numeric value (shorter first, then byte order), then every
///   other key in `String` order. The same value always gives the same bytes.
/// - A non-finite `Double` is written as `null` (JSON has no NaN or infinity).
/// - The parser reads integers without a fraction or exponent exactly into `Int64`;
///   every other number (a fraction, an exponent such as `1e3`, or an integer beyond
///   `Int64`) becomes a `Double`. A number that overflows `Double` is rejected.
/// - Duplicate object keys are **rejected**: different JSON parsers disagree on which
///   copy wins, and a frame that means different things to the device and the gateway
///   is worse than a dropped frame.
/// - Input is untrusted: it is capped at `maxInputSize` bytes and `maxDepth` levels of
///   nesting, strings must be strict UTF-8 (no overlongs, no encoded surrogates) and
///   `\u` escapes must pair surrogates correctly.
public enum CompactJSON {
    /// Largest input the parser accepts. An MQTT frame is capped at 64 KiB as well.
    public static let maxInputSize = 65_536
    /// Deepest nesting of arrays and objects the parser accepts. Tuya bodies nest 3 deep.
    public static let maxDepth = 32

    /// The compact encoding of `value`.
    public static func encode(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        JSONWriter.write(value, into: &out)
        return out
    }

    /// Appends the compact encoding of `value` to `out`, so a caller can reuse a buffer.
    public static func encode(_ value: JSONValue, into out: inout [UInt8]) {
        JSONWriter.write(value, into: &out)
    }

    /// Parses exactly one JSON value, with optional surrounding whitespace.
    public static func decode(_ bytes: [UInt8]) throws(WireError) -> JSONValue {
        let result: Result<JSONValue, WireError> = bytes.withUnsafeBytes { buffer in
            do throws(WireError) {
                return .success(try decode(buffer))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Reads a Tuya LAN body for its `dps` alone (`LANDataPoints`), checking all of it as
    /// `decode` does.
    static func lanBody(_ bytes: [UInt8]) throws(WireError) -> JSONParser.LANBody {
        let result: Result<JSONParser.LANBody, WireError> = bytes.withUnsafeBytes { buffer in
            guard buffer.count <= maxInputSize else {
                return .failure(.lengthOutOfRange(field: "JSON input", value: buffer.count, limit: maxInputSize))
            }
            var parser = JSONParser(buffer)
            do throws(WireError) {
                return .success(try parser.parseLANBody())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Parses exactly one JSON value from raw memory, with optional surrounding whitespace.
    public static func decode(_ buffer: UnsafeRawBufferPointer) throws(WireError) -> JSONValue {
        guard buffer.count <= maxInputSize else {
            throw .lengthOutOfRange(field: "JSON input", value: buffer.count, limit: maxInputSize)
        }
        var parser = JSONParser(buffer)
        return try parser.parseDocument()
    }
}
