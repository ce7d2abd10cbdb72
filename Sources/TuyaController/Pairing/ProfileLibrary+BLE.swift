import TuyaCore

extension ProfileLibrary {
    /// The profile a BLE pairing uses: the one named, else the BLE profile listing the
    /// product id. It must be known before connecting, since BLE data points are typed by it.
    func bleProfile(profileID: String?, productID: String?) throws(PairingError) -> DeviceProfile {
        if let profileID {
            guard let named = profile(id: profileID) else { throw PairingError.unknownProfile(profileID) }
            return named
        }
        if let productID, let listed = profiles(forProductID: productID).first(where: { $0.transports.contains(.ble) })
        {
            return listed
        }
        throw PairingError.bleProfileNeeded(productID: productID)
    }
}
