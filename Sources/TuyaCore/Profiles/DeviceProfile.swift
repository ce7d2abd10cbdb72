/// What the gateway knows about one product: its data points, which capability each
/// drives, its fault bits and its maintenance rules. Loaded from `devices/*.yaml`
/// by `ProfileLoader`; DP ids always come from a profile, never from code
/// (protocol/TUYA.md §4: vendors deviate from the templates).
public struct DeviceProfile: Hashable, Sendable {
    /// Stable profile id, e.g. `rgbcct-bulb-v2`. Letters, digits and `-`.
    public var id: String
    /// Human name, e.g. "RGB+CCT bulb (v2 layout)".
    public var name: String
    public var manufacturer: String?
    public var model: String?
    public var category: DeviceCategory
    /// Tuya product keys (`productKey` / product id) this profile matches.
    public var productIDs: [String]
    public var transports: Set<Transport>
    /// The frame gap of a profile without `frame_gap_ms` when the configuration names none.
    public static let defaultFrameGapMilliseconds = 300

    /// Minimum gap between two frames to one device (default 300 ms).
    public var frameGapMilliseconds: Int
    /// How a BLE link to this product is held (`ble.connection`, default keep open).
    public var bleConnection: BLEConnectionPolicy
    /// Sorted by id; ids and codes are unique.
    public var dataPoints: [DataPointSpec]
    public var capabilities: [Capability: CapabilityBinding]
    /// Labels of the bits of the fault bitmap (the DP bound to `.fault`).
    public var faults: [FaultLabel]
    /// Named scenes: the value written to the DP bound to `.scene`.
    public var scenes: [NamedScene]
    public var maintenance: [MaintenanceRuleSpec]

    public init(
        id: String, name: String, manufacturer: String? = nil, model: String? = nil,
        category: DeviceCategory, productIDs: [String], transports: Set<Transport>,
        frameGapMilliseconds: Int = DeviceProfile.defaultFrameGapMilliseconds,
        bleConnection: BLEConnectionPolicy = .keep, dataPoints: [DataPointSpec],
        capabilities: [Capability: CapabilityBinding], faults: [FaultLabel] = [],
        scenes: [NamedScene] = [], maintenance: [MaintenanceRuleSpec] = []
    ) {
        self.id = id
        self.name = name
        self.manufacturer = manufacturer
        self.model = model
        self.category = category
        self.productIDs = productIDs
        self.transports = transports
        self.frameGapMilliseconds = frameGapMilliseconds
        self.bleConnection = bleConnection
        self.dataPoints = dataPoints.sorted { $0.id < $1.id }
        self.capabilities = capabilities
        self.faults = faults
        self.scenes = scenes
        self.maintenance = maintenance
    }

    public func dataPoint(_ id: DataPointID) -> DataPointSpec? {
        dataPoints.first { $0.id == id }
    }

    public func dataPoint(code: String) -> DataPointSpec? {
        dataPoints.first { $0.code == code }
    }

    /// The data point a capability is bound to, if the product has it.
    public func dataPoint(for capability: Capability) -> DataPointSpec? {
        capabilities[capability].flatMap { dataPoint($0.dataPoint) }
    }
}

/// One data point of a product.
public struct DataPointSpec: Hashable, Sendable {
    public var id: DataPointID
    /// Tuya's DP code, e.g. `switch_led`, `bright_value_v2`.
    public var code: String
    public var type: DataPointType
    /// Integer range for `value` DPs (raw units, before `scale`).
    public var range: ClosedRange<Int32>?
    /// Tuya "scale": the raw integer is value × 10^scale (0 = integers).
    public var scale: Int
    public var step: Int32
    /// Enum labels in the product's order; on BLE an enum travels as the index here.
    public var values: [String]
    /// What people see for each of `values`, in the same order (`off`, `1 h`); empty when
    /// the values are their own labels. Commands and state keep using `values`.
    public var labels: [String] = []
    /// Hex layout of a colour string DP.
    public var colourFormat: ColourFormat?
    public var defaultValue: DPValue?
    public var unit: String?
    public var access: Access

    public enum Access: String, Sendable, CaseIterable {
        case readWrite = "rw"
        case readOnly = "ro"
        case writeOnly = "wo"
    }

    public init(
        id: DataPointID, code: String, type: DataPointType, range: ClosedRange<Int32>? = nil,
        scale: Int = 0, step: Int32 = 1, values: [String] = [], colourFormat: ColourFormat? = nil,
        defaultValue: DPValue? = nil, unit: String? = nil, access: Access = .readWrite
    ) {
        self.id = id
        self.code = code
        self.type = type
        self.range = range
        self.scale = scale
        self.step = step
        self.values = values
        self.colourFormat = colourFormat
        self.defaultValue = defaultValue
        self.unit = unit
        self.access = access
    }

    /// The BLE index of an enum label (protocol/TUYA.md §1.8: enums are indices on BLE).
    public func enumIndex(of label: String) -> Int? { values.firstIndex(of: label) }

    public func enumLabel(at index: Int) -> String? {
        values.indices.contains(index) ? values[index] : nil
    }

    /// The enum value `text` names: a value as written, or one of the `labels` that
    /// `devices --json` and Home Assistant show (`off` for `cancel`, `1 h` or `1h` for `1`),
    /// matched without regard to case or spaces. Nil when it names none.
    public func enumValue(named text: String) -> String? {
        if values.contains(text) { return text }
        func folded(_ string: String) -> String { string.lowercased().filter { !$0.isWhitespace } }
        let wanted = folded(text)
        for (value, label) in displayedValues where folded(label) == wanted || folded(value) == wanted {
            return value
        }
        return nil
    }

    /// Each enum value with what people see for it (the value itself without `labels`).
    public var displayedValues: [(value: String, label: String)] {
        labels.count == values.count ? Array(zip(values, labels)) : values.map { ($0, $0) }
    }
}

/// Hex layouts of Tuya colour strings (protocol/TUYA.md §4.1).
public enum ColourFormat: String, Sendable, CaseIterable {
    /// 12 hex digits `hhhh ssss vvvv`: h 0–360, s and v 0–1000 (`colour_data_v2`).
    case hsv16
    /// 14 hex digits `rrggbb hhhh ss vv`: r, g, b, s, v 0–255, h 0–360 (`colour_data`).
    case rgbhsv
}

/// What a data point does for the user. Profiles bind capabilities to DPs; typed
/// commands and state are expressed in capabilities, never in DP ids.
public enum Capability: String, CaseIterable, Sendable, Comparable {
    // Lights (and the master switch of a diffuser).
    case power
    case workMode = "work_mode"
    case brightness
    case colorTemperature = "color_temp"
    case colour
    case scene
    case countdown
    // Diffusers.
    case mist
    case mistMode = "mist_mode"
    case ledPower = "led_power"
    case ledBrightness = "led_brightness"
    case ledColour = "led_colour"
    case ledMode = "led_mode"
    case timer
    case minutesLeft = "minutes_left"
    case fault
    case sound

    public static func < (lhs: Capability, rhs: Capability) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A capability bound to one data point.
public struct CapabilityBinding: Hashable, Sendable {
    public var dataPoint: DataPointID
    /// For `color_temp`: the kelvin at the DP's minimum (warmest) and maximum
    /// (coldest) raw value, e.g. 2700...6500 (TL maps 0–1000 onto 2700–6500 K).
    public var kelvin: ClosedRange<Int>?

    public init(dataPoint: DataPointID, kelvin: ClosedRange<Int>? = nil) {
        self.dataPoint = dataPoint
        self.kelvin = kelvin
    }
}

/// One bit of a fault bitmap, e.g. bit 0 = `water_shortage`.
public struct FaultLabel: Hashable, Sendable {
    public var bit: Int
    public var label: String

    public init(bit: Int, label: String) {
        self.bit = bit
        self.label = label
    }
}

/// A scene a user can pick by name; `value` is written to the scene DP.
public struct NamedScene: Hashable, Sendable {
    public var name: String
    public var value: DPValue

    public init(name: String, value: DPValue) {
        self.name = name
        self.value = value
    }
}

/// A maintenance rule declared by a profile (used by the Maintenance module): what to do,
/// how to do it, when it falls due, and how to tell the device it was done.
public struct MaintenanceRuleSpec: Hashable, Sendable {
    /// The share of a usage or calendar interval at which a reminder becomes "due soon"
    /// when the profile does not say (`due_soon_at`).
    public static let defaultDueSoonShare = 0.8

    /// `refill`, `clean`, `replace-wick`, …: lower-case letters, digits and `-`.
    public var type: String
    public var title: String
    /// What the task is and why it matters, in a sentence or two.
    public var body: String
    /// Step-by-step instructions, in order; may be empty.
    public var steps: [String]
    /// The rule is due when any trigger fires.
    public var triggers: [MaintenanceTrigger]
    /// 0 < share < 1: a usage or calendar trigger is "due soon" once this share of its
    /// interval has passed. Fault triggers are due at once and ignore it.
    public var dueSoonShare: Double
    /// The write that resets the device's own counter for this task, if it keeps one.
    public var reset: MaintenanceReset?

    public init(
        type: String, title: String, body: String = "", steps: [String] = [], triggers: [MaintenanceTrigger],
        dueSoonShare: Double = MaintenanceRuleSpec.defaultDueSoonShare, reset: MaintenanceReset? = nil
    ) {
        self.type = type
        self.title = title
        self.body = body
        self.steps = steps
        self.triggers = triggers
        self.dueSoonShare = dueSoonShare
        self.reset = reset
    }
}

/// A data point write that tells a device a maintenance task was done (e.g. a
/// `filter_reset` bool, protocol/TUYA.md §5), from a rule's `reset_dp` and `reset_value`.
public struct MaintenanceReset: Hashable, Sendable {
    /// A writable DP of the same profile.
    public var dataPoint: DataPointID
    /// Checked against the DP's type, range and enum values when the profile loads.
    public var value: DPValue

    public init(dataPoint: DataPointID, value: DPValue) {
        self.dataPoint = dataPoint
        self.value = value
    }
}

public enum MaintenanceTrigger: Hashable, Sendable {
    /// A fault bit with this label is raised.
    case fault(label: String)
    /// The capability (`mist` or `power`) has been on this many hours since last done.
    case usageHours(Int, of: Capability)
    /// This many days have passed since last done.
    case days(Int)
}
