import Testing
import TuyaCore

@testable import TuyaController

@Suite("StateAnnouncer: which reports become events")
struct StateAnnouncerTests {
    let id = DeviceID("bfdiffuser01")!

    private func diffuser(_ faults: [String], mist: Bool = true) -> DeviceState {
        .diffuser(DiffuserState(power: true, mist: mist, faults: faults))
    }

    @Test("a fault is announced when it appears and when it clears, after the state change that carries it")
    func faults() {
        var announcer = StateAnnouncer(device: id, saved: nil)
        #expect(announcer.events(for: diffuser([])) == [.stateChanged(id, diffuser([]))])
        #expect(announcer.events(for: diffuser([])) == [])
        #expect(
            announcer.events(for: diffuser(["water_shortage"]))
                == [.stateChanged(id, diffuser(["water_shortage"])), .faultRaised(id, ["water_shortage"])])
        #expect(
            announcer.events(for: diffuser(["water_shortage"], mist: false))
                == [.stateChanged(id, diffuser(["water_shortage"], mist: false))])
        #expect(
            announcer.events(for: diffuser([], mist: false))
                == [.stateChanged(id, diffuser([], mist: false)), .faultCleared(id, ["water_shortage"])])
    }

    @Test("the state saved before a restart is not announced again, nor a fault it already had")
    func savedState() {
        var announcer = StateAnnouncer(device: id, saved: diffuser(["water_shortage"]))
        #expect(announcer.events(for: diffuser(["water_shortage"])) == [])
        #expect(
            announcer.events(for: diffuser(["water_shortage", "fan_fault"]))
                == [.stateChanged(id, diffuser(["water_shortage", "fan_fault"])), .faultRaised(id, ["fan_fault"])])
    }

    @Test("after the device came back, the same state is announced again, but a fault it still has is not raised again")
    func afterReconnect() {
        var announcer = StateAnnouncer(device: id, saved: diffuser(["water_shortage"]))
        announcer.forgetState()
        #expect(
            announcer.events(for: diffuser(["water_shortage"])) == [.stateChanged(id, diffuser(["water_shortage"]))])
        #expect(announcer.events(for: diffuser(["water_shortage"])) == [])
    }
}
