/// The Tuya module's seam, under the name the app this gateway grew out of gives it in
/// its Core: the module that owns the radios hands out the one `TuyaControllerProtocol`
/// the other modules drive devices through. Headless here: no pairing screens, only the
/// controller. `TuyaController` provides it; the gateway composes it with the timer.
public protocol TuyaModuleInterface: Sendable {
    /// The controller every other module drives devices through.
    var tuyaController: any TuyaControllerProtocol { get }
}
