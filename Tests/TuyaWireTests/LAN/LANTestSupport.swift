import DeviceSimulator
import YoullTestSupport
import TuyaWire

/// The local key every LAN test uses, and a second one for wrong-key cases.
let lanKey = "0123456789abcdef"
let otherLANKey = "fedcba9876543210"

func aesKey(_ text: String) -> AESKey {
    guard let key = try? AESKey(localKey: text) else { fatalError("test keys are 16 characters") }
    return key
}

/// Bytes of an ASCII string.
func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }

extension LANClientSession.Event {
    var sentBytes: [UInt8]? {
        if case .send(let bytes) = self { return bytes }
        return nil
    }

    var message: LANMessage? {
        if case .message(let message) = self { return message }
        return nil
    }
}

extension LANDeviceSession.Event {
    var sentBytes: [UInt8]? {
        if case .send(let bytes) = self { return bytes }
        return nil
    }

    var request: LANMessage? {
        if case .request(let message) = self { return message }
        return nil
    }
}

/// A client and a device session taken through the handshake (3.4/3.5) with seeded
/// randomness; both sides' state afterwards.
func connectedPair(
    version: LANProtocolVersion, clientKey: String = lanKey, deviceKey: String = lanKey, seed: UInt64 = 7
) -> (client: LANClientSession, device: LANDeviceSession, clientEvents: [LANClientSession.Event]) {
    var client = LANClientSession(
        version: version, localKey: aesKey(clientKey), random: SeededGenerator(seed: seed))
    var device = LANDeviceSession(
        version: version, localKey: aesKey(deviceKey), random: SeededGenerator(seed: seed &+ 1), firstSequence: 100)
    var clientEvents: [LANClientSession.Event] = []
    let start = client.start()
    guard !start.isEmpty else { return (client, device, clientEvents) }
    let answers = device.receive(start).compactMap(\.sentBytes)
    for answer in answers {
        let events = client.receive(answer)
        clientEvents += events
        for bytes in events.compactMap(\.sentBytes) { _ = device.receive(bytes) }
    }
    return (client, device, clientEvents)
}
