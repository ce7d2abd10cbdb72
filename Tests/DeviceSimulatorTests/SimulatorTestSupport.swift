import DeviceSimulator
import Foundation
import Testing
import TuyaCore
import TuyaWire
import YoullTestSupport

/// Shared fixtures: the shipped profiles and frame helpers playing the gateway's part.
enum Fixture {
    static let library: ProfileLibrary = Repository.shippedProfiles

    static func profile(_ id: String) throws -> DeviceProfile {
        try #require(library.profile(id: id), "profile \(id) missing from devices/")
    }

    static let localKey = "0123456789abcdef"

    /// A protocol-5 command frame as the gateway sends it.
    static func command(_ dps: [String: JSONValue], key: String = localKey, sequence: UInt32 = 1) throws -> [UInt8] {
        try frame(.command(dps: dps), key: key, sequence: sequence)
    }

    /// A protocol-31 query frame.
    static func query(_ ids: [Int]? = nil, key: String = localKey, sequence: UInt32 = 1) throws -> [UInt8] {
        try frame(.query(dpIDs: ids), key: key, sequence: sequence)
    }

    static func frame(_ envelope: TuyaEnvelope, key: String, sequence: UInt32) throws -> [UInt8] {
        try MQTTFrame.encode(
            body: envelope.encode(timestamp: 1_700_000_000), key: AESKey(localKey: key), sequence: sequence, source: 0)
    }

    /// Decrypts a device's frame and returns its protocol-4 report.
    static func report(_ payload: [UInt8], key: String = localKey) throws -> (devId: String?, dps: [String: JSONValue])
    {
        let frame = try MQTTFrame.decode(payload, key: AESKey(localKey: key))
        #expect(frame.source == MQTTFrame.deviceSource)
        guard case .report(let devId, let dps, _) = try TuyaEnvelope.decode(frame.body).envelope else {
            Issue.record("not a protocol-4 report")
            return (nil, [:])
        }
        return (devId, dps)
    }
}

extension SimulatedDevice {
    /// The reports among `actions`, in order.
    static func reports(in actions: [Action]) -> [Report] {
        actions.compactMap { action in
            if case .publish(let report) = action { return report }
            return nil
        }
    }
}

func dp(_ id: Int) -> DataPointID {
    DataPointID(id)!
}
