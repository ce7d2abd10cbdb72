/// An event from the controller, as far as the HCI host cares; everything else is read just far
/// enough to be ignored. Decoding never traps: a malformed event throws `HCIPacketError`
/// naming the event and field.
public enum HCIControllerEvent: Hashable, Sendable {
    case commandComplete(HCICommandComplete)
    case commandStatus(HCICommandStatus)
    case disconnectionComplete(HCIDisconnectionComplete)
    case numberOfCompletedPackets(HCINumberOfCompletedPackets)
    /// The controller failed (Vol 4 Part E §7.7.16): its state is lost, the host must start over.
    case hardwareError(code: UInt8)
    /// The controller dropped data because the host sent more than its buffers (§7.7.26).
    case dataBufferOverflow(linkType: UInt8)
    case leConnectionComplete(HCILEConnectionComplete)
    case leDataLengthChange(HCILEDataLengthChange)
    /// The reports of one LE (Extended) Advertising Report event, for `ScanTable`.
    case advertisingReports([AdvertisingReport])
    /// An event or LE subevent this host does not use.
    case other(code: UInt8, subevent: UInt8?)

    public init(_ packet: HCIEventPacket) throws(HCIPacketError) {
        let parameters = packet.parameters
        switch packet.code {
        case HCIEventPacket.commandComplete: self = .commandComplete(try HCICommandComplete(parameters: parameters))
        case HCIEventPacket.commandStatus: self = .commandStatus(try HCICommandStatus(parameters: parameters))
        case HCIEventPacket.disconnectionComplete:
            self = .disconnectionComplete(try HCIDisconnectionComplete(parameters: parameters))
        case HCIEventPacket.numberOfCompletedPackets:
            self = .numberOfCompletedPackets(try HCINumberOfCompletedPackets(parameters: parameters))
        case HCIEventPacket.hardwareError:
            self = .hardwareError(code: try Self.single(parameters, "Hardware Error event", "Hardware_Code"))
        case HCIEventPacket.dataBufferOverflow:
            self = .dataBufferOverflow(linkType: try Self.single(parameters, "Data Buffer Overflow event", "Link_Type"))
        case HCIEventPacket.leMeta:
            self = try Self.leMeta(parameters)
        default:
            self = .other(code: packet.code, subevent: nil)
        }
    }

    /// Decodes the body of an H4 event packet.
    public init(body: some Collection<UInt8>) throws(HCIPacketError) {
        try self.init(HCIEventPacket(body: body))
    }

    private static func leMeta(_ parameters: [UInt8]) throws(HCIPacketError) -> HCIControllerEvent {
        guard let subevent = parameters.first else {
            throw .truncated(packet: "LE Meta event", field: "Subevent_Code", needed: 1, available: 0)
        }
        let rest = parameters.dropFirst()
        switch subevent {
        case HCILEConnectionComplete.legacySubevent, HCILEConnectionComplete.enhancedSubevent,
            HCILEConnectionComplete.enhancedV2Subevent:
            return .leConnectionComplete(try HCILEConnectionComplete(subevent: subevent, parameters: rest))
        case HCILEDataLengthChange.subevent:
            return .leDataLengthChange(try HCILEDataLengthChange(parameters: rest))
        case HCIEventParser.leAdvertisingReport, HCIEventParser.leExtendedAdvertisingReport:
            do {
                return .advertisingReports(try HCIEventParser.advertisingReports(subevent: subevent, parameters: rest))
            } catch {
                throw .advertisingReport(error)
            }
        default:
            return .other(code: HCIEventPacket.leMeta, subevent: subevent)
        }
    }

    private static func single(_ parameters: [UInt8], _ packet: String, _ field: String) throws(HCIPacketError)
        -> UInt8
    {
        var reader = HCIByteReader(parameters, packet: packet)
        let value = try reader.uint8(field)
        try reader.expectEnd()
        return value
    }
}
