import BLELink
import TuyaWire

/// Just enough of the Tuya BLE session (protocol/TUYA.md §1.9), built from TuyaWire's codecs, to
/// prove that GATT writes reach a Bumble peripheral and its notifications come back whole:
/// device info under the login key, then pair under the session key.
struct TuyaFrameExchange {
    let client: GATTClient
    var keys: BLEKeys
    let protocolVersion: UInt8
    private var sn: UInt32 = 0
    private var ivSource = RandomIVSource()
    private var reassembler = BLEReassembler()
    private var notifications: AsyncStream<[UInt8]>.AsyncIterator

    init(client: GATTClient, localKey: String, protocolVersion: UInt8) throws {
        self.client = client
        keys = try BLEKeys(localKey: localKey)
        self.protocolVersion = protocolVersion
        notifications = client.notifications.makeAsyncIterator()
    }

    /// Sends one command frame in 20-byte writes; returns the frame the device answers with.
    mutating func request(_ command: BLECommand, data: [UInt8], flag: BLESecurityFlag) async throws -> BLECommandFrame {
        sn += 1
        let frame = try BLECommandFrame(sn: sn, command: command, data: data)
        let encrypted = try BLEFrameCodec.encrypt(frame, flag: flag, keys: keys, ivSource: &ivSource)
        for packet in try BLEFragmenter(protocolVersion: protocolVersion).packets(for: encrypted) {
            try await client.writeWithoutResponse(packet)
        }
        while true {
            let answer = try await nextFrame()
            if answer.ackSN == frame.sn { return answer }
        }
    }

    /// The next whole frame the device notifies.
    mutating func nextFrame() async throws -> BLECommandFrame {
        while true {
            guard let packet = await notifications.next() else { throw GATTError.notDiscovered }
            if let whole = try reassembler.receive(packet) { return try BLEFrameCodec.decrypt(whole, keys: keys).frame }
        }
    }

    /// Device info, then the session key from its srand, then pair with `uuid` and `devId`;
    /// returns the pair result byte (0 paired, 1 refused, 2 already bound).
    mutating func pair(uuid: String, localKey: String, devId: String) async throws -> UInt8 {
        let info = try await request(.deviceInfo, data: [], flag: .login)
        let parsed = try BLEDeviceInfo(bytes: info.data)
        try keys.establishSession(srand: parsed.srand)
        let request = try BLEPairRequest(uuid: uuid, localKey: localKey, devId: devId)
        let answer = try await self.request(.pair, data: request.encoded, flag: .session)
        return answer.data.first ?? 0xFF
    }
}
