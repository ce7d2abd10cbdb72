/// The Linux capabilities raw HCI access depends on (`capabilities(7)`): CAP_NET_RAW to send
/// HCI commands such as LE scanning, CAP_NET_ADMIN to bring an adapter up or down.
public enum LinuxCapability: Int, CaseIterable, Hashable, Sendable {
    case netAdmin = 12
    case netRaw = 13

    /// The name systemd units and `setcap` use.
    public var name: String {
        switch self {
        case .netAdmin: "CAP_NET_ADMIN"
        case .netRaw: "CAP_NET_RAW"
        }
    }

    /// What BLE needs: raw HCI for scanning, admin for bringing the adapter up.
    public static let requiredForBLE: [LinuxCapability] = [.netRaw, .netAdmin]

    /// The capabilities of `required` missing from the `CapEff:` line of a `/proc/<pid>/status`
    /// text, in `required`'s order; nil when the line is absent or unreadable (not Linux, or a
    /// kernel that hides it), so a caller never claims a capability is missing on a guess.
    public static func missing(
        _ required: [LinuxCapability] = requiredForBLE, fromProcessStatus status: String
    ) -> [LinuxCapability]? {
        guard
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("CapEff:") }),
            let mask = UInt64(line.dropFirst("CapEff:".count).trimmingCharacters(in: " \t"), radix: 16)
        else { return nil }
        return required.filter { mask & (1 << UInt64($0.rawValue)) == 0 }
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in characters: String) -> Substring {
        var text = self
        while let first = text.first, characters.contains(first) { text.removeFirst() }
        while let last = text.last, characters.contains(last) { text.removeLast() }
        return text
    }
}
