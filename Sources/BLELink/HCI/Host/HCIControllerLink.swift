/// The gateway's way to its controller when it runs its own HCI host (`ble.transport` other
/// than `bluez`): opens the byte stream and the host when first needed, and again after the
/// controller went away, so a restarted emulator or a replugged UART is picked up by the next
/// connection attempt (each device link retries with its own backoff).
public actor HCIControllerLink {
    public nonisolated let setting: BLETransportSetting
    private let configuration: HCIHostCore.Configuration
    private let clock: any Clock<Duration>
    private var current: HCIHost?
    private var opening: Task<Result<HCIHost, HCIHostError>, Never>?

    public init(
        setting: BLETransportSetting, configuration: HCIHostCore.Configuration = .init(),
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.setting = setting
        self.configuration = configuration
        self.clock = clock
    }

    /// The host, opened now if there is none or the last one failed. Callers at the same time
    /// share one attempt.
    public func host() async throws(HCIHostError) -> HCIHost {
        if let opening { return try await opening.value.get() }
        if let current, await current.failure == nil { return current }
        // Another caller may have started an attempt while this one looked at the host.
        if let opening { return try await opening.value.get() }
        let attempt = Task { [setting, configuration, clock] () -> Result<HCIHost, HCIHostError> in
            do throws(HCIHostError) {
                let stream = try await HCITransportOpener.open(setting)
                return .success(try await HCIHost.open(stream, configuration: configuration, clock: clock))
            } catch {
                return .failure(error)
            }
        }
        opening = attempt
        let result = await attempt.value
        opening = nil
        if case .success(let host) = result { current = host }
        return try result.get()
    }

    /// Connects to a device through the host (opening it first when needed).
    public func connect(
        to address: String, addressType: BluetoothAddressType, timeout: Duration = .seconds(10)
    ) async throws(HCIHostError) -> HCIATTChannel {
        try await host().connect(to: address, addressType: addressType, timeout: timeout)
    }

    /// A scanner on the host as it is when the scan starts.
    public nonisolated func scanner() -> LinkScanner { LinkScanner(link: self) }

    /// Closes the host; a later call opens a new one.
    public func close() async {
        await current?.close()
        current = nil
    }

    /// A scan through an `HCIControllerLink`: opens the host (if needed) when it starts.
    public actor LinkScanner: BLEDeviceScanning {
        private let link: HCIControllerLink
        private var scanner: HCIScanner?

        init(link: HCIControllerLink) {
            self.link = link
        }

        public func discoveries() async throws -> AsyncStream<DiscoveredDevice> {
            await scanner?.stop()
            let scanner = HCIScanner(host: try await link.host())
            self.scanner = scanner
            return try await scanner.start()
        }

        public func stop() async {
            await scanner?.stop()
            scanner = nil
        }
    }
}
