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

    @Test(
        "a device that comes online while the republish is gathered is announced online once, not once by the republish and again after it"
    )
    func onlineDuringRepublishIsAnnouncedOnce() {
        var state = RetainedPublishState()
        state.connected()
        // The republish reads the lamp as online (the controller already changed it) ...
        let fromRepublish = state.announce(.online, of: lamp)
        // ... and the change event, handled meanwhile, hands it back for after the republish.
        _ = state.deviceChanged(lamp)
        let handedBack = state.republished()
        #expect(handedBack == [lamp])
        let again = state.announce(.online, of: lamp)
        #expect(fromRepublish && !again)
        // A real change still goes out.
        let offline = state.announce(.offline, of: lamp)
        let backOnline = state.announce(.online, of: lamp)
        #expect(offline && backOnline)
    }

    @Test("every connection announces each availability again, and a rename or a re-paired id is never held back")
    func newConnectionRenameAndRepairAnnounceAgain() {
        var state = RetainedPublishState()
        state.connected()
        let first = state.announce(.online, of: lamp)
        state.disconnected()
        state.connected()
        let nextConnection = state.announce(.online, of: lamp)
        let renamed = state.announce(.online, of: lamp, force: true)
        state.forget(lamp)
        let repaired = state.announce(.online, of: lamp)
        let repeated = state.announce(.online, of: lamp)
        #expect(first)
        #expect(nextConnection, "a new connection's republish carries it")
        #expect(renamed, "a renamed device's new topic")
        #expect(repaired, "a device paired again with the same id")
        #expect(!repeated)
    }
}
