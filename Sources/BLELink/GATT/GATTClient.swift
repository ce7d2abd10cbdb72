import Synchronization

/// The small GATT client a Tuya BLE session needs: find the Tuya service, enable its
/// notifications, write packets without response, and hear the device's packets.
///
/// Usage: `GATTClient.connect(over: channel)`, then `discoverTuyaService()`,
/// `enableNotifications()`, `write(_:)` and `notifications`; `close()` at the end.
public actor GATTClient {
    /// The values the device notifies on the Tuya notify characteristic, in arrival order.
    /// Finishes when the link closes. One consumer.
    public nonisolated let notifications: AsyncStream<[UInt8]>

    /// The Tuya service once discovered.
    public private(set) var tuyaService: TuyaGATTService?
    /// Where a task reading `notifications` best runs: the thread the channel's PDUs are read
    /// on, when the channel has one (`ByteChannel.taskExecutor`).
    public nonisolated let taskExecutor: (any TaskExecutor)?

    private let bearer: ATTBearer
    private let notifyFilter: NotifyFilter
    private let notificationSink: AsyncStream<[UInt8]>.Continuation

    /// A client over an existing bearer. Notifications on other handles are dropped.
    public init(bearer: ATTBearer) {
        self.bearer = bearer
        taskExecutor = nil
        notifyFilter = NotifyFilter()
        let (stream, sink) = AsyncStream<[UInt8]>.makeStream()
        notifications = stream
        notificationSink = sink
        Task { [filter = notifyFilter, incoming = bearer.notifications] in
            for await notification in incoming where filter.accepts(notification.handle) {
                sink.yield(notification.value)
            }
            sink.finish()
        }
    }

    /// A client whose bearer hands it notifications directly: a notified value reaches
    /// `notifications` on the thread that read it, with no task in between.
    private init(
        channel: any ByteChannel, clock: any Clock<Duration>, transactionTimeout: Duration, preferredMTU: UInt16
    ) {
        let (stream, sink) = AsyncStream<[UInt8]>.makeStream()
        let filter = NotifyFilter()
        taskExecutor = channel.taskExecutor
        notifications = stream
        notificationSink = sink
        notifyFilter = filter
        bearer = ATTBearer(
            channel: channel, clock: clock, transactionTimeout: transactionTimeout, preferredMTU: preferredMTU,
            notificationSink: .init(
                notify: { notification in
                    if filter.accepts(notification.handle) { sink.yield(notification.value) }
                },
                finish: { sink.finish() }))
    }

    /// A client over `channel` (an `L2CAPChannel` or one end of `SocketChannel.pair()`), with
    /// ATT's 30 s transaction timeout measured on `clock`. `preferredMTU` is what
    /// `exchangeMTU()` offers (and what the device is told when it asks first).
    public static func connect(
        over channel: any ByteChannel, clock: any Clock<Duration> = ContinuousClock(),
        transactionTimeout: Duration = ATTBearer.defaultTransactionTimeout, preferredMTU: UInt16 = ATTBearer.defaultMTU
    ) -> GATTClient {
        GATTClient(channel: channel, clock: clock, transactionTimeout: transactionTimeout, preferredMTU: preferredMTU)
    }

    /// PDUs the bearer dropped as garbage.
    public var ignoredPDUCount: Int {
        get async { await bearer.ignoredPDUCount }
    }

    /// Offers the client's preferred ATT MTU; returns the one in force: the smaller of the two
    /// offers, or 23 when the device refuses the exchange. Without it every value is at most 20
    /// bytes.
    public func exchangeMTU() async throws(GATTError) -> UInt16 {
        do { return try await bearer.exchangeMTU() } catch { throw .link(error) }
    }

    /// The longest value a write or a notification carries now: ATT_MTU − 3 (20 until an MTU
    /// exchange agrees on more).
    public nonisolated var maximumValueLength: Int { Int(bearer.negotiatedMTU) - 3 }

    /// Finds the Tuya service and its write, notify and CCCD handles: primary service discovery,
    /// characteristic discovery within each Tuya service, then descriptor discovery after the
    /// notify characteristic's value. The characteristic pair decides the layout (like Home
    /// Assistant's tuya_ble), so a device that puts either pair under either service works.
    public func discoverTuyaService() async throws(GATTError) -> TuyaGATTService {
        let services = try await discoverPrimaryServices()
        let tuyaServices = TuyaGATTLayout.allCases.compactMap { layout in
            services.first { $0.uuid == layout.serviceUUID }.map { (layout, $0) }
        }
        guard !tuyaServices.isEmpty else { throw .tuyaServiceNotFound(found: services.map(\.uuid)) }
        var firstFailure: GATTError?
        for (layout, service) in tuyaServices {
            do {
                let found = try await tuyaCharacteristics(in: service, expected: layout)
                tuyaService = found
                notifyFilter.set(found.notify.valueHandle, write: found.write)
                return found
            } catch .link(let error) {
                throw .link(error)
            } catch {
                firstFailure = firstFailure ?? error
            }
        }
        throw firstFailure ?? .tuyaServiceNotFound(found: services.map(\.uuid))
    }

    /// Writes 0x0001 to the notify characteristic's CCCD with a Write Request. A Tuya device
    /// sends nothing before this.
    public func enableNotifications() async throws(GATTError) {
        guard let tuyaService else { throw .notDiscovered }
        do {
            _ = try await bearer.request(ATTWriteRequest(handle: tuyaService.configurationHandle, value: [0x01, 0x00]))
        } catch {
            throw .link(error)
        }
    }

    /// Sends one packet with Write Command (no response), as Tuya devices expect (TUYA.md §1.1).
    /// At most ATT_MTU − 3 bytes (20 at the default MTU).
    public func writeWithoutResponse(_ bytes: [UInt8]) async throws(GATTError) {
        let characteristic = try await writableCharacteristic(for: bytes)
        guard characteristic.properties.contains(.writeWithoutResponse) else {
            throw .characteristicLacksProperty(characteristic.uuid, property: "write without response")
        }
        do {
            try await bearer.send(command: ATTWriteCommand(handle: characteristic.valueHandle, value: bytes))
        } catch {
            throw .link(error)
        }
    }

    /// Like `writeWithoutResponse(_:)`, but queues the packet behind every earlier one and returns
    /// without waiting for it to leave: a Tuya session's packets go out from its caller's thread.
    /// A packet that cannot leave closes the link (`notifications` finishes).
    public nonisolated func enqueueWithoutResponse(_ bytes: [UInt8]) throws(GATTError) {
        guard let characteristic = notifyFilter.writeCharacteristic else { throw .notDiscovered }
        let maximum = maximumValueLength
        guard bytes.count <= maximum else { throw .valueTooLong(length: bytes.count, maximum: maximum) }
        guard characteristic.properties.contains(.writeWithoutResponse) else {
            throw .characteristicLacksProperty(characteristic.uuid, property: "write without response")
        }
        do {
            try bearer.enqueue(command: ATTWriteCommand(handle: characteristic.valueHandle, value: bytes))
        } catch {
            throw .link(error)
        }
    }

    /// Sends one packet: without response when the characteristic allows it, else with a Write
    /// Request (and waits for the Write Response).
    public func write(_ bytes: [UInt8]) async throws(GATTError) {
        let characteristic = try await writableCharacteristic(for: bytes)
        if characteristic.properties.contains(.writeWithoutResponse) {
            return try await writeWithoutResponse(bytes)
        }
        do {
            _ = try await bearer.request(ATTWriteRequest(handle: characteristic.valueHandle, value: bytes))
        } catch {
            throw .link(error)
        }
    }

    /// Closes the link; `notifications` finishes.
    public func close() async {
        await bearer.close()
        notificationSink.finish()
    }

    // MARK: discovery

    private func writableCharacteristic(for bytes: [UInt8]) async throws(GATTError) -> GATTCharacteristic {
        guard let tuyaService else { throw .notDiscovered }
        let maximum = Int(await bearer.mtu) - 3
        guard bytes.count <= maximum else { throw .valueTooLong(length: bytes.count, maximum: maximum) }
        return tuyaService.write
    }

    private func tuyaCharacteristics(
        in service: GATTService, expected: TuyaGATTLayout
    ) async throws(GATTError) -> TuyaGATTService {
        let characteristics = try await discoverCharacteristics(in: service)
        let layouts = [expected] + TuyaGATTLayout.allCases.filter { $0 != expected }
        for layout in layouts {
            guard let notify = characteristics.first(where: { $0.uuid == layout.notifyCharacteristic }),
                let write = characteristics.first(where: { $0.uuid == layout.writeCharacteristic })
            else { continue }
            guard notify.properties.contains(.notify) else {
                throw .characteristicLacksProperty(notify.uuid, property: "notifications")
            }
            let next = characteristics.first { $0.declarationHandle > notify.declarationHandle }
            let end = next.map { $0.declarationHandle - 1 } ?? service.endHandle
            // The CCCD follows the value: a value at the last handle (0xFFFF from a hostile
            // peripheral) leaves no room for one.
            guard notify.valueHandle < end,
                let configuration = try await findDescriptor(
                    .clientCharacteristicConfiguration, from: notify.valueHandle + 1, to: end)
            else { throw .configurationDescriptorMissing(characteristic: notify.uuid) }
            return TuyaGATTService(
                layout: layout, service: service, write: write, notify: notify, configurationHandle: configuration)
        }
        let wanted = [expected.writeCharacteristic, expected.notifyCharacteristic]
        let found = characteristics.map(\.uuid)
        throw .characteristicsMissing(
            service: service.uuid, missing: wanted.filter { !found.contains($0) }, found: found)
    }

    /// Read By Group Type (0x2800) over the whole handle range until Attribute Not Found.
    private func discoverPrimaryServices() async throws(GATTError) -> [GATTService] {
        var services: [GATTService] = []
        var start: UInt16 = 1
        while true {
            let request = ATTReadByGroupTypeRequest(startHandle: start, endHandle: 0xFFFF, groupType: .primaryService)
            guard let response = try await discoveryStep(request) else { return services }
            for entry in response.entries {
                guard entry.handle >= start, entry.endGroupHandle >= entry.handle,
                    let uuid = BluetoothUUID(littleEndian: entry.value)
                else {
                    throw .invalidDiscoveryResponse(
                        "service at \(ATTHex.handle(entry.handle))–\(ATTHex.handle(entry.endGroupHandle)) "
                            + "asked from \(ATTHex.handle(start)), \(entry.value.count)-byte UUID")
                }
                services.append(GATTService(uuid: uuid, startHandle: entry.handle, endHandle: entry.endGroupHandle))
            }
            guard let last = services.last?.endHandle, last < 0xFFFF else { return services }
            start = last + 1
        }
    }

    /// Read By Type (0x2803) within the service.
    private func discoverCharacteristics(in service: GATTService) async throws(GATTError) -> [GATTCharacteristic] {
        var characteristics: [GATTCharacteristic] = []
        var start = service.startHandle
        while start <= service.endHandle {
            let request = ATTReadByTypeRequest(startHandle: start, endHandle: service.endHandle, type: .characteristic)
            guard let response = try await discoveryStep(request) else { break }
            for entry in response.entries {
                guard (start...service.endHandle).contains(entry.handle),
                    let characteristic = GATTCharacteristic(declarationHandle: entry.handle, value: entry.value),
                    characteristic.valueHandle > entry.handle
                else {
                    throw .invalidDiscoveryResponse(
                        "characteristic declaration at \(ATTHex.handle(entry.handle)) in \(service)")
                }
                characteristics.append(characteristic)
            }
            guard let last = characteristics.last?.declarationHandle, last < 0xFFFF else { break }
            start = last + 1
        }
        return characteristics
    }

    /// Find Information over `from...to` until `type` turns up; nil when it does not.
    private func findDescriptor(_ type: BluetoothUUID, from: UInt16, to: UInt16) async throws(GATTError) -> UInt16? {
        var start = from
        while start <= to, start != 0 {
            guard let response = try await discoveryStep(ATTFindInformationRequest(startHandle: start, endHandle: to))
            else { return nil }
            for entry in response.entries {
                guard (start...to).contains(entry.handle) else {
                    throw .invalidDiscoveryResponse(
                        "descriptor at \(ATTHex.handle(entry.handle)) outside the range asked")
                }
                if entry.type == type { return entry.handle }
            }
            guard let last = response.entries.last?.handle, last < 0xFFFF else { return nil }
            start = last + 1
        }
        return nil
    }

    /// One discovery request; nil when the server says Attribute Not Found (the normal end of
    /// every discovery procedure).
    private func discoveryStep<Request: ATTRequestPDU>(
        _ request: Request
    ) async throws(GATTError) -> Request.Response? {
        do {
            return try await bearer.request(request)
        } catch .errorResponse(_, _, code: .attributeNotFound) {
            return nil
        } catch {
            throw .link(error)
        }
    }
}

/// The notify handle and the write characteristic once discovered, shared with whatever hands
/// notifications on and with `enqueueWithoutResponse`, which run off the actor.
private final class NotifyFilter: Sendable {
    private let found = Mutex<(notify: UInt16, write: GATTCharacteristic)?>(nil)

    func set(_ notify: UInt16, write: GATTCharacteristic) { found.withLock { $0 = (notify, write) } }

    func accepts(_ value: UInt16) -> Bool { found.withLock { $0?.notify == value } }

    var writeCharacteristic: GATTCharacteristic? { found.withLock { $0?.write } }
}
