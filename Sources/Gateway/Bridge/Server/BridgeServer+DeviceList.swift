extension BridgeServer {
    /// Publishes `bridge/devices` (and discovery) once for every pairing or removal made
    /// within `devicesCoalescing`: an import of 1,000 devices sends far fewer lists than
    /// 1,001. Returns once the list that includes this change was handed to the outbox, so an
    /// answer sent after it never precedes the list a client resolves names from.
    func publishDevicesCoalesced() async {
        if let pending = pendingDevicesPublish {
            await pending.value
            return
        }
        let clock = clock
        let delay = settings.devicesCoalescing
        let publish = Task { [weak self] in
            try? await clock.sleep(for: delay)
            await self?.publishPendingDevices()
        }
        pendingDevicesPublish = publish
        await publish.value
    }

    private func publishPendingDevices() async {
        pendingDevicesPublish = nil
        await publishDevices()
    }
}
