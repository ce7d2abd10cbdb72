import BLELink
import Testing
import DeviceSimulator
import YoullTestSupport

/// Byte vectors written from the Core spec's PDU layouts (Vol 3 Part F §3.4), both directions.
@Suite("ATT PDUs: spec vectors")
struct ATTPDUTests {
    @Test("Error Response: Read By Group Type at 0x0001, Attribute Not Found")
    func errorResponse() throws {
        let bytes: [UInt8] = [0x01, 0x10, 0x01, 0x00, 0x0A]
        let pdu = try ATTErrorResponse(bytes: bytes)
        #expect(pdu == ATTErrorResponse(request: .readByGroupTypeRequest, handle: 0x0001, error: .attributeNotFound))
        #expect(pdu.encode() == bytes)
        #expect(pdu.error.description == "Attribute Not Found (0x0a)")
    }

    @Test("Exchange MTU: 23 requested, 247 offered, little-endian")
    func exchangeMTU() throws {
        #expect(ATTExchangeMTURequest(clientMTU: 23).encode() == [0x02, 0x17, 0x00])
        #expect(try ATTExchangeMTUResponse(bytes: [0x03, 0xF7, 0x00]).serverMTU == 247)
    }

    @Test("Find Information request and both response formats")
    func findInformation() throws {
        #expect(
            ATTFindInformationRequest(startHandle: 0x000E, endHandle: 0x0010).encode() == [
                0x04, 0x0E, 0x00, 0x10, 0x00,
            ])
        let short = try ATTFindInformationResponse(bytes: [0x05, 0x01, 0x0F, 0x00, 0x02, 0x29, 0x10, 0x00, 0x03, 0x28])
        #expect(
            short.entries == [
                .init(handle: 0x000F, type: .clientCharacteristicConfiguration),
                .init(handle: 0x0010, type: .characteristic),
            ])
        #expect(!short.uses128BitUUIDs)
        let longBytes: [UInt8] =
            [0x05, 0x02, 0x0E, 0x00] + [
                0xD0, 0x07, 0x9B, 0x5F, 0x80, 0x00, 0x01, 0x80, 0x01, 0x10, 0x00, 0x00, 0x02, 0, 0, 0,
            ]
        let long = try ATTFindInformationResponse(bytes: longBytes)
        #expect(long.entries == [.init(handle: 0x000E, type: TuyaGATTLayout.fd50.notifyCharacteristic)])
        #expect(long.encode() == longBytes)
    }

    @Test("Read By Type: discovering characteristics with 16-bit and 128-bit declarations")
    func readByType() throws {
        #expect(
            ATTReadByTypeRequest(startHandle: 0x0001, endHandle: 0xFFFF, type: .characteristic).encode()
                == [0x08, 0x01, 0x00, 0xFF, 0xFF, 0x03, 0x28])
        let short = try ATTReadByTypeResponse(bytes: [0x09, 0x07, 0x02, 0x00, 0x02, 0x03, 0x00, 0x00, 0x2A])
        #expect(short.entries == [.init(handle: 0x0002, value: [0x02, 0x03, 0x00, 0x00, 0x2A])])
        let name = try #require(GATTCharacteristic(declarationHandle: 2, value: short.entries[0].value))
        #expect(
            name
                == GATTCharacteristic(
                    declarationHandle: 2, properties: .read, valueHandle: 3, uuid: BluetoothUUID(0x2A00)))

        // The FD50 write characteristic: properties write + write without response, value at 0x000C.
        let uuid: [UInt8] = [0xD0, 0x07, 0x9B, 0x5F, 0x80, 0x00, 0x01, 0x80, 0x01, 0x10, 0x00, 0x00, 0x01, 0, 0, 0]
        let long = try ATTReadByTypeResponse(bytes: [0x09, 0x15, 0x0B, 0x00, 0x0C, 0x0C, 0x00] + uuid)
        let write = try #require(GATTCharacteristic(declarationHandle: 0x0B, value: long.entries[0].value))
        #expect(write.uuid == TuyaGATTLayout.fd50.writeCharacteristic)
        #expect(write.properties == [.write, .writeWithoutResponse])
        #expect(write.valueHandle == 0x000C)
        #expect(write.declarationValue == long.entries[0].value)
    }

    @Test("Read By Group Type: primary services with their handle ranges")
    func readByGroupType() throws {
        #expect(
            ATTReadByGroupTypeRequest(startHandle: 1, endHandle: 0xFFFF, groupType: .primaryService).encode()
                == [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28])
        let bytes: [UInt8] = [
            0x11, 0x06, 0x01, 0x00, 0x05, 0x00, 0x00, 0x18, 0x06, 0x00, 0x09, 0x00, 0x01, 0x18, 0x0A, 0x00, 0x0F, 0x00,
            0x10, 0x19,
        ]
        let response = try ATTReadByGroupTypeResponse(bytes: bytes)
        #expect(response.entries.map(\.handle) == [0x0001, 0x0006, 0x000A])
        #expect(response.entries.map(\.endGroupHandle) == [0x0005, 0x0009, 0x000F])
        #expect(BluetoothUUID(littleEndian: response.entries[2].value) == TuyaGATTLayout.a201.serviceUUID)
        #expect(response.encode() == bytes)
    }

    @Test("writes, notifications, indications and confirmations")
    func writesAndValues() throws {
        #expect(ATTWriteRequest(handle: 0x000F, value: [0x01, 0x00]).encode() == [0x12, 0x0F, 0x00, 0x01, 0x00])
        #expect(try ATTWriteResponse(bytes: [0x13]) == ATTWriteResponse())
        #expect(ATTWriteCommand(handle: 0x0010, value: [0xAA, 0xBB]).encode() == [0x52, 0x10, 0x00, 0xAA, 0xBB])
        #expect(
            try ATTHandleValueNotification(bytes: [0x1B, 0x0E, 0x00, 0x01, 0x02])
                == ATTHandleValueNotification(handle: 0x000E, value: [0x01, 0x02]))
        #expect(try ATTHandleValueNotification(bytes: [0x1B, 0x0E, 0x00]).value == [])
        #expect(try ATTHandleValueIndication(bytes: [0x1D, 0x08, 0x00, 0x01]).handle == 0x0008)
        #expect(ATTHandleValueConfirmation().encode() == [0x1E])
    }

    @Test(
        "hostile PDUs are typed errors naming the PDU",
        arguments: [
            ([], ATTDecodingError.empty),
            ([0x01, 0x10], .truncated(.errorResponse, needed: 5, got: 2)),
            ([0x01, 0x10, 0x01, 0x00, 0x0A, 0x00], .wrongLength(.errorResponse, expected: 5, got: 6)),
            ([0x03, 0x17], .truncated(.exchangeMTUResponse, needed: 3, got: 2)),
            ([0x09, 0x01, 0x02, 0x00], .invalidEntryLength(.readByTypeResponse, length: 1, minimum: 2)),
            (
                [0x09, 0x07, 0x02, 0x00, 0x02, 0x03, 0x00, 0x00],
                .invalidListLength(.readByTypeResponse, listLength: 6, entryLength: 7)
            ),
            ([0x09, 0x07], .invalidListLength(.readByTypeResponse, listLength: 0, entryLength: 7)),
            ([0x11, 0x03, 0x01, 0x00, 0x05], .invalidEntryLength(.readByGroupTypeResponse, length: 3, minimum: 4)),
            ([0x05, 0x03, 0x01, 0x00, 0x02, 0x29], .invalidFormat(.findInformationResponse, 3)),
            (
                [0x05, 0x01, 0x01, 0x00, 0x02],
                .invalidListLength(.findInformationResponse, listLength: 3, entryLength: 4)
            ),
            ([0x13, 0x00], .wrongLength(.writeResponse, expected: 1, got: 2)),
            ([0x1B, 0x0E], .truncated(.handleValueNotification, needed: 3, got: 2)),
        ] as [([UInt8], ATTDecodingError)])
    func hostile(bytes: [UInt8], expected: ATTDecodingError) {
        #expect(throws: expected) { try Self.parseAny(bytes) }
    }

    @Test("a request with a 3-byte UUID or the wrong opcode is refused")
    func badUUIDAndOpcode() {
        #expect(throws: ATTDecodingError.invalidUUIDLength(.readByTypeRequest, 3)) {
            try ATTReadByTypeRequest(bytes: [0x08, 0x01, 0x00, 0xFF, 0xFF, 0x03, 0x28, 0x00])
        }
        #expect(throws: ATTDecodingError.wrongOpcode(expected: .writeRequest, found: 0x52)) {
            try ATTWriteRequest(bytes: [0x52, 0x01, 0x00])
        }
        #expect(
            ATTDecodingError.invalidFormat(.findInformationResponse, 3).description.contains(
                "Find Information Response (0x05)"))
    }

    @Test("random bytes never trap, and whatever parses encodes back to the same bytes")
    func randomRoundTrips() throws {
        var generator = SeededGenerator(seed: 5)
        let opcodes: [UInt8] = [
            0x01, 0x02, 0x03, 0x04, 0x05, 0x08, 0x09, 0x10, 0x11, 0x12, 0x13, 0x1B, 0x1D, 0x1E, 0x52,
        ]
        var parsed = 0
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...24, using: &generator)
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if !bytes.isEmpty { bytes[0] = opcodes.randomElement(using: &generator)! }
            if bytes.count > 1, bytes[0] == 0x05 { bytes[1] = UInt8.random(in: 1...2, using: &generator) }
            if let encoded = try? Self.parseAny(bytes) {
                parsed += 1
                #expect(encoded == bytes, "round trip of \(bytes)")
            }
        }
        #expect(parsed > 1_000)
    }

    /// Parses with the type the opcode names and re-encodes.
    static func parseAny(_ bytes: [UInt8]) throws(ATTDecodingError) -> [UInt8] {
        switch bytes.first.map(ATTOpcode.init(rawValue:)) {
        case .errorResponse?: try ATTErrorResponse(bytes: bytes).encode()
        case .exchangeMTURequest?: try ATTExchangeMTURequest(bytes: bytes).encode()
        case .exchangeMTUResponse?: try ATTExchangeMTUResponse(bytes: bytes).encode()
        case .findInformationRequest?: try ATTFindInformationRequest(bytes: bytes).encode()
        case .findInformationResponse?: try ATTFindInformationResponse(bytes: bytes).encode()
        case .readByTypeRequest?: try ATTReadByTypeRequest(bytes: bytes).encode()
        case .readByTypeResponse?: try ATTReadByTypeResponse(bytes: bytes).encode()
        case .readByGroupTypeRequest?: try ATTReadByGroupTypeRequest(bytes: bytes).encode()
        case .readByGroupTypeResponse?: try ATTReadByGroupTypeResponse(bytes: bytes).encode()
        case .writeRequest?: try ATTWriteRequest(bytes: bytes).encode()
        case .writeResponse?: try ATTWriteResponse(bytes: bytes).encode()
        case .handleValueNotification?: try ATTHandleValueNotification(bytes: bytes).encode()
        case .handleValueIndication?: try ATTHandleValueIndication(bytes: bytes).encode()
        case .handleValueConfirmation?: try ATTHandleValueConfirmation(bytes: bytes).encode()
        case .writeCommand?: try ATTWriteCommand(bytes: bytes).encode()
        default: throw .empty
        }
    }
}

@Suite("Bluetooth UUIDs")
struct BluetoothUUIDTests {
    @Test("a 16-bit UUID equals its expansion on the base UUID, in any form")
    func baseExpansion() throws {
        let short = BluetoothUUID(0x2B10)
        #expect(short == BluetoothUUID("00002b10-0000-1000-8000-00805f9b34fb"))
        #expect(short == BluetoothUUID("0x2B10"))
        let wire: [UInt8] = [
            0xFB, 0x34, 0x9B, 0x5F, 0x80, 0x00, 0x00, 0x80, 0x00, 0x10, 0x00, 0x00, 0x10, 0x2B, 0x00, 0x00,
        ]
        #expect(BluetoothUUID(littleEndian: wire) == short)
        #expect(short.littleEndianField == [0x10, 0x2B])
        #expect(short.shortValue == 0x2B10)
        #expect(short.description == "0x2b10")
    }

    @Test("Tuya's FD50 characteristics are 128-bit on their own base and travel reversed")
    func tuyaCharacteristics() {
        let write = TuyaGATTLayout.fd50.writeCharacteristic
        #expect(write.description == "00000001-0000-1001-8001-00805f9b07d0")
        #expect(write.shortValue == nil)
        #expect(
            write.littleEndianField == [
                0xD0, 0x07, 0x9B, 0x5F, 0x80, 0x00, 0x01, 0x80, 0x01, 0x10, 0x00, 0x00, 0x01, 0, 0, 0,
            ])
        #expect(TuyaGATTLayout.fd50.notifyCharacteristic.description == "00000002-0000-1001-8001-00805f9b07d0")
        #expect(TuyaGATTLayout.a201.writeCharacteristic == BluetoothUUID("00002b11-0000-1000-8000-00805f9b34fb"))
        #expect(TuyaGATTLayout.fd50.serviceUUID.littleEndianField == [0x50, 0xFD])
    }

    @Test(
        "text that is not a UUID is refused",
        arguments: ["", "2b1", "0x2b1g", "00002b10-0000-1000-8000-00805f9b34f", "zz"])
    func invalid(text: String) {
        #expect(BluetoothUUID(text) == nil)
    }
}
