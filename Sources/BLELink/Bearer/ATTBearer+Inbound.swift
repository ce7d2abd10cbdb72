/// PDUs from the device: notifications and indications on the fast path where the channel allows
/// it, everything else on the actor in arrival order.
extension ATTBearer {
    /// What the channel's reader thread hands the actor.
    enum Inbound: Sendable {
        case pdu([UInt8])
        case end(ByteChannelError?)
        /// Confirming an indication on the reader thread failed.
        case replyFailed(ByteChannelError)
    }

    /// Hands notifications and indications (confirmed at once) to `sink` on `channel`'s reader
    /// thread, and every other PDU and the end to the returned stream, which the actor serves.
    nonisolated static func deliverImmediately(
        from channel: any ImmediateByteChannel, sink: NotificationSink, shared: ATTBearerState
    ) -> AsyncStream<Inbound> {
        let (inbound, feed) = AsyncStream.makeStream(of: Inbound.self)
        channel.deliver { event in
            guard case .pdu(let pdu) = event else {
                if case .end(let error) = event { feed.yield(.end(error)) }
                feed.finish()
                return
            }
            switch pdu.first.map({ ATTOpcode($0) }) {
            case .handleValueNotification?:
                guard let notification = try? ATTHandleValueNotification(bytes: pdu) else { break }
                shared.notify(notification, to: sink)
                return
            case .handleValueIndication?:
                guard let indication = try? ATTHandleValueIndication(bytes: pdu) else { break }
                let notification = ATTHandleValueNotification(handle: indication.handle, value: indication.value)
                guard shared.notify(notification, to: sink) else { return }
                do throws(ByteChannelError) {
                    try channel.enqueue(ATTHandleValueConfirmation().encode())
                } catch {
                    feed.yield(.replyFailed(error))
                }
                return
            default:
                break
            }
            feed.yield(.pdu(pdu))
        }
        return inbound
    }

    /// The actor's side over an `ImmediateByteChannel`.
    func serve(_ inbound: AsyncStream<Inbound>) async {
        for await event in inbound {
            switch event {
            case .pdu(let pdu):
                guard isRunning, let first = pdu.first else { continue }
                await handle(ATTOpcode(first), pdu)
            case .end(let error):
                shutDown(.disconnected(reason: error.map { "\($0)" } ?? "the device closed the link"))
            case .replyFailed(let error):
                shutDown(.disconnected(reason: "answering the device failed: \(error)"))
            }
        }
        await channel.close()
    }

    /// The actor's side over any other channel: one `receive()` after another.
    func readLoop() async {
        while isRunning {
            let pdu: [UInt8]?
            do {
                pdu = try await channel.receive()
            } catch {
                shutDown(.disconnected(reason: "\(error)"))
                break
            }
            guard let pdu, let first = pdu.first else {
                shutDown(.disconnected(reason: "the device closed the link"))
                break
            }
            await handle(ATTOpcode(first), pdu)
        }
        await channel.close()
    }

    private var isRunning: Bool { shared.isRunning }

    private func handle(_ opcode: ATTOpcode, _ pdu: [UInt8]) async {
        switch opcode {
        case .handleValueNotification:
            guard let notification = try? ATTHandleValueNotification(bytes: pdu) else { return ignore() }
            shared.notify(notification, to: sink)
        case .handleValueIndication:
            guard let indication = try? ATTHandleValueIndication(bytes: pdu) else { return ignore() }
            shared.notify(ATTHandleValueNotification(handle: indication.handle, value: indication.value), to: sink)
            await reply(ATTHandleValueConfirmation().encode())
        case .exchangeMTURequest:
            guard let request = try? ATTExchangeMTURequest(bytes: pdu) else {
                return await reply(ATTErrorResponse(request: opcode, handle: 0, error: .invalidPDU).encode())
            }
            shared.mtu = Self.agreedMTU(preferredMTU, request.clientMTU)
            await reply(ATTExchangeMTUResponse(serverMTU: preferredMTU).encode())
        case _ where opcode.isResponse:
            receiveResponse(opcode, pdu)
        case _ where opcode.isCommand:
            ignore()
        default:
            if !opcode.isRequest { ignore() }
            await reply(ATTErrorResponse(request: opcode, handle: 0, error: .requestNotSupported).encode())
        }
    }

    /// Matches a response to the outstanding request; like BlueZ, a response of the wrong kind
    /// ends that request with an error rather than leaving it to time out.
    private func receiveResponse(_ opcode: ATTOpcode, _ pdu: [UInt8]) {
        guard let current = pending, current.result == nil else { return ignore() }
        if opcode == .errorResponse {
            do {
                let error = try ATTErrorResponse(bytes: pdu)
                complete(
                    .failure(
                        error.request == current.request
                            ? .errorResponse(request: error.request, handle: error.handle, code: error.error)
                            : .unexpectedResponse(request: current.request, received: opcode)))
            } catch {
                complete(.failure(.malformedResponse(request: current.request, error)))
            }
        } else if opcode == current.request.responseOpcode {
            complete(.success(pdu))
        } else {
            complete(.failure(.unexpectedResponse(request: current.request, received: opcode)))
        }
    }

    private func ignore() { ignoredPDUCount += 1 }

    private func reply(_ pdu: [UInt8]) async {
        guard isRunning else { return }
        do {
            try await channel.send(pdu)
        } catch {
            shutDown(.disconnected(reason: "answering the device failed: \(error)"))
        }
    }
}
