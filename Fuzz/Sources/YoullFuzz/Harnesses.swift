import Foundation
import TuyaCore
import TuyaWire

/// One harness per decoder of untrusted bytes. Each must return normally for every
/// input: a trap, an ASan report or a hang is a finding.
let harnesses: [String: @Sendable ([UInt8]) -> Void] = [
    "padding-ecb": { bytes in
        _ = try? PKCS7.unpad(bytes)
        _ = try? AESCipher.decryptECB(bytes, key: fuzzKey)
    },
]

let fuzzKey: AESKey = {
    guard let key = try? AESKey(localKey: "0123456789abcdef") else { fatalError("fixed fuzz key is 16 bytes") }
    return key
}()
