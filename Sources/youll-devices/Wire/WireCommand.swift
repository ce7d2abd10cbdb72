import ArgumentParser

/// `youll-devices wire`: decode and encode Tuya frames, for bringing up hardware and
/// checking captures. Runs in-process; needs no daemon.
struct WireCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wire",
        abstract: "Decode and encode Tuya MQTT, LAN and BLE frames.",
        subcommands: [Decode.self, Encode.self]
    )

    struct Decode: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decode a frame given as hex.",
            subcommands: [MQTTDecode.self, LANDecode.self, BLEDecode.self]
        )
    }

    struct Encode: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Encode a frame and print it as hex.",
            subcommands: [MQTTEncode.self, LANEncode.self, BLEEncode.self]
        )
    }
}
