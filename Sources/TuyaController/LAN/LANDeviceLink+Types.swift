import TuyaCore

/// The types `LANDeviceLink` is configured, probed and told about addresses with.
extension LANDeviceLink {
    struct Configuration: DeviceLinkTiming, Hashable, Sendable {
        var confirmationTimeout: Duration = .seconds(5)
        var connectTimeout: Duration = .seconds(5)
        /// How long `stop` waits for the device to let the connection go (see `stop`).
        var releaseTimeout: Duration = .seconds(1)
        /// Every real device listens on 6668; tests keep it too (each simulated device has
        /// its own loopback address).
        var port = 6668
        var policy = LANLinkPolicy.Configuration()
        /// How long an unconfirmed desired value is re-applied (`devices.reapply_within`).
        var reapplyWithin: Duration? = .seconds(120)
    }

    /// How a pairing probe ended: the first answer on an established session, the failure
    /// that ended a connection first, or the link was stopped (the pairing deadline).
    enum ProbeResult: ProbeEnding {
        /// The ids of the DPs the device reported (its profile may not be known yet).
        case answered(Set<DataPointID>)
        case failed(LANLinkPolicy.Failure)
        case stopped
    }

    /// What hearing a paired device at an address did (`addressChanged`).
    enum AddressChange: Equatable {
        /// The link uses the new address from now on (and reconnects there at once).
        case moved
        /// The link already uses that address.
        case unchanged
        /// The session is up at the link's address: held, to be offered again with the next
        /// broadcast once it is not.
        case heldWhileConnected
    }
}
