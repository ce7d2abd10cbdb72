import TuyaCore

/// Profiles more than one test target needs that are not shipped in `devices/`.
public enum SharedProfiles {
    /// A diffuser whose "clean" rule resets a device counter (DP 102, write-only) and is due
    /// soon at half of 10 mist hours or 20 days, and whose refill also fires on 30 days.
    public static func resettingDiffuser() throws -> DeviceProfile {
        try ProfileLoader.parse(
            yaml: """
                id: resetting-diffuser
                name: Diffuser with a filter counter
                category: xxj
                transports: [mqtt]
                data_points:
                  - { id: 1, code: switch, type: bool }
                  - { id: 2, code: switch_spray, type: bool }
                  - { id: 11, code: fault, type: bitmap, access: ro }
                  - { id: 102, code: filter_reset, type: bool, access: wo }
                capabilities:
                  power: switch
                  mist: switch_spray
                  fault: fault
                faults:
                  - { bit: 0, label: water_shortage }
                maintenance:
                  - type: refill
                    title: Refill the water tank
                    body: The tank is empty.
                    steps: [Fill it.]
                    triggers: [{ fault: water_shortage }, { days: 30 }]
                  - type: clean
                    title: Clean the filter
                    body: The filter is clogged.
                    steps: [Rinse the filter., Press reset.]
                    triggers: [{ usage_hours: 10, of: mist }, { days: 20 }]
                    due_soon_at: 0.5
                    reset_dp: filter_reset
                    reset_value: true

                """, source: "test/resetting-diffuser.yaml")
    }
}
