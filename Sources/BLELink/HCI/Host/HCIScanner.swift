import Foundation

/// A scan through an `HCIHost`, with the same results as `BLEScanner` gives through BlueZ: each
/// advertising report goes through a `ScanTable`, and every update is a `DiscoveredDevice`
/// (advert and scan response merged), so the Tuya advert parsing above cannot tell the two
/// apart.
public actor HCIScanner {
    private let host: HCIHost
    private let now: @Sendable () -> Date
    private var table: ScanTable
    private var consumer: Task<Void, Never>?
    private var updates: AsyncStream<DiscoveredDevice>.Continuation?
    private var generation = 0

    public init(host: HCIHost, capacity: Int = 512, now: @escaping @Sendable () -> Date = { Date() }) {
        self.host = host
        self.now = now
        table = ScanTable(capacity: capacity)
    }

    /// Every device heard so far, strongest signal first.
    public var devices: [DiscoveredDevice] { table.sorted }

    /// Starts scanning; the stream yields a device each time it is heard and ends at `stop()`
    /// (or when the controller goes away). Starting again ends the previous stream.
    public func start() async throws(HCIHostError) -> AsyncStream<DiscoveredDevice> {
        await stop()
        let reports = try await host.advertisingReports()
        let (stream, continuation) = AsyncStream.makeStream(
            of: DiscoveredDevice.self, bufferingPolicy: .bufferingNewest(256))
        updates = continuation
        generation += 1
        let current = generation
        consumer = Task { [weak self] in
            for await report in reports {
                await self?.receive(report, generation: current)
            }
            continuation.finish()
        }
        return stream
    }

    /// Stops scanning (when no one else listens to the host) and ends the stream.
    public func stop() async {
        consumer?.cancel()
        consumer = nil
        updates?.finish()
        updates = nil
    }

    private func receive(_ report: AdvertisingReport, generation: Int) {
        guard generation == self.generation else { return }
        if case .seen(let device, _) = table.receive(report, at: now()) { updates?.yield(device) }
    }
}
