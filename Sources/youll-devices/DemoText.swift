import TuyaCore

/// How the demo prints durations, bridge events and device states.
enum DemoText {
    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    static func describeEvent(_ json: JSONValue?) -> String {
        let type = json?.objectValue?["type"]?.stringValue ?? "?"
        let data = json?.objectValue?["data"]?.objectValue ?? [:]
        if let session = DemoSessionStep.describe(type: type, data: data) { return session }
        switch type {
        case "device_paired":
            let device = data["device"]?.objectValue
            return
                "device_paired \(device?["friendly_name"]?.stringValue ?? "?") (\(device?["profile"]?.stringValue ?? "?"))"
        case "pairing_failed":
            return "pairing_failed \(data["id"]?.stringValue ?? "?"): \(data["reason"]?.stringValue ?? "?")"
        case "maintenance_alert":
            let alert = data["alert"]?.objectValue
            return
                "maintenance_alert \(alert?["friendly_name"]?.stringValue ?? "?"): \(alert?["type"]?.stringValue ?? "?") "
                + "(\(alert?["state"]?.stringValue ?? "?"))"
        case "command_failed":
            return "command_failed \(data["friendly_name"]?.stringValue ?? "?"): \(data["error"]?.stringValue ?? "?")"
        default:
            let subject = data["friendly_name"]?.stringValue ?? data["id"]?.stringValue
            return subject.map { "\(type) \($0)" } ?? type
        }
    }

    static func describeState(_ json: JSONValue?) -> String {
        guard let fields = json?.objectValue else { return "no report yet" }
        var parts = [fields["state"]?.stringValue == "ON" ? "on" : "off"]
        if let mode = fields["color_mode"]?.stringValue { parts.append("mode \(mode)") }
        if fields["color_mode"]?.stringValue == "hs", let colour = fields["color"]?.objectValue {
            parts.append(
                "hue \(colour["hue"]?.int64Value ?? 0)°, saturation \(colour["saturation"]?.int64Value ?? 0) %")
        } else {
            if let brightness = fields["brightness"]?.int64Value { parts.append("brightness \(brightness) %") }
            if let kelvin = fields["color_temp"]?.int64Value { parts.append("\(kelvin) K") }
        }
        if let mist = fields["mist"]?.stringValue { parts.append("mist \(mist.lowercased())") }
        if let mode = fields["mist_mode"]?.stringValue { parts.append("mode \(mode)") }
        if let led = fields["led"]?.stringValue { parts.append("LED \(led.lowercased())") }
        if let brightness = fields["led_brightness"]?.int64Value { parts.append("LED \(brightness) %") }
        if case .array(let faults)? = fields["faults"], !faults.isEmpty {
            parts.append("faults: \(faults.compactMap(\.stringValue).joined(separator: ", "))")
        }
        return parts.joined(separator: ", ")
    }
}
