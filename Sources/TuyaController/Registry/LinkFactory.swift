import Foundation
import Timing
import TuyaCore
import TuyaWire

/// Builds the link for a paired device, whichever transport it uses, from what every link
/// of one controller shares: the bus, the radio, the timeouts, the clock, the event hub and
/// the writer that persists desired values.
struct LinkFactory: Sendable {
    let bus: any DeviceBus
    let radio: BLERadio
    let lan: LANNetwork
    let configuration: TuyaController.Configuration
    let clock: OffsetClock
    let unixTime: @Sendable () -> Int64
    let sequenceSeed: @Sendable () -> UInt32
    let hub: EventHub
    let store: any DeviceStore
    let persistence: AsyncStream<(DeviceID, PersistedChange)>.Continuation

    /// Persists a device's desired values in the order they changed: queued with the store
    /// on the link's own thread when the store can take them so, else through the
    /// controller's single writer. Queueing directly saves waking a task of the pool for
    /// every command, while the link's device is answering it.
    func desiredRecorder(for id: DeviceID) -> @Sendable (DataPoints) -> Void {
        let store = store
        let persistence = persistence
        return { desired in
            if !store.queueDesired(desired, for: id) { persistence.yield((id, .desired(desired))) }
        }
    }

    func mqtt(_ stored: StoredDevice, profile: DeviceProfile) -> MQTTDeviceLink {
        MQTTDeviceLink(
            device: stored.device, key: stored.localKey, profile: profile, bus: bus,
            configuration: .init(
                confirmationTimeout: configuration.confirmationTimeout,
                availability: .init(
                    queryInterval: configuration.queryInterval, answerTimeout: configuration.answerTimeout,
                    offlineAfter: configuration.offlineAfter,
                    keyMismatchesForAuthFailure: configuration.keyMismatchesForAuthFailure),
                reapplyWithin: configuration.reapplyWithin),
            clock: clock, unixTime: unixTime, sequenceSeed: sequenceSeed(), desired: stored.desired,
            confirmed: stored.confirmed, hub: hub, onDesiredChange: desiredRecorder(for: stored.device.id))
    }

    /// A LAN link for a stored device; nil when it has no LAN endpoint or speaks a version
    /// this gateway does not. A link made for a pairing (`registered` false) announces to a
    /// private hub and persists nothing until the controller adopts it.
    ///
    /// `versionUnproven`: the endpoint's version came from a broadcast and is saved only once the
    /// device proves the key speaking it.
    func lan(
        _ stored: StoredDevice, profile: DeviceProfile, registered: Bool,
        onReprobe: @escaping @Sendable (DeviceID) -> Void = { _ in }, versionUnproven: Bool = false
    ) -> LANDeviceLink? {
        guard let endpoint = stored.lan, let version = LANProtocolVersion(endpoint.version) else { return nil }
        var linkConfiguration = lan.link
        linkConfiguration.confirmationTimeout = configuration.confirmationTimeout
        linkConfiguration.reapplyWithin = configuration.reapplyWithin
        let hub = registered ? hub : EventHub()
        var onDesiredChange: @Sendable (DataPoints) -> Void = { _ in }
        var onAddressProven: @Sendable (LANEndpoint) -> Void = { _ in }
        if registered {
            onDesiredChange = desiredRecorder(for: stored.device.id)
            let (persistence, id) = (persistence, stored.device.id)
            onAddressProven = { endpoint in persistence.yield((id, .endpoint(endpoint))) }
        }
        return LANDeviceLink(
            device: stored.device, key: stored.localKey, endpoint: endpoint, version: version, profile: profile,
            connector: lan.connector, configuration: linkConfiguration, clock: clock, unixTime: unixTime,
            desired: stored.desired, confirmed: stored.confirmed, hub: hub, onDesiredChange: onDesiredChange,
            onReprobe: onReprobe, onAddressProven: onAddressProven, versionUnproven: versionUnproven,
            logger: lan.logger)
    }

    /// A BLE link for a stored device; nil when it has no BLE identity. A link made for a
    /// pairing (`registered` false) announces to a private hub and persists nothing until
    /// the controller adopts it.
    func ble(_ stored: StoredDevice, profile: DeviceProfile, registered: Bool) -> BLEDeviceLink? {
        guard let identity = stored.ble else { return nil }
        let id = stored.device.id
        var linkConfiguration = BLEDeviceLink.Configuration()
        linkConfiguration.confirmationTimeout = configuration.bleConfirmationTimeout
        linkConfiguration.reapplyWithin = configuration.reapplyWithin
        let unixTime = unixTime
        let credentials = BLESession.Credentials(
            uuid: identity.uuid, localKey: String(decoding: stored.localKey.bytes, as: UTF8.self), devId: id.rawValue)
        let hub = registered ? hub : EventHub()
        var onDesiredChange: @Sendable (DataPoints) -> Void = { _ in }
        if registered { onDesiredChange = desiredRecorder(for: id) }
        return BLEDeviceLink(
            device: stored.device, credentials: credentials, profile: profile, identity: identity,
            transport: radio.makeTransport(identity), slots: radio.slots, configuration: linkConfiguration,
            clock: clock, unixMilliseconds: { unixTime() * 1000 }, desired: stored.desired,
            confirmed: stored.confirmed, hub: hub, failures: radio.failures, onDesiredChange: onDesiredChange)
    }
}

/// What a link hands the controller's single writer to persist.
enum PersistedChange: Sendable {
    case desired(DataPoints)
    /// A LAN address (and version) the device proved the key at.
    case endpoint(LANEndpoint)
}
