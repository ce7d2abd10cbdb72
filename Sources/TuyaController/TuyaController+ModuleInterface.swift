import TuyaCore

/// The Tuya side of the product's module seam: the controller hands out itself.
extension TuyaController: TuyaModuleInterface {
    public nonisolated var tuyaController: any TuyaControllerProtocol { self }
}
