import BLELink

/// Harnesses for the HCI host's decoders of controller bytes (BLELink/HCI), merged into
/// `harnesses`. Each returns normally for every input; where a decoder accepts bytes, the
/// harness checks that they encode back to the same bytes.
let bleHarnesses: [String: @Sendable ([UInt8]) -> Void] = [
    "hci-h4-stream": { bytes in
        // The first byte picks the chunk size, so packets also arrive split across reads.
        guard let first = bytes.first else { return }
        let chunk = Int(first % 32) + 1
        var decoder = H4StreamDecoder(limits: .init(maximumACLLength: 512, maximumISOLength: 512))
        var rest = bytes.dropFirst()
        while !rest.isEmpty {
            guard let packets = try? decoder.append(rest.prefix(chunk)) else { return }
            rest = rest.dropFirst(chunk)
            for packet in packets { checkPacket(packet) }
        }
    },
    "hci-events": { bytes in
        guard let event = try? HCIEventPacket(body: bytes) else { return }
        guard event.body == bytes else { fatalError("event packet round trip changed the bytes") }
        guard let decoded = try? HCIControllerEvent(event) else { return }
        checkRoundTrip(decoded, event.parameters)
    },
    "hci-acl-reassembly": { bytes in
        // Packets prefixed by a length byte; the two top bits of it are the boundary flag.
        var reassembler = L2CAPReassembler(handle: 0x40, maximumPayloadLength: 256)
        var rest = bytes[...]
        while let header = rest.first {
            rest = rest.dropFirst()
            let data = Array(rest.prefix(Int(header & 0x3F)))
            rest = rest.dropFirst(data.count)
            let boundary = HCIACLPacket.Boundary(rawValue: header >> 6) ?? .continuing
            let packet = HCIACLPacket(handle: 0x40, boundary: boundary, data: data)
            guard let frame = (try? reassembler.receive(packet))?.frame else { continue }
            guard frame.payload.count <= 256, (try? L2CAPBasicFrame(bytes: frame.encoded)) == frame else {
                fatalError("reassembled frame of \(frame.payload.count) bytes does not round-trip")
            }
        }
    },
    "hci-host": { bytes in
        // A started host, then the input as controller bytes: no input may trap it.
        var core = HCIHostCore()
        _ = core.start()
        for step in fuzzStartUp { _ = core.receive(bytes: step) }
        guard core.isReady else { fatalError("the fuzz start-up did not make the host ready") }
        _ = core.connect(operation: 1, address: "C4:00:00:00:00:01", addressType: .randomDevice, timeout: .seconds(5))
        _ = core.startScan(operation: 2)
        _ = core.receive(bytes: bytes)
        _ = core.sendATT(operation: 3, handle: 0x40, pdu: [0x52, 0x01, 0x00] + Array(repeating: 0xAA, count: 40))
        _ = core.timerFired(.connect(operation: 1))
    },
]

/// An H4 packet's own decoder must accept what the stream decoder cut out, or refuse it cleanly.
private func checkPacket(_ packet: H4Packet) {
    switch packet.type {
    case .event:
        guard let event = try? HCIEventPacket(body: packet.body) else {
            fatalError("the stream decoder cut an event its decoder refuses")
        }
        _ = try? HCIControllerEvent(event)
    case .acl:
        guard let acl = try? HCIACLPacket(body: packet.body) else {
            fatalError("the stream decoder cut an ACL packet its decoder refuses")
        }
        guard acl.body == packet.body else { fatalError("ACL round trip changed the bytes") }
    case .command, .sco, .iso:
        break
    }
}

/// Events this module can encode must encode back to the parameters they came from.
private func checkRoundTrip(_ event: HCIControllerEvent, _ parameters: [UInt8]) {
    let again: [UInt8]?
    switch event {
    case .commandComplete(let complete): again = complete.parameters
    case .commandStatus(let status): again = status.parameters
    case .numberOfCompletedPackets(let completed): again = completed.parameters
    default: again = nil
    }
    guard let again else { return }
    // Handles carry 4 flag bits the decoders drop; compare what they keep.
    if case .numberOfCompletedPackets = event {
        guard again.count == parameters.count else { fatalError("Number Of Completed Packets changed length") }
        return
    }
    guard again == parameters else { fatalError("\(event) does not encode back to its parameters") }
}

/// Controller answers that take `HCIHostCore` through start-up (a legacy controller, 27-byte
/// LE buffers, 4 of them).
private let fuzzStartUp: [[UInt8]] = {
    func complete(_ opcode: HCIOpcode, _ parameters: [UInt8]) -> [UInt8] {
        HCIEventPacket(
            code: HCIEventPacket.commandComplete,
            parameters: HCICommandComplete(
                numberOfCommandPackets: 1, opcode: opcode, status: .success, returnParameters: parameters
            ).parameters
        ).h4Packet.encoded
    }
    return [
        complete(.reset, []), complete(.setEventMask, []), complete(.leSetEventMask, []),
        complete(.readBDAddr, [1, 0, 0, 0xDC, 0x1B, 0]),
        complete(.readLocalSupportedCommands, Array(repeating: 0, count: 64)),
        complete(.leReadLocalSupportedFeatures, Array(repeating: 0, count: 8)),
        complete(.leReadBufferSize, [27, 0, 4]),
    ]
}()
