/// A device the gateway has paired: who it is and how to reach it. Secrets (the local
/// key) are deliberately not here: this value travels to events, logs and the API.
public struct TuyaDevice: Hashable, Sendable, Identifiable {
    public var id: DeviceID
    /// Friendly name, unique per gateway (`bedroom-diffuser`).
    public var name: String
    /// The `DeviceProfile.id` that maps its data points.
    public var profileID: String
    public var category: DeviceCategory
    public var transport: Transport
    /// Tuya product key, when known.
    public var productID: String?

    public init(
        id: DeviceID, name: String, profileID: String, category: DeviceCategory, transport: Transport,
        productID: String? = nil
    ) {
        self.id = id
        self.name = name
        self.profileID = profileID
        self.category = category
        self.transport = transport
        self.productID = productID
    }
}
