/// ACL data: ATT PDUs go out in L2CAP basic frames on channel 4, cut to the controller's LE ACL
/// buffer size and sent as buffer credits allow; incoming fragments are reassembled per link.
/// ATT frames go to the gateway, LE signaling and SMP get the answers a central owes
/// (`L2CAPFixedChannelResponder`), anything else is dropped as a problem.
extension HCIHostCore {
    /// Sends one ATT PDU on `handle`; `.sent` follows once its last fragment went to the
    /// controller, or `.sendFailed` when the link is gone.
    public mutating func sendATT(operation: Int, handle: UInt16, serial: UInt64? = nil, pdu: [UInt8]) -> [Action] {
        guard failure == nil, let state = links[handle], let controller,
            // With `serial`, only that link: a PDU for a link that is gone never reaches the
            // device that got its handle since.
            serial.map({ $0 == state.link.serial }) ?? true
        else {
            return [.sendFailed(operation: operation, failure ?? .transport("no BLE link 0x\(hex16(handle))"))]
        }
        guard !state.closing else {
            return [
                .sendFailed(
                    operation: operation,
                    .disconnected(address: state.link.address, reason: .localHostTerminatedConnection))
            ]
        }
        let frame = L2CAPBasicFrame(channel: L2CAPBasicFrame.attChannel, payload: pdu)
        let packets = frame.aclPackets(handle: handle, maximumDataLength: Int(controller.aclBuffers.dataPacketLength))
        acl.enqueue(packets, on: handle, completing: operation)
        return pumpACL()
    }

    /// Sends what the controller's free buffers allow.
    mutating func pumpACL() -> [Action] {
        acl.sendable().flatMap { queued -> [Action] in
            var actions: [Action] = [.send(queued.packet.h4Packet)]
            if let operation = queued.completes { actions.append(.sent(operation: operation)) }
            return actions
        }
    }

    mutating func receiveACL(_ packet: HCIACLPacket) -> [Action] {
        guard var state = links[packet.handle] else {
            return [.problem("ACL data for connection 0x\(hex16(packet.handle)), which is not open")]
        }
        var actions: [Action] = []
        let received: L2CAPReassembler.Received
        do {
            received = try state.reassembler.receive(packet)
        } catch {
            links[packet.handle] = state
            return [.problem(error.description)]
        }
        links[packet.handle] = state
        if let lost = received.lost { actions.append(.problem(lost.description)) }
        guard let frame = received.frame else { return actions }
        switch frame.channel {
        case L2CAPBasicFrame.attChannel where !frame.payload.isEmpty:
            actions.append(.attPDU(handle: packet.handle, frame.payload))
        case L2CAPBasicFrame.signalingChannel, L2CAPBasicFrame.securityManagerChannel:
            if let reply = L2CAPFixedChannelResponder.reply(to: frame), let controller {
                acl.enqueue(
                    reply.aclPackets(
                        handle: packet.handle, maximumDataLength: Int(controller.aclBuffers.dataPacketLength)),
                    on: packet.handle, completing: nil)
                actions += pumpACL()
            }
        default:
            actions.append(
                .problem(
                    "dropped an L2CAP frame of \(frame.payload.count) bytes on channel 0x\(hex16(frame.channel)) "
                        + "from \(state.link.address)"))
        }
        return actions
    }
}
