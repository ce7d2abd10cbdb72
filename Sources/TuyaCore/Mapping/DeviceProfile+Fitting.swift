extension DeviceProfile {
    /// The command as close as this device can show it: a colour temperature outside the
    /// profile's range becomes the nearest end of it, and a field the device has no data
    /// point for (a colour temperature on a white-only bulb, the LED of a diffuser without
    /// one) is left out. Timer sessions send presets through this; a person's own `set`
    /// does not, so an out-of-range value they typed is refused with the range instead.
    ///
    /// Returns the fitted command and, per field changed, what was done (for the log).
    public func fitting(_ command: DeviceCommand) -> (command: DeviceCommand, adjustments: [String]) {
        var adjustments: [String] = []
        switch command {
        case .light(var light):
            if let kelvin = light.colorTemperature {
                if dataPoint(for: .colorTemperature) == nil {
                    light.colorTemperature = nil
                    adjustments.append("color_temp \(kelvin) K left out: this light has no colour temperature")
                } else {
                    let bounds = capabilities[.colorTemperature]?.kelvin ?? DataPointMapper.defaultKelvin
                    let fitted = min(max(kelvin, bounds.lowerBound), bounds.upperBound)
                    if fitted != kelvin {
                        light.colorTemperature = fitted
                        adjustments.append(
                            "color_temp \(kelvin) K shown as \(fitted) K, the nearest this light can show")
                    }
                }
            }
            if let brightness = light.brightness, !(0...100).contains(brightness) {
                light.brightness = min(max(brightness, 0), 100)
                adjustments.append("brightness \(brightness) % shown as \(light.brightness ?? 0) %")
            }
            if light.colour != nil, dataPoint(for: .colour) == nil {
                light.colour = nil
                adjustments.append("colour left out: this light shows no colours")
            }
            if let scene = light.scene, dataPoint(for: .scene) == nil && dataPoint(for: .workMode) == nil {
                light.scene = nil
                adjustments.append("scene \(scene) left out: this light has no scenes")
            }
            return (.light(light), adjustments)
        case .diffuser(var diffuser):
            let hasLight = dataPoint(for: .ledPower) != nil || dataPoint(for: .ledBrightness) != nil
            if !hasLight, diffuser.ledPower != nil || diffuser.ledBrightness != nil || diffuser.ledColour != nil {
                diffuser.ledPower = nil
                diffuser.ledBrightness = nil
                diffuser.ledColour = nil
                adjustments.append("its light left out: this diffuser has none")
            }
            if diffuser.ledColour != nil, dataPoint(for: .ledColour) == nil {
                diffuser.ledColour = nil
                adjustments.append("led_color left out: this diffuser's light shows no colours")
            }
            if let brightness = diffuser.ledBrightness, !(0...100).contains(brightness) {
                diffuser.ledBrightness = min(max(brightness, 0), 100)
                adjustments.append("led_brightness \(brightness) % shown as \(diffuser.ledBrightness ?? 0) %")
            }
            return (.diffuser(diffuser), adjustments)
        }
    }
}
