import YoullTestSupport
import Testing
import TuyaWire

@Suite("LAN 55AA and 6699 frames")
struct LANFrameTests {
    /// A STATUS push a real 3.3 device sent (iot-pwn/weather-or-not README): retcode 0,
    /// the clear source header "3.3" ‖ CRC 0 ‖ seq 0xbff9 ‖ source 1, 48 bytes of ciphertext.
    let capturedStatus = hexBytes(
        "000055aa 00000000 00000008 0000004b 00000000 332e33 00000000 0000bff9 00000001"
            + "a2ec212cfc0b56f9f9ffcf338f1a9cc2 28f97f4fe589aa05ff40797a138a0870 315db88089aea73b6dd13375727aacca"
            + "d788fb8b 0000aa55")
    /// An error answer to a CONTROL from the same capture: retcode 1 and 32 bytes.
    let capturedError = hexBytes(
        "000055aa00000000000000070000002c000000012b30e2733dd33074a5be9f3b9b25f56f"
            + "56f1410f434c43ba2c456809d7cfcc57e6dc94740000aa55")

    @Test("a STATUS push captured from a real 3.3 device passes the CRC-32 and shows its clear source header")
    func capturedStatusPush() throws {
        let frame = try LAN55AAFrame.decode(capturedStatus, direction: .fromDevice, integrity: .crc32)
        #expect(frame.command == .status)
        #expect(frame.retcode == 0)
        #expect(frame.payload.count == 15 + 48)
        #expect(Array(frame.payload.prefix(3)) == ascii("3.3"))
        #expect(Array(frame.payload[7..<11]) == [0x00, 0x00, 0xBF, 0xF9])
        #expect(Array(frame.payload[11..<15]) == [0x00, 0x00, 0x00, 0x01])
    }

    @Test("an error answer captured from a real device carries retcode 1 in clear")
    func capturedErrorAnswer() throws {
        let frame = try LAN55AAFrame.decode(capturedError, direction: .fromDevice, integrity: .crc32)
        #expect(frame.command == .control)
        #expect(frame.retcode == 1)
        #expect(frame.payload.count == 32)
    }

    @Test("the captured frame with one bit flipped fails its CRC as corruption")
    func capturedFrameCorrupted() {
        var bytes = capturedStatus
        bytes[30] ^= 0x01
        let error = wireError { () throws(WireError) in
            try LAN55AAFrame.decode(bytes, direction: .fromDevice, integrity: .crc32)
        }
        guard case .checksumMismatch = error else {
            Issue.record("expected a checksum mismatch, got \(String(describing: error))")
            return
        }
    }

    @Test("a client frame's length is payload + 8 with a CRC and payload + 36 with an HMAC (TUYA.md §2.2)")
    func lengthField() throws {
        let payload = ascii("0123456789")
        let crc = try LAN55AAFrame.encode(sequence: 5, command: .control, payload: payload, integrity: .crc32)
        #expect(Array(crc.prefix(4)) == [0x00, 0x00, 0x55, 0xAA])
        #expect(Array(crc.suffix(4)) == [0x00, 0x00, 0xAA, 0x55])
        #expect(Array(crc[12..<16]) == [0, 0, 0, UInt8(payload.count + 8)])
        #expect(crc.count == 16 + payload.count + 8)
        let hmac = try LAN55AAFrame.encode(
            sequence: 5, command: .control, payload: payload, integrity: .hmac(aesKey(lanKey)))
        #expect(Array(hmac[12..<16]) == [0, 0, 0, UInt8(payload.count + 36)])
        #expect(hmac.count == 16 + payload.count + 36)
        // A device frame adds its 4-byte retcode to the length.
        let answer = try LAN55AAFrame.encode(
            sequence: 5, command: .control, retcode: 0, payload: payload, integrity: .crc32)
        #expect(Array(answer[12..<16]) == [0, 0, 0, UInt8(payload.count + 12)])
    }

    @Test("55AA frames round-trip in both directions with CRC-32 and HMAC-SHA256")
    func roundTrip55AA() throws {
        let key = aesKey(lanKey)
        for integrity in [LAN55AAFrame.Integrity.crc32, .hmac(key)] {
            for retcode in [nil, UInt32(0), 7] as [UInt32?] {
                let bytes = try LAN55AAFrame.encode(
                    sequence: 0xDEAD_BEEF, command: .dpQuery, retcode: retcode, payload: ascii("{}"),
                    integrity: integrity)
                let frame = try LAN55AAFrame.decode(
                    bytes, direction: retcode == nil ? .toDevice : .fromDevice, integrity: integrity)
                #expect(
                    frame
                        == LANFrame(
                            format: .prefix55AA, sequence: 0xDEAD_BEEF, command: .dpQuery, retcode: retcode,
                            payload: ascii("{}")))
            }
        }
    }

    @Test("a 3.4 frame checked with another key fails authentication, not as corruption")
    func hmacWrongKey() throws {
        let bytes = try LAN55AAFrame.encode(
            sequence: 1, command: .status, retcode: 0, payload: ascii("x"), integrity: .hmac(aesKey(lanKey)))
        let error = wireError { () throws(WireError) in
            try LAN55AAFrame.decode(bytes, direction: .fromDevice, integrity: .hmac(aesKey(otherLANKey)))
        }
        #expect(error == .authenticationFailed(what: "LAN 3.4 frame HMAC-SHA256"))
    }

    @Test("a 6699 frame's length counts nonce, ciphertext and tag, and its header is authenticated")
    func layout6699() throws {
        let key = aesKey(lanKey)
        let nonce = [UInt8](0..<12)
        let payload = ascii("{\"dps\":{}}")
        let bytes = try LAN6699Frame.encode(
            sequence: 9, command: .controlNew, payload: payload, key: key, nonce: nonce)
        #expect(Array(bytes.prefix(6)) == [0x00, 0x00, 0x66, 0x99, 0x00, 0x00])
        #expect(Array(bytes[14..<18]) == [0, 0, 0, UInt8(12 + payload.count + 16)])
        #expect(Array(bytes[18..<30]) == nonce)
        #expect(Array(bytes.suffix(4)) == [0x00, 0x00, 0x99, 0x66])
        #expect(try LAN6699Frame.decode(bytes, direction: .toDevice, key: key).payload == payload)

        // The reserved bytes, seqno and cmd are part of the AAD: changing any breaks the tag.
        for offset in [4, 5, 9, 13] {
            var altered = bytes
            altered[offset] ^= 0x01
            #expect(
                wireError { () throws(WireError) in try LAN6699Frame.decode(altered, direction: .toDevice, key: key) }
                    == .authenticationFailed(what: "LAN 6699 AES-GCM tag"))
        }
    }

    @Test("a 6699 frame from a device carries its retcode inside the ciphertext")
    func retcodeInside6699() throws {
        let key = aesKey(lanKey)
        let bytes = try LAN6699Frame.encode(
            sequence: 1, command: .status, retcode: 2, payload: ascii("{}"), key: key,
            nonce: [UInt8](repeating: 1, count: 12))
        let asDevice = try LAN6699Frame.decode(bytes, direction: .fromDevice, key: key)
        #expect(asDevice.retcode == 2)
        #expect(asDevice.payload == ascii("{}"))
        let raw = try LAN6699Frame.decode(bytes, direction: .toDevice, key: key)
        #expect(raw.payload == [0, 0, 0, 2] + ascii("{}"))
    }

    @Test(
        "hostile 55AA bytes are refused with a typed error naming the problem",
        arguments: [
            ("empty", [UInt8](), "truncated"),
            ("short header", [0x00, 0x00, 0x55, 0xAA, 0x00], "truncated"),
            ("wrong prefix", [UInt8](repeating: 0x41, count: 40), "does not start"),
            (
                "length past the end", hexBytes("000055aa0000000100000007000000ff") + [UInt8](repeating: 0, count: 8),
                "truncated"
            ),
            ("length under the trailer", hexBytes("000055aa00000001000000070000000400000000"), "out of range"),
            ("length zero", hexBytes("000055aa000000010000000700000000"), "out of range"),
        ] as [(String, [UInt8], String)])
    func hostile55AA(name: String, bytes: [UInt8], expected: String) {
        let error = wireError { () throws(WireError) in
            try LAN55AAFrame.decode(bytes, direction: .fromDevice, integrity: .crc32)
        }
        #expect(error?.description.contains(expected) == true, "\(name): \(String(describing: error))")
    }

    @Test("a 55AA frame with a wrong suffix or over the size limit is refused")
    func suffixAndSize() throws {
        var bytes = try LAN55AAFrame.encode(sequence: 1, command: .status, payload: ascii("{}"), integrity: .crc32)
        bytes[bytes.count - 1] = 0x56
        #expect(
            wireError { () throws(WireError) in try LAN55AAFrame.decode(bytes, direction: .toDevice, integrity: .crc32)
            }
                == .malformed("LAN 55AA frame does not end with 00 00 AA 55"))
        let big = try LAN55AAFrame.encode(
            sequence: 1, command: .status, payload: [UInt8](repeating: 0x20, count: 300), integrity: .crc32)
        #expect(
            wireError { () throws(WireError) in
                try LAN55AAFrame.decode(big, direction: .toDevice, integrity: .crc32, maxSize: 100)
            } == .lengthOutOfRange(field: "LAN 55AA frame size", value: big.count, limit: 100))
    }

    @Test("hostile 6699 bytes are refused: truncated, short length, wrong key, a device frame without retcode")
    func hostile6699() throws {
        let key = aesKey(lanKey)
        let good = try LAN6699Frame.encode(
            sequence: 1, command: .status, payload: ascii("ab"), key: key, nonce: [UInt8](repeating: 3, count: 12))
        #expect(
            wireError { () throws(WireError) in
                try LAN6699Frame.decode(Array(good.prefix(10)), direction: .toDevice, key: key)
            } != nil)
        #expect(
            wireError { () throws(WireError) in
                try LAN6699Frame.decode(Array(good.dropLast()), direction: .toDevice, key: key)
            } != nil)
        #expect(
            wireError { () throws(WireError) in
                try LAN6699Frame.decode(good, direction: .toDevice, key: aesKey(otherLANKey))
            }
                == .authenticationFailed(what: "LAN 6699 AES-GCM tag"))
        #expect(
            wireError { () throws(WireError) in try LAN6699Frame.decode(good, direction: .fromDevice, key: key) }
                == .truncated(what: "LAN 6699 retcode", needed: 4, available: 2))
        var short = good
        short[17] = 4  // length 4: less than nonce + tag
        #expect(
            wireError { () throws(WireError) in try LAN6699Frame.decode(short, direction: .toDevice, key: key) } != nil)
        #expect(
            wireError { () throws(WireError) in
                try LAN6699Frame.encode(sequence: 1, command: .status, payload: [], key: key, nonce: [1, 2, 3])
            } == .invalidKey("a 6699 frame nonce is 12 bytes, got 3"))
    }
}
