/// What the HCI host learned about its controller at start: for logs, `doctor`, and the
/// host's own choices (buffer credits, legacy or extended commands).
public struct HCIControllerInfo: Hashable, Sendable {
    /// The public address from Read BD_ADDR, nil if the controller has none.
    public var address: String?
    /// The ACL buffers used for LE: packet payload length and how many at once.
    public var aclBuffers: HCIBufferSize
    public var features: HCILEFeatures

    public init(address: String?, aclBuffers: HCIBufferSize, features: HCILEFeatures) {
        self.address = address
        self.aclBuffers = aclBuffers
        self.features = features
    }

    /// The extended scan and create-connection commands are used when the controller has
    /// extended advertising (legacy and extended commands must not be mixed).
    public var usesExtendedCommands: Bool { features.contains(.extendedAdvertising) }
}
