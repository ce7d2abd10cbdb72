import BLELink
import Testing
import YoullTestSupport

/// Each command's bytes against its layout in the Core Specification, Vol 4 Part E §7.
@Suite("HCI commands")
struct HCICommandTests {
    @Test("Reset is opcode 0x0C03 with no parameters, after the H4 command indicator")
    func reset() {
        #expect(HCIResetCommand().h4Packet.encoded == hexBytes("01 03 0C 00"))
        #expect(HCIOpcode.reset.group == 0x03 && HCIOpcode.reset.command == 0x0003)
    }

    @Test("Set Event Mask carries the 8-byte mask little-endian; the host's mask enables LE Meta (bit 61)")
    func eventMask() {
        #expect(HCISetEventMaskCommand(mask: 0x0000_1FFF_FFFF_FFFF).body == hexBytes("01 0C 08 FFFFFFFFFF1F0000"))
        let host = HCISetEventMaskCommand.leHost.parameters
        #expect(host[7] & 0x20 != 0, "LE Meta event")
        #expect(host[0] & 0x10 != 0, "Disconnection Complete")
        #expect(host[1] & 0x80 != 0, "Hardware Error")
    }

    @Test("LE Set Event Mask is 0x2001; the host's mask asks for connection and advertising report subevents")
    func leEventMask() {
        #expect(HCILESetEventMaskCommand.leHost.body == hexBytes("01 20 08 470A000000000000"))
    }

    @Test("the informational and LE read commands have the specification's opcodes and no parameters")
    func readCommands() {
        #expect(HCIReadBufferSizeCommand().body == hexBytes("05 10 00"))
        #expect(HCIReadBDAddrCommand().body == hexBytes("09 10 00"))
        #expect(HCIReadLocalSupportedCommandsCommand().body == hexBytes("02 10 00"))
        #expect(HCILEReadBufferSizeCommand().body == hexBytes("02 20 00"))
        #expect(HCILEReadBufferSizeV2Command().body == hexBytes("60 20 00"))
        #expect(HCILEReadLocalSupportedFeaturesCommand().body == hexBytes("03 20 00"))
        #expect(HCILECreateConnectionCancelCommand().body == hexBytes("0E 20 00"))
    }

    @Test("LE Set Scan Parameters: active, interval and window in 0.625 ms units, own address, filter policy")
    func scanParameters() {
        let command = HCILESetScanParametersCommand(active: true, interval: 0x0060, window: 0x0030)
        #expect(command.body == hexBytes("0B 20 07 01 6000 3000 00 00"))
    }

    @Test("LE Set Scan Enable turns scanning on without duplicate filtering")
    func scanEnable() {
        #expect(HCILESetScanEnableCommand(enable: true).body == hexBytes("0C 20 02 01 00"))
        #expect(HCILESetScanEnableCommand(enable: false).body == hexBytes("0C 20 02 00 00"))
    }

    @Test("LE Set Extended Scan Parameters scans the LE 1M PHY with one set of type, interval and window")
    func extendedScanParameters() {
        let command = HCILESetExtendedScanParametersCommand(active: true, interval: 0x0010, window: 0x0010)
        #expect(command.body == hexBytes("41 20 08 00 00 01 01 1000 1000"))
    }

    @Test("LE Set Extended Scan Enable: enable, no duplicate filter, duration and period zero")
    func extendedScanEnable() {
        #expect(HCILESetExtendedScanEnableCommand(enable: true).body == hexBytes("42 20 06 01 00 0000 0000"))
    }

    @Test("LE Create Connection is 25 bytes: scan timing, peer address type and address, connection timing")
    func createConnection() throws {
        let address = try #require(AdvertisingReport.addressBytes("C4:00:00:00:00:01"))
        let command = HCILECreateConnectionCommand(peerAddress: address, peerAddressType: 1)
        #expect(command.parameters.count == 25)
        #expect(command.body == hexBytes("0D 20 19 6000 6000 00 01 0100000000C4 00 1800 2800 0000 9001 0000 0000"))
    }

    @Test("LE Extended Create Connection carries one PHY's 16 bytes of timing after the LE 1M bit")
    func extendedCreateConnection() throws {
        let address = try #require(AdvertisingReport.addressBytes("11:22:33:44:55:66"))
        let command = HCILEExtendedCreateConnectionCommand(peerAddress: address, peerAddressType: 0)
        #expect(command.parameters.count == 26)
        #expect(command.body == hexBytes("43 20 1A 00 00 00 665544332211 01 6000 6000 1800 2800 0000 9001 0000 0000"))
    }

    @Test("Disconnect carries the 12-bit handle and the reason")
    func disconnect() {
        #expect(
            HCIDisconnectCommand(handle: 0x0040, reason: .remoteUserTerminatedConnection).body
                == hexBytes("06 04 03 4000 13"))
        #expect(HCIDisconnectCommand(handle: 0xF001).parameters == hexBytes("0100 13"), "flag bits are not sent")
    }

    @Test("an opcode names its command, and an unknown one shows its value")
    func opcodeNames() {
        #expect(HCIOpcode.leCreateConnection.description == "LE Create Connection")
        #expect(HCIOpcode(rawValue: 0xFC01).description == "HCI command 0xfc01")
        #expect(HCIOpcode(group: 0x08, command: 0x000D) == .leCreateConnection)
    }
}

/// Return parameters after the status byte, from the layouts of Vol 4 Part E §7.4 and §7.8.
@Suite("HCI return parameters")
struct HCIReturnParameterTests {
    @Test("Read Buffer Size gives the ACL packet length and count, ignoring the synchronous buffers")
    func readBufferSize() throws {
        let size = try HCIReadBufferSizeCommand.decodeReturnParameters(hexBytes("FD03 40 0800 0000")[...])
        #expect(size == HCIBufferSize(dataPacketLength: 1021, totalPackets: 8))
    }

    @Test("LE Read Buffer Size [v1] and [v2] give the LE ACL length and count")
    func leReadBufferSize() throws {
        #expect(
            try HCILEReadBufferSizeCommand.decodeReturnParameters(hexBytes("1B00 0F")[...])
                == HCIBufferSize(dataPacketLength: 27, totalPackets: 15))
        #expect(
            try HCILEReadBufferSizeV2Command.decodeReturnParameters(hexBytes("FB00 04 C003 10")[...])
                == HCIBufferSize(dataPacketLength: 251, totalPackets: 4))
    }

    @Test("Read BD_ADDR turns the little-endian address into display order")
    func readAddress() throws {
        #expect(try HCIReadBDAddrCommand.decodeReturnParameters(hexBytes("665544332211")[...]) == "11:22:33:44:55:66")
    }

    @Test("LE features and supported commands are read as bit masks")
    func masks() throws {
        let features = try HCILEReadLocalSupportedFeaturesCommand.decodeReturnParameters(
            hexBytes("2010000000000000")[...])
        #expect(features.contains(.extendedAdvertising) && features.contains(.dataPacketLengthExtension))
        var mask = [UInt8](repeating: 0, count: 64)
        mask[41] = 0x20
        let supported = try HCIReadLocalSupportedCommandsCommand.decodeReturnParameters(mask[...])
        #expect(supported.leReadBufferSizeV2)
        #expect(!supported.contains(octet: 64, bit: 0) && !supported.contains(octet: 0, bit: 9))
    }

    @Test("short or long return parameters are refused, naming the field")
    func hostileReturnParameters() {
        #expect(
            throws: HCIPacketError.truncated(
                packet: "LE Read Buffer Size return parameters", field: "Total_Num_LE_ACL_Data_Packets", needed: 1,
                available: 0)
        ) {
            try HCILEReadBufferSizeCommand.decodeReturnParameters(hexBytes("1B00")[...])
        }
        #expect(throws: HCIPacketError.self) {
            try HCIReadBDAddrCommand.decodeReturnParameters(hexBytes("66554433221100")[...])
        }
        #expect(throws: HCIPacketError.self) {
            try HCIReadLocalSupportedCommandsCommand.decodeReturnParameters([UInt8](repeating: 0, count: 63)[...])
        }
    }
}
