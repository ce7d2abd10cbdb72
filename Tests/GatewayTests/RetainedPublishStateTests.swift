import Testing
import TuyaCore

@testable import Gateway

// Pure unit tests: no broker; the server's connection and device events passed by hand.
@Suite("RetainedPublishState")
struct RetainedPublishStateTests {
    let lamp = DeviceID("bf0000000000000lamp")!
    let aroma = DeviceID("bf000000000000aroma")!

    @Test("before the first connection's republish, a change waits and is sent again right after it")
    func changeWaitsForTheRepublish() {
        var state = RetainedPublishState()
        state.connected()
        let publishedNow = state.deviceChanged(lamp)
        #expect(!publishedNow)
        let again = state.republished()
        #expect(again == [lamp])
        #expect(state.isAnnounced)
    }

    @Test("once the republish is enqueued, changes go out at once and nothing is sent twice")
    func changesGoOutOnceAnnounced() {
        var state = RetainedPublishState()
        state.connected()
        let again = state.republished()
        #expect(again.isEmpty)
        let lampNow = state.deviceChanged(lamp)
        let aromaNow = state.deviceChanged(aroma)
        #expect(lampNow && aromaNow)
    }

    @Test("devices that changed meanwhile come back once each, in id order")
    func changedDevicesAreSortedAndUnique() {
        var state = RetainedPublishState()
        state.connected()
        let publishedNow = [lamp, aroma, lamp, aroma].map { state.deviceChanged($0) }
        #expect(publishedNow == [false, false, false, false])
        let again = state.republished()
        #expect(again == [aroma, lamp].sorted())
        let secondTime = state.republished()
        #expect(secondTime.isEmpty, "the list is handed out once")
    }

    @Test("a dropped connection holds changes back until the next connection's republish carries them")
    func disconnectHoldsChangesBack() {
        var state = RetainedPublishState()
        state.connected()
        _ = state.republished()
        state.disconnected()
        #expect(!state.isConnected && !state.isAnnounced)
        let publishedNow = state.deviceChanged(lamp)
        #expect(!publishedNow)
        // A republish gathered while still disconnected announces nothing and keeps the change.
        let whileDown = state.republished()
        #expect(whileDown.isEmpty)
        #expect(!state.isAnnounced)
        state.connected()
        let afterReconnect = state.republished()
        #expect(afterReconnect == [lamp])
    }
}
