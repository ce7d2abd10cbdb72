import Testing

@testable import Gateway

// Pure unit tests: places taken by hand, turns taken by tasks started in any order.
@Suite("SetLanes")
struct SetLanesTests {
    /// The bridge's use of the lanes, on one actor as on the bridge's.
    actor Bridge {
        var lanes = SetLanes<String>()
        private(set) var served: [String] = []

        func take(_ name: String) -> Int { lanes.take(name) }

        func serve(_ name: String, place: Int) async {
            if !lanes.isTurn(of: place, in: name) {
                await withCheckedContinuation { lanes.wait($0, for: place, in: name) }
            }
            served.append("\(name)\(place)")
            lanes.leave(name)?.resume()
        }
    }

    @Test("commands to one device are served in the order they took their places, whatever order their tasks start in")
    func arrivalOrder() async {
        let bridge = Bridge()
        var places: [Int] = []
        for _ in 0..<6 { places.append(await bridge.take("lamp")) }
        #expect(places == [0, 1, 2, 3, 4, 5])
        await withTaskGroup(of: Void.self) { group in
            for place in places.reversed() { group.addTask { await bridge.serve("lamp", place: place) } }
        }
        #expect(await bridge.served == ["lamp0", "lamp1", "lamp2", "lamp3", "lamp4", "lamp5"])
        #expect(await bridge.lanes.count == 0, "an empty lane is dropped")
        #expect(await bridge.take("lamp") == 0, "and a new one starts at the front")
    }

    @Test("a device's lane waits for nobody else's: a command to another device goes first")
    func lanesAreIndependent() async {
        let bridge = Bridge()
        let lamp = await bridge.take("lamp")
        let diffuser = await bridge.take("diffuser")
        let next = await bridge.take("lamp")
        await bridge.serve("diffuser", place: diffuser)
        #expect(await bridge.served == ["diffuser0"])
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await bridge.serve("lamp", place: next) }
            group.addTask { await bridge.serve("lamp", place: lamp) }
        }
        #expect(await bridge.served == ["diffuser0", "lamp0", "lamp1"])
    }

    @Test("a turn lane serves its places in the order they were taken, and is idle once all are served")
    func turnLaneOrder() async {
        actor Lookups {
            var lane = TurnLane()
            private(set) var served: [Int] = []
            func take() -> Int { lane.take() }
            func serve(_ place: Int) async {
                if !lane.isTurn(of: place) { await withCheckedContinuation { lane.wait($0, for: place) } }
                served.append(place)
                lane.leave()?.resume()
            }
        }
        let lookups = Lookups()
        var places: [Int] = []
        for _ in 0..<5 { places.append(await lookups.take()) }
        #expect(await !lookups.lane.isIdle)
        await withTaskGroup(of: Void.self) { group in
            for place in places.reversed() { group.addTask { await lookups.serve(place) } }
        }
        #expect(await lookups.served == [0, 1, 2, 3, 4])
        #expect(await lookups.lane.isIdle)
    }
}
