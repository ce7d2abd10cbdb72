/// A colour as people pick it: hue in degrees, saturation and value in percent.
///
/// Profiles store it as hex (`hsv16` or `rgbhsv`, protocol/TUYA.md §4.1); the
/// conversion lives in `ColourCodec`.
public struct HSVColour: Hashable, Sendable, CustomStringConvertible {
    /// 0...360
    public var hue: Int
    /// 0...100
    public var saturation: Int
    /// 0...100
    public var value: Int

    /// Fails when a component is out of range.
    public init?(hue: Int, saturation: Int, value: Int) {
        guard (0...360).contains(hue), (0...100).contains(saturation), (0...100).contains(value) else { return nil }
        self.hue = hue
        self.saturation = saturation
        self.value = value
    }

    public var description: String { "hsv(\(hue), \(saturation)%, \(value)%)" }
}
