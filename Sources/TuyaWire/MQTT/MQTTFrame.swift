/// The header of a Tuya MQTT "2.2" payload (protocol/TUYA.md §3.2, TCK
/// `pv22_packet_encode/decode`):
///
/// ```
/// "2.2" (3 ASCII) · CRC-32 (4, BE) · sequence (4, BE) · source (4, BE) · AES-128-ECB(localKey, PKCS7(json))
/// ```
///
/// The CRC-32 (IEEE/zlib) covers sequence ‖ source ‖ ciphertext, i.e. everything after
/// the CRC field. Because of that, the variant tuya-convert writes (`mq_pub_15.py`:
/// 8 ASCII digits of a timestamp in the sequence + source slot, CRC over everything
/// after the CRC) decodes here too; its sequence and source just read as those digits.
///
/// A frame is checked in the order that tells corruption from a wrong key: size and
/// version first, then the CRC (a mismatch is a corrupted frame), and only then the
/// decryption (bad padding or a body that is not a JSON object on an intact frame means
/// the local key is wrong, `WireError.keyMismatch`).
public struct MQTTFrame: Sendable, Hashable {
    /// "2.2" plus CRC, sequence and source.
    public static let headerSize = 15
    /// Largest frame accepted or produced; the bodies Tuya devices send are far smaller.
    public static let maxFrameSize = 65_536
    /// Source value for frames from a device. Written as the bytes 00 00 00 01: the
    /// current TCK writes it in host order, but its decoder byte-swaps it as big-endian.
    public static let deviceSource: UInt32 = 1

    public let version: String
    public let crc: UInt32
    public let sequence: UInt32
    public let source: UInt32
    public let ciphertext: [UInt8]

    /// Pads `body` with PKCS#7, encrypts it with AES-128-ECB and prepends the 2.2 header.
    public static func encode(
        body: [UInt8], key: AESKey, sequence: UInt32, source: UInt32
    ) throws(WireError) -> [UInt8] {
        // PKCS#7 always adds 1...16 bytes, so the largest body is one short of whole blocks.
        let bodyLimit = (maxFrameSize - headerSize) / 16 * 16 - 1
        guard body.count <= bodyLimit else {
            throw .lengthOutOfRange(field: "MQTT 2.2 body", value: body.count, limit: bodyLimit)
        }
        let ciphertext = try AESCipher.encryptECB(PKCS7.pad(body), key: key)
        var frame: [UInt8] = []
        frame.reserveCapacity(headerSize + ciphertext.count)
        frame.append(contentsOf: [UInt8(ascii: "2"), UInt8(ascii: "."), UInt8(ascii: "2")])
        frame.append(contentsOf: [0, 0, 0, 0])
        appendBigEndian(sequence, to: &frame)
        appendBigEndian(source, to: &frame)
        frame.append(contentsOf: ciphertext)
        let crc = frame.withUnsafeBytes { buffer in
            var running = CRC32.Running()
            running.update(buffer: UnsafeRawBufferPointer(rebasing: buffer[7...]))
            return running.value
        }
        frame[3] = UInt8(truncatingIfNeeded: crc >> 24)
        frame[4] = UInt8(truncatingIfNeeded: crc >> 16)
        frame[5] = UInt8(truncatingIfNeeded: crc >> 8)
        frame[6] = UInt8(truncatingIfNeeded: crc)
        return frame
    }

    /// Checks size, version and CRC of a 2.2 frame without a key, so the CLI can show a
    /// frame and the controller can tell corruption apart before it decrypts.
    public static func decodeHeader(_ bytes: [UInt8]) throws(WireError) -> MQTTFrame {
        guard bytes.count <= maxFrameSize else {
            throw .lengthOutOfRange(field: "MQTT frame", value: bytes.count, limit: maxFrameSize)
        }
        guard bytes.count >= 3 else {
            throw .truncated(what: "MQTT frame version", needed: 3, available: bytes.count)
        }
        guard bytes[0] == UInt8(ascii: "2"), bytes[1] == UInt8(ascii: "."), bytes[2] == UInt8(ascii: "2") else {
            throw .unsupportedVersion(versionText(bytes))
        }
        guard bytes.count >= headerSize else {
            throw .truncated(what: "MQTT 2.2 header", needed: headerSize, available: bytes.count)
        }
        let cipherCount = bytes.count - headerSize
        guard cipherCount > 0 else {
            throw .truncated(what: "MQTT 2.2 ciphertext", needed: 16, available: 0)
        }
        guard cipherCount % 16 == 0 else {
            throw .malformed("MQTT 2.2 ciphertext of \(cipherCount) bytes is not whole 16-byte blocks")
        }
        let expected = readBigEndian(bytes, at: 3)
        let actual = bytes.withUnsafeBytes { buffer in
            var running = CRC32.Running()
            running.update(buffer: UnsafeRawBufferPointer(rebasing: buffer[7...]))
            return running.value
        }
        guard expected == actual else {
            throw .checksumMismatch(what: "MQTT 2.2 CRC-32", expected: expected, actual: actual)
        }
        return MQTTFrame(
            version: "2.2", crc: expected, sequence: readBigEndian(bytes, at: 7), source: readBigEndian(bytes, at: 11),
            ciphertext: Array(bytes[headerSize...]))
    }

    /// Decodes a 2.2 frame, or a legacy 2.1 frame (`MQTTLegacyFrame`), and decrypts it.
    public static func decode(_ bytes: [UInt8], key: AESKey) throws(WireError) -> DecodedMQTTFrame {
        if bytes.count >= 3, bytes[0] == UInt8(ascii: "2"), bytes[1] == UInt8(ascii: "."),
            bytes[2] == UInt8(ascii: "1")
        {
            return try MQTTLegacyFrame.decode(bytes, key: key)
        }
        let header = try decodeHeader(bytes)
        let body = try decryptBody(header.ciphertext, key: key, version: "2.2")
        return DecodedMQTTFrame(version: "2.2", sequence: header.sequence, source: header.source, body: body)
    }

    /// Decrypts and unpads a body whose integrity is already established, so every
    /// failure here points at the key (protocol/TUYA.md §3.2).
    ///
    /// With a wrong key the padding still looks valid about once in 256 frames, so the
    /// body must also look like a JSON object: `{` … `}` with no control bytes other
    /// than JSON whitespace (which valid JSON never has outside strings, and never raw
    /// inside them). Random plaintext passes that with negligible probability; the
    /// full parse happens later in `TuyaEnvelope.decode`.
    static func decryptBody(_ ciphertext: [UInt8], key: AESKey, version: String) throws(WireError) -> [UInt8] {
        let padded: [UInt8]
        do throws(WireError) {
            padded = try AESCipher.decryptECB(ciphertext, key: key)
        } catch {
            throw .keyMismatch("MQTT \(version) body does not decrypt")
        }
        let body: [UInt8]
        do throws(WireError) {
            body = try PKCS7.unpad(padded)
        } catch {
            throw .keyMismatch("MQTT \(version) body has invalid PKCS#7 padding after decryption")
        }
        guard looksLikeJSONObject(body) else {
            throw .keyMismatch("MQTT \(version) body is not a JSON object after decryption")
        }
        return body
    }

    static func looksLikeJSONObject(_ body: [UInt8]) -> Bool {
        var first = body.startIndex
        var last = body.endIndex - 1
        while first < body.endIndex, isJSONWhitespace(body[first]) { first += 1 }
        while last > first, isJSONWhitespace(body[last]) { last -= 1 }
        guard first < last, body[first] == UInt8(ascii: "{"), body[last] == UInt8(ascii: "}") else { return false }
        for byte in body where byte < 0x20 && !isJSONWhitespace(byte) {
            return false
        }
        return true
    }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// The version bytes as text for an error message, or hex if they are not printable.
    static func versionText(_ bytes: [UInt8]) -> String {
        let prefix = bytes.prefix(3)
        if prefix.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            return "\"" + String(decoding: prefix, as: UTF8.self) + "\""
        }
        return "0x"
            + prefix.map { byte in
                let digits = String(byte, radix: 16)
                return digits.count == 1 ? "0" + digits : digits
            }.joined()
    }

    private static func appendBigEndian(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: value >> 24))
        bytes.append(UInt8(truncatingIfNeeded: value >> 16))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    private static func readBigEndian(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }
}
