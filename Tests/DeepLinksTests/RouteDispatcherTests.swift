import DeepLinks
import Testing
import TuyaCore

@Suite("Deep links: the dispatcher through gates")
struct RouteDispatcherTests {
    let newDevice = DeviceID("new-diffuser")!
    let maintenanceLink = "youll://tuya/maintenance?type=refill&device=new-diffuser"

    private func paired(_ types: Set<String>, running: Bool = false) -> RouteContext {
        var context = Fixture.context
        context.pairedDevices[newDevice] = types
        context.sessionRunning = running
        return context
    }

    @Test("after the device is paired, the gated maintenance link resumes to its destination")
    func resume() {
        var dispatcher = RouteDispatcher()
        #expect(dispatcher.submit(url: maintenanceLink, context: Fixture.context) == .gated(.devicePaired(newDevice)))
        #expect(dispatcher.pending?.request == RouteRequest(.tuyaMaintenance(type: "refill", deviceID: newDevice)))
        #expect(
            dispatcher.gateSatisfied(context: paired(["refill"]))
                == .proceed(.tuyaMaintenance(type: "refill", deviceID: newDevice)))
        #expect(dispatcher.pending == nil)
        #expect(dispatcher.gateSatisfied(context: paired(["refill"])) == .noPendingGate)
    }

    @Test("a gate reported satisfied while it still does not hold gates again and stays pending")
    func stillGated() {
        var dispatcher = RouteDispatcher()
        var running = Fixture.context
        running.sessionRunning = true
        #expect(
            dispatcher.submit(url: "youll://timer?preset=calm&minutes=10", context: running)
                == .gated(.noSessionRunning))
        #expect(dispatcher.gateSatisfied(context: running) == .gated(.noSessionRunning))
        #expect(dispatcher.pending != nil)
        #expect(dispatcher.gateSatisfied(context: Fixture.context) == .proceed(.timer(preset: "calm", minutes: 10)))
    }

    @Test("chained gates: pairing clears, then the session gate, then it proceeds")
    func chained() {
        var table = RouteTable.standard
        let index = table.routes.firstIndex { $0.name == .tuyaMaintenance }!
        table.routes[index].preconditions = [.devicePaired(.device), .noSessionRunning]
        var dispatcher = RouteDispatcher(engine: RoutingEngine(table: table))
        var running = Fixture.context
        running.sessionRunning = true

        #expect(dispatcher.submit(url: maintenanceLink, context: running) == .gated(.devicePaired(newDevice)))
        #expect(dispatcher.gateSatisfied(context: paired(["refill"], running: true)) == .gated(.noSessionRunning))
        #expect(
            dispatcher.gateSatisfied(context: paired(["refill"]))
                == .proceed(.tuyaMaintenance(type: "refill", deviceID: newDevice)))
        #expect(dispatcher.metrics[.tuyaMaintenance] == RouteOutcomeCounts(proceeded: 1, gated: 2))
    }

    @Test("a cancelled gate is dropped: nothing resumes afterwards")
    func cancel() {
        var dispatcher = RouteDispatcher()
        _ = dispatcher.submit(url: maintenanceLink, context: Fixture.context)
        #expect(dispatcher.gateCancelled() == RouteRequest(.tuyaMaintenance(type: "refill", deviceID: newDevice)))
        #expect(dispatcher.pending == nil)
        #expect(dispatcher.gateSatisfied(context: paired(["refill"])) == .noPendingGate)
        #expect(dispatcher.gateCancelled() == nil)
        #expect(dispatcher.metrics[.tuyaMaintenance] == RouteOutcomeCounts(gated: 1, cancelled: 1))
    }

    @Test("the context changed while gated: the resumed request is stale and dropped")
    func stale() {
        // Paired meanwhile, but with a profile that has no 'refill' (a bulb, say).
        var dispatcher = RouteDispatcher()
        _ = dispatcher.submit(url: maintenanceLink, context: Fixture.context)
        let outcome = dispatcher.gateSatisfied(context: paired([]))
        #expect(
            outcome
                == .stale(
                    .validationFailed(field: "type", reason: .unknownMaintenanceType(device: newDevice, known: []))))
        #expect(dispatcher.pending == nil)

        // The preset was removed from the configuration while a session ran.
        var running = Fixture.context
        running.sessionRunning = true
        _ = dispatcher.submit(url: "youll://timer?preset=sleep&minutes=30", context: running)
        var withoutSleep = Fixture.context
        withoutSleep.presets.remove("sleep")
        guard
            case .stale(.validationFailed(field: "preset", reason: .unknownPreset))? = Optional(
                dispatcher.gateSatisfied(context: withoutSleep))
        else {
            Issue.record("a removed preset makes the resumed timer link stale")
            return
        }
        #expect(dispatcher.metrics[.timer] == RouteOutcomeCounts(gated: 1, rejected: 1))
    }

    @Test("a new link while one is gated supersedes it, counted as cancelled")
    func supersede() {
        var dispatcher = RouteDispatcher()
        _ = dispatcher.submit(url: maintenanceLink, context: Fixture.context)
        #expect(dispatcher.submit(url: "youll://tuya/pair", context: Fixture.context) == .proceed(.tuyaPair))
        #expect(dispatcher.pending == nil)
        #expect(dispatcher.metrics[.tuyaMaintenance].cancelled == 1)
    }

    @Test("outcomes are counted per route; links that match no route are counted apart")
    func counts() {
        var dispatcher = RouteDispatcher()
        let context = Fixture.context
        _ = dispatcher.submit(url: "youll://tuya/pair", context: context)
        _ = dispatcher.submit(url: "https://links.youll.example/tuya/pair", context: context)
        _ = dispatcher.submit(url: "youll://tuya/devices/bulb-kitchen_2", context: context)
        _ = dispatcher.submit(url: "youll://tuya/devices/bad.id", context: context)
        _ = dispatcher.submit(url: "youll://tuya/devices/someone-else", context: context)
        dispatcher.gateCancelled()
        _ = dispatcher.submit(url: "youll://timer?preset=calm&minutes=5&x=1", context: context)
        _ = dispatcher.submit(RouteRequest(.timerSession(id: "s-1")), context: context)
        _ = dispatcher.submit(url: "youll://nowhere", context: context)
        _ = dispatcher.submit(url: "gopher://x", context: context)
        #expect(
            dispatcher.submit(url: "youll://tuya/pair#x", context: context)
                == .rejected(.malformed(.fragment(offset: 17))))

        let metrics = dispatcher.metrics
        #expect(metrics[.tuyaPair] == RouteOutcomeCounts(proceeded: 2))
        #expect(metrics[.tuyaDevice] == RouteOutcomeCounts(proceeded: 1, gated: 1, rejected: 1, cancelled: 1))
        #expect(metrics[.timer] == RouteOutcomeCounts(rejected: 1))
        #expect(metrics[.timerSession] == RouteOutcomeCounts(proceeded: 1))
        #expect(metrics[.tuyaMaintenance] == RouteOutcomeCounts())
        #expect(metrics.unrouted == RouteOutcomeCounts(rejected: 3))
        #expect(metrics.perRoute.count == RouteName.allCases.count)
    }
}
