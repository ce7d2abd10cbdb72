/// The glue between a pure `SimulatedDevice` and its swarm client: subscribes to
/// `smart/device/in/<devId>`, publishes reports on `smart/device/out/<devId>`, and turns
/// the swarm's clock into the device's elapsed time. Confined to the swarm thread
/// like every `SwarmPeer`.
final class SimulatedDeviceLink: SwarmPeer {
    var device: SimulatedDevice {
        didSet { deadline = Self.deadline(of: device, origin: origin) }
    }
    /// Cached after every change of `device`: the swarm asks every peer for its deadline on
    /// every loop turn, and computing it from `device` copied the whole struct each time
    /// (40 % of the simulator's CPU with 1,000 devices).
    private(set) var deadline: ContinuousClock.Instant?
    /// The instant the device's time counts from.
    let origin: ContinuousClock.Instant
    let clientID: String
    let subscriptions: [String]
    private let outTopic: String

    init(device: SimulatedDevice, origin: ContinuousClock.Instant) {
        self.device = device
        self.origin = origin
        deadline = Self.deadline(of: device, origin: origin)
        clientID = device.devId
        subscriptions = ["smart/device/in/\(device.devId)"]
        outTopic = "smart/device/out/\(device.devId)"
    }

    func didConnect(_ context: SwarmContext) {
        perform(device.connected(at: elapsed(context.now)), context)
    }

    func didReceive(topic: String, payload: [UInt8], _ context: SwarmContext) {
        perform(device.receive(payload, at: elapsed(context.now)), context)
    }

    private static func deadline(of device: SimulatedDevice, origin: ContinuousClock.Instant) -> ContinuousClock
        .Instant?
    {
        device.nextDeadline.map { origin + $0 }
    }

    func deadlinePassed(_ context: SwarmContext) {
        perform(device.advance(to: elapsed(context.now)), context)
    }

    func elapsed(_ now: ContinuousClock.Instant) -> Duration {
        now - origin
    }

    func perform(_ actions: [SimulatedDevice.Action], _ context: SwarmContext) {
        for action in actions {
            switch action {
            case .publish(let report): context.publish(topic: outTopic, payload: report.payload)
            case .disconnect: context.setOnline(false)
            case .connect: context.setOnline(true)
            }
        }
    }
}
