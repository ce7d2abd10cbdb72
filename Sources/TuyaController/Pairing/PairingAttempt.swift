import TuyaCore

/// Decides a pairing outcome from what arrived on the device's topic, without I/O:
/// the controller feeds it decrypted reports and key failures and asks it for the
/// outcome once a report arrives or the deadline passes.
struct PairingAttempt: Sendable {
    struct Request: Hashable, Sendable {
        var id: DeviceID
        var name: String
        var profileID: String?
        var productID: String?
        /// How the device is reached: its profile must list this transport.
        var transport: Transport = .mqtt
    }

    let request: Request
    let library: ProfileLibrary
    private(set) var keyMismatches = 0

    init(request: Request, library: ProfileLibrary) {
        self.request = request
        self.library = library
    }

    /// An intact frame the key cannot decrypt; only decides the outcome at the deadline,
    /// since a decryptable report may still follow (a stale retained frame, say).
    mutating func receivedKeyMismatch() {
        keyMismatches += 1
    }

    /// A decryptable report ends the attempt: the profile is the one named, else the
    /// one listing the product id, else the closest fit to the DP ids seen, among the
    /// profiles that list the device's transport.
    func receivedReport(dpIDs: Set<DataPointID>) -> (PairingOutcome, DeviceProfile?) {
        let profile: DeviceProfile?
        if let profileID = request.profileID {
            profile = library.profile(id: profileID)
        } else {
            let reachable = ProfileLibrary(profiles: library.all.filter { $0.transports.contains(request.transport) })
            profile = reachable.match(productID: request.productID, dataPointIDs: dpIDs)
        }
        guard let profile, profile.transports.contains(request.transport) else {
            return (.unknownProduct(dpsSeen: dpIDs.sorted()), nil)
        }
        let device = TuyaDevice(
            id: request.id, name: request.name, profileID: profile.id, category: profile.category,
            transport: request.transport, productID: request.productID)
        return (.paired(device), profile)
    }

    /// The deadline passed without a decryptable report.
    var outcomeAtDeadline: PairingOutcome {
        keyMismatches > 0 ? .wrongKey : .noAnswer
    }
}
