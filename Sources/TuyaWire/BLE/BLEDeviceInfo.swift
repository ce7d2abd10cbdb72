/// The device's answer to 0x0000 (protocol/TUYA.md §1.7; SDK v4
/// `tuya_ble_handle_dev_info_req`). Only bytes 0–11 are required: they hold the
/// protocol version and the srand the session key needs (§1.4). Older devices send
/// less than the SDK v4 layout, so each later group of fields is read only when all
/// of its bytes are present (HTB reads only the first 46).
///
/// `description` leaves out the auth material and the firmware key.
public struct BLEDeviceInfo: Hashable, Sendable, CustomStringConvertible {
    public struct Version: Hashable, Sendable, CustomStringConvertible {
        public var major: UInt8
        public var minor: UInt8

        public init(major: UInt8, minor: UInt8) {
            self.major = major
            self.minor = minor
        }

        public var description: String { "\(major).\(minor)" }
    }

    /// Bytes 46–84 of the SDK v4 reply.
    public struct Extended: Hashable, Sendable {
        /// Three bytes each, e.g. `01 00 05`.
        public var firmwareVersion: [UInt8]
        public var hardwareVersion: [UInt8]
        public var communicationCapability: UInt16
        public var reserved: UInt8
        /// 22 bytes, ASCII when set; zeros when the device has none.
        public var virtualID: [UInt8]
        public var mcuFirmwareVersion: [UInt8]
        public var mcuHardwareVersion: [UInt8]
        public var wifiRegisterMode: UInt8
        /// 0, 8 or 16 bytes.
        public var firmwareKey: [UInt8]

        public init(
            firmwareVersion: [UInt8], hardwareVersion: [UInt8], communicationCapability: UInt16,
            reserved: UInt8 = 0, virtualID: [UInt8], mcuFirmwareVersion: [UInt8],
            mcuHardwareVersion: [UInt8], wifiRegisterMode: UInt8, firmwareKey: [UInt8] = []
        ) {
            self.firmwareVersion = firmwareVersion
            self.hardwareVersion = hardwareVersion
            self.communicationCapability = communicationCapability
            self.reserved = reserved
            self.virtualID = virtualID
            self.mcuFirmwareVersion = mcuFirmwareVersion
            self.mcuHardwareVersion = mcuHardwareVersion
            self.wifiRegisterMode = wifiRegisterMode
            self.firmwareKey = firmwareKey
        }

        /// The virtual id without its zero padding, when it is ASCII.
        public var virtualIDString: String? {
            let trimmed = Array(virtualID.prefix { $0 != 0 })
            guard !trimmed.isEmpty, trimmed.allSatisfy({ $0 < 0x80 }) else { return nil }
            return BLEText.utf8(trimmed)
        }
    }

    public static let minimumLength = 12
    static let authMaterialLength = 32

    public var firmwareVersion: Version
    /// `protocolVersion.major` is what HTB calls `protocol_version` (`data[2]`): it
    /// picks the DP write command (3 → 0x0002, ≥ 4 → 0x0027) and the version nibble.
    public var protocolVersion: Version
    /// 0x00 registered through BLE, 0x05 otherwise; bit 0x10 = beacon key.
    public var flags: UInt8
    public var isBound: Bool
    /// Six random bytes for the session key (protocol/TUYA.md §1.4).
    public var srand: [UInt8]
    public var hardwareVersion: Version?
    /// Bytes 14–45, kept opaque (HTB calls it `auth_key`).
    public var authMaterial: [UInt8]?
    public var extended: Extended?
    /// Why the optional tail after byte 46 was ignored (a malformed extended group, e.g. a
    /// firmware key length other than 0, 8 or 16); nil when it read cleanly or was absent.
    /// The handshake needs only the first 46 bytes, as ha_tuya_ble reads them.
    public var ignoredTail: String?

    public init(
        firmwareVersion: Version, protocolVersion: Version, flags: UInt8 = 0, isBound: Bool,
        srand: [UInt8], hardwareVersion: Version? = nil, authMaterial: [UInt8]? = nil,
        extended: Extended? = nil
    ) {
        self.firmwareVersion = firmwareVersion
        self.protocolVersion = protocolVersion
        self.flags = flags
        self.isBound = isBound
        self.srand = srand
        self.hardwareVersion = hardwareVersion
        self.authMaterial = authMaterial
        self.extended = extended
    }

    public init(bytes: [UInt8]) throws(WireError) {
        var reader = BLEByteReader(bytes, what: "BLE device info")
        firmwareVersion = Version(
            major: try reader.readUInt8("firmware major"), minor: try reader.readUInt8("firmware minor"))
        protocolVersion = Version(
            major: try reader.readUInt8("protocol major"), minor: try reader.readUInt8("protocol minor"))
        flags = try reader.readUInt8("flags")
        isBound = try reader.readUInt8("bound flag") != 0
        srand = try reader.read(6, "srand")
        hardwareVersion = nil
        authMaterial = nil
        extended = nil
        ignoredTail = nil
        guard reader.remaining >= 2 else { return }
        hardwareVersion = Version(
            major: try reader.readUInt8("hardware major"), minor: try reader.readUInt8("hardware minor"))
        guard reader.remaining >= Self.authMaterialLength else { return }
        authMaterial = try reader.read(Self.authMaterialLength, "auth material")
        guard reader.remaining >= 39 else { return }
        do {
            extended = try Self.readExtended(&reader)
        } catch {
            ignoredTail = "\(error)"
        }
    }

    private static func readExtended(_ reader: inout BLEByteReader) throws(WireError) -> Extended {
        let firmware = try reader.read(3, "firmware version")
        let hardware = try reader.read(3, "hardware version")
        let capability = try reader.readUInt16("communication capability")
        let reserved = try reader.readUInt8("reserved")
        let virtualID = try reader.read(22, "virtual id")
        let mcuFirmware = try reader.read(3, "MCU firmware version")
        let mcuHardware = try reader.read(3, "MCU hardware version")
        let registerMode = try reader.readUInt8("Wi-Fi register mode")
        let keyLength = Int(try reader.readUInt8("firmware key length"))
        guard [0, 8, 16].contains(keyLength) else {
            throw .invalidField(field: "BLE device info firmware key length", reason: "\(keyLength) is not 0, 8 or 16")
        }
        let key = try reader.read(keyLength, "firmware key")
        return Extended(
            firmwareVersion: firmware, hardwareVersion: hardware, communicationCapability: capability,
            reserved: reserved, virtualID: virtualID, mcuFirmwareVersion: mcuFirmware,
            mcuHardwareVersion: mcuHardware, wifiRegisterMode: registerMode, firmwareKey: key)
    }

    /// The reply bytes, up to the last group present (used by simulated devices).
    /// Fails when a field has the wrong size.
    public func encoded() throws(WireError) -> [UInt8] {
        guard srand.count == 6 else { throw .invalidField(field: "srand", reason: "must be 6 bytes") }
        var out = [firmwareVersion.major, firmwareVersion.minor, protocolVersion.major, protocolVersion.minor]
        out += [flags, isBound ? 1 : 0] + srand
        guard let hardwareVersion else { return out }
        out += [hardwareVersion.major, hardwareVersion.minor]
        guard let authMaterial else { return out }
        guard authMaterial.count == Self.authMaterialLength else {
            throw .invalidField(field: "auth material", reason: "must be 32 bytes")
        }
        out += authMaterial
        guard let extended else { return out }
        let sizes = [
            (extended.firmwareVersion.count, 3), (extended.hardwareVersion.count, 3), (extended.virtualID.count, 22),
            (extended.mcuFirmwareVersion.count, 3), (extended.mcuHardwareVersion.count, 3),
        ]
        guard sizes.allSatisfy({ $0.0 == $0.1 }), [0, 8, 16].contains(extended.firmwareKey.count) else {
            throw .invalidField(field: "extended device info", reason: "a field has the wrong size")
        }
        out += extended.firmwareVersion + extended.hardwareVersion
        out += BLEBigEndian.bytes(extended.communicationCapability) + [extended.reserved]
        out += extended.virtualID + extended.mcuFirmwareVersion + extended.mcuHardwareVersion
        out += [extended.wifiRegisterMode, UInt8(extended.firmwareKey.count)] + extended.firmwareKey
        return out
    }

    public var description: String {
        var text = "BLEDeviceInfo(firmware \(firmwareVersion), protocol \(protocolVersion), bound \(isBound)"
        if let hardwareVersion { text += ", hardware \(hardwareVersion)" }
        if let id = extended?.virtualIDString { text += ", virtual id \(id)" }
        return text + ")"
    }
}
