/// Which way a frame travels. Only frames from a device carry a 4-byte retcode: in clear
/// after the 55AA header, or as the first plaintext bytes of a 6699 frame (§2.2).
public enum LANDirection: Sendable, Hashable {
    case toDevice
    case fromDevice
}
