import Foundation

/// The legacy Tuya MQTT "2.1" payload (protocol/TUYA.md §3.2, TC `mq_pub_15.py`):
///
/// ```
/// "2.1" · signature (16 hex chars) · base64(AES-128-ECB(localKey, PKCS7(json)))
/// ```
///
/// signature = MD5-hex("data=" ‖ base64 ‖ "||pv=2.1||" ‖ localKey)[8..<24].
///
/// The signature mixes the key into the checksum, so a wrong key and a corrupted
/// frame fail it the same way and cannot be told apart. A mismatch is reported as
/// `WireError.keyMismatch`: over MQTT (TCP, usually TLS) corruption in transit is
/// rare, while a wrong local key is the common mistake, and the message still says
/// "or corrupted". `checksumMismatch` is reserved for checks that do not involve the key.
/// Only 2.2 and 2.1 are spoken; tuya-convert's own "2.2" variant is covered by `MQTTFrame`.
public enum MQTTLegacyFrame {
    /// "2.1" plus the 16-character signature.
    public static let headerSize = 19

    /// Encrypts `body` and signs it as a 2.1 frame, so tests and the simulator can
    /// produce what old firmware sends.
    public static func encode(body: [UInt8], key: AESKey) throws(WireError) -> [UInt8] {
        // Base64 turns 3 bytes into 4; PKCS#7 adds 1...16 bytes.
        let base64Limit = (MQTTFrame.maxFrameSize - headerSize) / 4 * 3 / 16 * 16 - 1
        guard body.count <= base64Limit else {
            throw .lengthOutOfRange(field: "MQTT 2.1 body", value: body.count, limit: base64Limit)
        }
        let ciphertext = try AESCipher.encryptECB(PKCS7.pad(body), key: key)
        let encoded = Array(Data(ciphertext).base64EncodedString().utf8)
        var frame: [UInt8] = Array("2.1".utf8)
        frame.reserveCapacity(headerSize + encoded.count)
        frame.append(contentsOf: signature(base64: encoded, key: key))
        frame.append(contentsOf: encoded)
        return frame
    }

    /// Checks, verifies and decrypts a 2.1 frame.
    public static func decode(_ bytes: [UInt8], key: AESKey) throws(WireError) -> DecodedMQTTFrame {
        guard bytes.count <= MQTTFrame.maxFrameSize else {
            throw .lengthOutOfRange(field: "MQTT frame", value: bytes.count, limit: MQTTFrame.maxFrameSize)
        }
        guard bytes.count >= 3 else {
            throw .truncated(what: "MQTT frame version", needed: 3, available: bytes.count)
        }
        guard bytes[0] == UInt8(ascii: "2"), bytes[1] == UInt8(ascii: "."), bytes[2] == UInt8(ascii: "1") else {
            throw .unsupportedVersion(MQTTFrame.versionText(bytes))
        }
        guard bytes.count > headerSize else {
            throw .truncated(what: "MQTT 2.1 frame", needed: headerSize + 24, available: bytes.count)
        }
        let encoded = Array(bytes[headerSize...])
        guard let decoded = Data(base64Encoded: Data(encoded)) else {
            throw .malformed("MQTT 2.1 payload is not valid base64")
        }
        let ciphertext = [UInt8](decoded)
        guard !ciphertext.isEmpty, ciphertext.count % 16 == 0 else {
            throw .malformed("MQTT 2.1 ciphertext of \(ciphertext.count) bytes is not whole 16-byte blocks")
        }
        let expected = signature(base64: encoded, key: key)
        var matches = true
        for (offset, byte) in expected.enumerated() where lowercased(bytes[3 + offset]) != byte {
            matches = false
        }
        guard matches else {
            throw .keyMismatch("MQTT 2.1 signature does not match: wrong local key or corrupted frame")
        }
        let body = try MQTTFrame.decryptBody(ciphertext, key: key, version: "2.1")
        return DecodedMQTTFrame(version: "2.1", sequence: nil, source: nil, body: body)
    }

    /// The 16 lowercase hex characters of MD5(…)[4..<12].
    static func signature(base64: [UInt8], key: AESKey) -> [UInt8] {
        var message: [UInt8] = Array("data=".utf8)
        message.reserveCapacity(base64.count + 31)
        message.append(contentsOf: base64)
        message.append(contentsOf: "||pv=2.1||".utf8)
        message.append(contentsOf: key.bytes)
        let digest = MD5Digest.hash(message)
        let hexDigits = Array("0123456789abcdef".utf8)
        var result: [UInt8] = []
        result.reserveCapacity(16)
        for byte in digest[4..<12] {
            result.append(hexDigits[Int(byte >> 4)])
            result.append(hexDigits[Int(byte & 0x0F)])
        }
        return result
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
