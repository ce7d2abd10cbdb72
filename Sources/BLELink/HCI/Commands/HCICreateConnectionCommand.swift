/// What both LE Create Connection commands carry; the legacy and the extended command differ
/// only in how they lay it out.
public struct HCIConnectionRequest: Hashable, Sendable {
    /// Six bytes, least significant first.
    public var peerAddress: [UInt8]
    /// 0 public, 1 random.
    public var peerAddressType: UInt8
    public var ownAddressType: UInt8
    public var connection: HCIConnectionParameters

    public init(
        peerAddress: [UInt8], peerAddressType: UInt8, ownAddressType: UInt8 = 0,
        connection: HCIConnectionParameters = .tuya
    ) {
        self.peerAddress = peerAddress
        self.peerAddressType = peerAddressType
        self.ownAddressType = ownAddressType
        self.connection = connection
    }
}

/// LE Create Connection or its extended counterpart: the request, in the command's layout.
/// Answered by a Command Status, then an LE (Enhanced) Connection Complete when the device is
/// found or the attempt is cancelled.
public protocol HCICreateConnectionCommand: HCICommand, Hashable {
    var request: HCIConnectionRequest { get }
    init(request: HCIConnectionRequest)
}

extension HCICreateConnectionCommand {
    public init(
        peerAddress: [UInt8], peerAddressType: UInt8, ownAddressType: UInt8 = 0,
        connection: HCIConnectionParameters = .tuya
    ) {
        self.init(
            request: HCIConnectionRequest(
                peerAddress: peerAddress, peerAddressType: peerAddressType, ownAddressType: ownAddressType,
                connection: connection))
    }
}
