import BLELink

/// The attribute table of a simulated Tuya BLE device and the ATT server logic that answers a
/// client's requests from it. Pure: a request goes in, the response (if any) and the value
/// written to the Tuya write characteristic (if any) come out; `SimulatedGATTServer` owns the
/// socket.
///
/// Handles are laid out like a real device's: the GAP service (0x1800) first, then the GATT
/// service (0x1801) with a Service Changed characteristic and its own CCCD, then the Tuya
/// service. The FD50 table ends with a third, read-only characteristic after the notify one, so
/// a client must bound its descriptor search by the next declaration. The ATT MTU is 23 until
/// the client exchanges MTUs: then the smaller of the two offers (never below 23), or 23 when
/// the server refuses the exchange (`serverMTU` nil, as some firmware does).
public struct SimulatedGATTDatabase: Sendable {
    /// One attribute: handle, type, value and what a client may do with it.
    public struct Attribute: Sendable, Hashable {
        public var handle: UInt16
        public var type: BluetoothUUID
        public var value: [UInt8]
        public var readable: Bool
        public var writable: Bool
    }

    /// The result of one PDU from the client.
    public struct Outcome: Sendable, Hashable {
        /// The PDU to send back; nil for commands, confirmations and anything a server ignores.
        public var response: [UInt8]?
        /// A value the client wrote to the Tuya write characteristic.
        public var written: [UInt8]?

        public init(response: [UInt8]? = nil, written: [UInt8]? = nil) {
            self.response = response
            self.written = written
        }
    }

    /// The Tuya layout; nil for a device without a Tuya service (a neighbour's BLE gadget).
    public let layout: TuyaGATTLayout?
    public private(set) var attributes: [Attribute] = []
    /// The Tuya write characteristic's value handle.
    public private(set) var writeHandle: UInt16 = 0
    /// The Tuya notify characteristic's value handle.
    public private(set) var notifyHandle: UInt16 = 0
    /// The notify characteristic's CCCD.
    public private(set) var configurationHandle: UInt16 = 0
    /// The ATT_MTU in force: 23 until an MTU exchange agrees on more.
    public private(set) var mtu: UInt16 = 23
    /// What this server offers in an MTU exchange (many Tuya modules take 247); nil: it answers
    /// Request Not Supported and stays at 23.
    public let serverMTU: UInt16?

    /// True once the client wrote 0x0001 to the notify characteristic's CCCD.
    public var notificationsEnabled: Bool {
        attributes.first { $0.handle == configurationHandle }.map { $0.value.first.map { $0 & 0x01 != 0 } ?? false }
            ?? false
    }

    public init(layout: TuyaGATTLayout?, serverMTU: UInt16? = 23) {
        self.layout = layout
        self.serverMTU = serverMTU
        addService(0x1800)
        addCharacteristic(BluetoothUUID(0x2A00), properties: .read, value: Array("TY".utf8), readable: true)
        addCharacteristic(BluetoothUUID(0x2A01), properties: .read, value: [0x00, 0x00], readable: true)
        addService(0x1801)
        addCharacteristic(BluetoothUUID(0x2A05), properties: .indicate, value: [0x01, 0x00, 0xFF, 0xFF])
        addConfiguration()
        guard let layout else { return }
        addService(layout.serviceUUID.shortValue ?? 0)
        let write: GATTCharacteristicProperties = [.write, .writeWithoutResponse]
        switch layout {
        case .a201:
            notifyHandle = addCharacteristic(layout.notifyCharacteristic, properties: .notify)
            configurationHandle = addConfiguration()
            writeHandle = addCharacteristic(layout.writeCharacteristic, properties: write, writable: true)
        case .fd50:
            writeHandle = addCharacteristic(layout.writeCharacteristic, properties: write, writable: true)
            notifyHandle = addCharacteristic(layout.notifyCharacteristic, properties: .notify)
            configurationHandle = addConfiguration()
            var read = layout.notifyCharacteristic.bytes
            read[3] = 0x03
            addCharacteristic(BluetoothUUID(bigEndian: read)!, properties: .read, value: [0x00], readable: true)
        }
    }

    // MARK: building the table

    private var nextHandle: UInt16 { UInt16(attributes.count + 1) }

    private mutating func addService(_ uuid: UInt16) {
        attributes.append(
            Attribute(
                handle: nextHandle, type: .primaryService, value: BluetoothUUID(uuid).littleEndianField,
                readable: true, writable: false))
    }

    @discardableResult
    private mutating func addCharacteristic(
        _ uuid: BluetoothUUID, properties: GATTCharacteristicProperties, value: [UInt8] = [], readable: Bool = false,
        writable: Bool = false
    ) -> UInt16 {
        let declaration = GATTCharacteristic(
            declarationHandle: nextHandle, properties: properties, valueHandle: nextHandle + 1, uuid: uuid)
        attributes.append(
            Attribute(
                handle: declaration.declarationHandle, type: .characteristic, value: declaration.declarationValue,
                readable: true, writable: false))
        attributes.append(
            Attribute(handle: nextHandle, type: uuid, value: value, readable: readable, writable: writable))
        return declaration.valueHandle
    }

    @discardableResult
    private mutating func addConfiguration() -> UInt16 {
        let handle = nextHandle
        attributes.append(
            Attribute(
                handle: handle, type: .clientCharacteristicConfiguration, value: [0x00, 0x00], readable: true,
                writable: true))
        return handle
    }

    // MARK: answering

    /// Answers one PDU the way a real ATT server does: malformed requests get Invalid PDU,
    /// requests it does not implement get Request Not Supported, commands and confirmations get
    /// nothing.
    public mutating func handle(_ pdu: [UInt8]) -> Outcome {
        guard let first = pdu.first else { return Outcome() }
        let opcode = ATTOpcode(first)
        do {
            switch opcode {
            case .exchangeMTURequest:
                let request = try ATTExchangeMTURequest(bytes: pdu)
                guard let serverMTU else { return Outcome(response: Self.error(opcode, 0, .requestNotSupported)) }
                mtu = ATTBearer.agreedMTU(request.clientMTU, serverMTU)
                return Outcome(response: ATTExchangeMTUResponse(serverMTU: serverMTU).encode())
            case .readByGroupTypeRequest:
                return Outcome(response: readByGroupType(try ATTReadByGroupTypeRequest(bytes: pdu)))
            case .readByTypeRequest:
                return Outcome(response: readByType(try ATTReadByTypeRequest(bytes: pdu)))
            case .findInformationRequest:
                return Outcome(response: findInformation(try ATTFindInformationRequest(bytes: pdu)))
            case .writeRequest:
                return write(try ATTWriteRequest(bytes: pdu))
            case .writeCommand:
                // A PDU longer than the MTU is not ATT: a server ignores it.
                let command = try ATTWriteCommand(bytes: pdu)
                return command.handle == writeHandle && pdu.count <= mtu ? Outcome(written: command.value) : Outcome()
            case _ where opcode.isCommand || !opcode.isRequest:
                return Outcome()
            default:
                return Outcome(response: Self.error(opcode, 0, .requestNotSupported))
            }
        } catch {
            return opcode.isCommand ? Outcome() : Outcome(response: Self.error(opcode, 0, .invalidPDU))
        }
    }

    private static func error(_ request: ATTOpcode, _ handle: UInt16, _ code: ATTErrorCode) -> [UInt8] {
        ATTErrorResponse(request: request, handle: handle, error: code).encode()
    }

    /// The attributes in `start...end`, or the Error Response a server sends for a bad range
    /// (Invalid Handle) or an empty one (Attribute Not Found).
    private func attributes(
        _ request: ATTOpcode, from start: UInt16, to end: UInt16, where include: (Attribute) -> Bool
    ) -> Result<[Attribute], ErrorPDU> {
        guard start != 0, start <= end else { return .failure(ErrorPDU(Self.error(request, start, .invalidHandle))) }
        let found = attributes.filter { (start...end).contains($0.handle) && include($0) }
        return found.isEmpty ? .failure(ErrorPDU(Self.error(request, start, .attributeNotFound))) : .success(found)
    }

    private struct ErrorPDU: Error { var bytes: [UInt8]; init(_ bytes: [UInt8]) { self.bytes = bytes } }

    private func readByGroupType(_ request: ATTReadByGroupTypeRequest) -> [UInt8] {
        guard request.groupType == .primaryService || request.groupType == .secondaryService else {
            guard request.startHandle != 0, request.startHandle <= request.endHandle else {
                return Self.error(ATTReadByGroupTypeRequest.opcode, request.startHandle, .invalidHandle)
            }
            return Self.error(ATTReadByGroupTypeRequest.opcode, request.startHandle, .unsupportedGroupType)
        }
        switch attributes(
            ATTReadByGroupTypeRequest.opcode, from: request.startHandle, to: request.endHandle,
            where: {
                $0.type == request.groupType
            })
        {
        case .failure(let error):
            return error.bytes
        case .success(let groups):
            var entries: [ATTReadByGroupTypeResponse.Entry] = []
            for group in groups {
                let entry = ATTReadByGroupTypeResponse.Entry(
                    handle: group.handle, endGroupHandle: endOfGroup(startingAt: group.handle), value: group.value)
                guard entry.value.count == groups[0].value.count,
                    2 + (entries.count + 1) * (4 + entry.value.count) <= mtu
                else { break }
                entries.append(entry)
            }
            return ATTReadByGroupTypeResponse(entries: entries).encode()
        }
    }

    private func endOfGroup(startingAt handle: UInt16) -> UInt16 {
        let next = attributes.first {
            $0.handle > handle && ($0.type == .primaryService || $0.type == .secondaryService)
        }
        return next.map { $0.handle - 1 } ?? attributes[attributes.count - 1].handle
    }

    private func readByType(_ request: ATTReadByTypeRequest) -> [UInt8] {
        let opcode = ATTReadByTypeRequest.opcode
        switch attributes(opcode, from: request.startHandle, to: request.endHandle, where: { $0.type == request.type })
        {
        case .failure(let error):
            return error.bytes
        case .success(let found):
            guard found[0].readable else { return Self.error(opcode, found[0].handle, .readNotPermitted) }
            let longest = min(Int(mtu) - 4, 253)
            let length = min(found[0].value.count, longest)
            var entries: [ATTReadByTypeResponse.Entry] = []
            for attribute in found {
                let value = Array(attribute.value.prefix(longest))
                guard attribute.readable, value.count == length, 2 + (entries.count + 1) * (2 + length) <= mtu
                else { break }
                entries.append(ATTReadByTypeResponse.Entry(handle: attribute.handle, value: value))
            }
            return ATTReadByTypeResponse(entries: entries).encode()
        }
    }

    private func findInformation(_ request: ATTFindInformationRequest) -> [UInt8] {
        switch attributes(
            ATTFindInformationRequest.opcode, from: request.startHandle, to: request.endHandle,
            where: {
                _ in true
            })
        {
        case .failure(let error):
            return error.bytes
        case .success(let found):
            let long = found[0].type.shortValue == nil
            let entrySize = long ? 18 : 4
            var entries: [ATTFindInformationResponse.Entry] = []
            for attribute in found {
                guard (attribute.type.shortValue == nil) == long, 2 + (entries.count + 1) * entrySize <= mtu else {
                    break
                }
                entries.append(ATTFindInformationResponse.Entry(handle: attribute.handle, type: attribute.type))
            }
            return ATTFindInformationResponse(uses128BitUUIDs: long, entries: entries).encode()
        }
    }

    private mutating func write(_ request: ATTWriteRequest) -> Outcome {
        let opcode = ATTWriteRequest.opcode
        guard let index = attributes.firstIndex(where: { $0.handle == request.handle }) else {
            return Outcome(response: Self.error(opcode, request.handle, .invalidHandle))
        }
        guard attributes[index].writable else {
            return Outcome(response: Self.error(opcode, request.handle, .writeNotPermitted))
        }
        if attributes[index].type == .clientCharacteristicConfiguration {
            guard request.value.count == 2 else {
                return Outcome(response: Self.error(opcode, request.handle, .invalidAttributeValueLength))
            }
            attributes[index].value = request.value
            return Outcome(response: ATTWriteResponse().encode())
        }
        guard request.value.count <= Int(mtu) - 3 else {
            return Outcome(response: Self.error(opcode, request.handle, .invalidAttributeValueLength))
        }
        return Outcome(
            response: ATTWriteResponse().encode(), written: request.handle == writeHandle ? request.value : nil)
    }
}
