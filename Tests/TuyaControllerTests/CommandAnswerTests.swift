import Testing
import TuyaCore

@testable import TuyaController

@Suite("The answer a link gives a command's caller")
struct CommandAnswerTests {
    private static let on = DeviceState.light(LightState(power: true))
    private static let off = DeviceState.light(LightState(power: false))

    @Test("an answer settled before the caller waits is returned at once (a command refused on arrival)")
    func settledFirst() async throws {
        let answer = CommandAnswer()
        answer.settle(.failure(ControllerError.stopped))
        await #expect(throws: ControllerError.stopped) { try await answer.value }
    }

    @Test("the first result counts: a confirmation after a timeout does not change what the caller heard")
    func firstWins() async throws {
        let answer = CommandAnswer()
        answer.settle(.success(Self.on))
        answer.settle(.success(Self.off))
        answer.settle(.failure(ControllerError.stopped))
        #expect(try await answer.value == Self.on)
    }

    @Test("every caller hears its own answer, whichever of settling and waiting comes first")
    func racing() async throws {
        let answers = (0..<500).map { _ in CommandAnswer() }
        try await withThrowingTaskGroup(of: (Int, DeviceState).self) { group in
            for (index, answer) in answers.enumerated() {
                group.addTask { (index, try await answer.value) }
            }
            for (index, answer) in answers.enumerated() {
                answer.settle(.success(index.isMultiple(of: 2) ? Self.on : Self.off))
            }
            var heard = 0
            for try await (index, state) in group {
                #expect(state == (index.isMultiple(of: 2) ? Self.on : Self.off))
                heard += 1
            }
            #expect(heard == answers.count)
        }
    }
}
