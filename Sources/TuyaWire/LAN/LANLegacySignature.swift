import Foundation

/// The protocol 3.1 CONTROL payload (protocol/TUYA.md §2.3, TT `_encode_message`):
///
/// ```
/// "3.1" ‖ MD5-hex("data=" ‖ b64 ‖ "||lpv=3.1||" ‖ localKey)[8..<24] ‖ b64
/// ```
///
/// where `b64` is base64(AES-128-ECB(localKey, PKCS7(json))). Every other 3.1 payload is
/// plaintext JSON; a device's reply may come signed the same way.
enum LANLegacySignature {
    static let version = Array("3.1".utf8)
    static let signatureSize = 16

    static func seal(_ json: [UInt8], key: LANFrameKey) throws(WireError) -> [UInt8] {
        var encrypted = PKCS7.pad(json)
        let cipher = try key.cipher()
        try encrypted.withUnsafeMutableBufferPointer { blocks throws(WireError) in
            try cipher.encryptECB(inPlace: blocks)
        }
        let base64 = Array(Data(encrypted).base64EncodedData())
        return version + signature(base64, key: key.key) + base64
    }

    /// The JSON of a signed payload, checked against its signature, or a plaintext payload
    /// as it is.
    static func open(_ payload: [UInt8], key: LANFrameKey) throws(WireError) -> [UInt8] {
        guard payload.starts(with: version) else { return payload }
        let base64Start = version.count + signatureSize
        guard payload.count > base64Start else {
            throw .truncated(what: "3.1 signed payload", needed: base64Start + 1, available: payload.count)
        }
        let base64 = Array(payload[base64Start...])
        guard payload[version.count..<base64Start].elementsEqual(signature(base64, key: key.key)) else {
            throw .keyMismatch("the 3.1 payload's MD5 signature does not match the local key")
        }
        guard let encrypted = Data(base64Encoded: Data(base64)) else {
            throw .malformed("3.1 signed payload is not valid base64")
        }
        return try LANMessageCodec.decryptBody(Array(encrypted)[...], cipher: key.cipher(), version: .v3_1)
    }

    private static func signature(_ base64: [UInt8], key: AESKey) -> [UInt8] {
        let digest = MD5Digest.hash(Array("data=".utf8) + base64 + Array("||lpv=3.1||".utf8) + key.bytes)
        let hexDigits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(32)
        for byte in digest {
            hex.append(hexDigits[Int(byte >> 4)])
            hex.append(hexDigits[Int(byte & 0x0F)])
        }
        return Array(hex[8..<24])
    }
}
