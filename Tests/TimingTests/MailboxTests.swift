import Synchronization
import Testing

@testable import Timing

/// The queue behind every broker message and bridge answer: nothing lost, nothing reordered,
/// and a consumer that goes away never leaves a producer buffering for ever.
@Suite("Mailbox")
struct MailboxTests {
    @Test("elements yielded before and while the consumer waits come out in order, then the end after finish()")
    func orderAndFinish() async {
        let (mailbox, continuation) = Mailbox.make(of: Int.self)
        for value in 0..<3 { continuation.yield(value) }
        let reader = Task {
            var seen: [Int] = []
            for await value in mailbox { seen.append(value) }
            return seen
        }
        for value in 3..<1000 { continuation.yield(value) }
        continuation.finish()
        #expect(await reader.value == Array(0..<1000))
        #expect(!continuation.yield(1000), "a finished mailbox takes nothing more")
    }

    @Test("an iterator made after another one stopped carries on where it stopped: nothing buffered is lost")
    func iteratorsCarryOn() async {
        let (mailbox, continuation) = Mailbox.make(of: Int.self)
        for value in 0..<10 { continuation.yield(value) }
        var first = mailbox.makeAsyncIterator()
        let one = await first.next()
        var second = mailbox.makeAsyncIterator()
        let two = await second.next()
        continuation.finish()
        var rest: [Int] = []
        for await value in mailbox { rest.append(value) }
        #expect([one, two] == [0, 1])
        #expect(rest == Array(2..<10))
    }

    @Test("nextIfBuffered takes what is buffered without waiting, in order with the iterators, and nil when empty")
    func nextIfBuffered() async {
        let (mailbox, continuation) = Mailbox.make(of: Int.self)
        #expect(mailbox.nextIfBuffered() == nil)
        for value in 0..<4 { continuation.yield(value) }
        var iterator = mailbox.makeAsyncIterator()
        let first = await iterator.next()
        let rest = [mailbox.nextIfBuffered(), mailbox.nextIfBuffered(), mailbox.nextIfBuffered()]
        #expect(first == 0)
        #expect(rest == [1, 2, 3])
        #expect(mailbox.nextIfBuffered() == nil)
        continuation.yield(4)
        continuation.finish()
        let last = await iterator.next()
        let end = await iterator.next()
        #expect(last == 4)
        #expect(end == nil)
    }

    @Test("four producers on their own threads: every element arrives once, each producer's in its order")
    func concurrentProducers() async {
        let (mailbox, continuation) = Mailbox.make(of: (producer: Int, value: Int).self)
        let perProducer = 5000
        let producers = (0..<4).map { producer in
            Task.detached {
                for value in 0..<perProducer { continuation.yield((producer, value)) }
            }
        }
        let reader = Task {
            var next = [0, 0, 0, 0]
            var inOrder = true
            var count = 0
            for await (producer, value) in mailbox {
                inOrder = inOrder && value == next[producer]
                next[producer] = value + 1
                count += 1
                if count == 4 * perProducer { break }
            }
            return (count, inOrder)
        }
        for producer in producers { await producer.value }
        let (count, inOrder) = await reader.value
        #expect(count == 4 * perProducer)
        #expect(inOrder)
    }

    @Test(
        "cancelling a waiting consumer ends the mailbox: the loop ends, onTermination runs once, later yields are refused"
    )
    func cancelEnds() async {
        let (mailbox, continuation) = Mailbox.make(of: Int.self)
        let terminations = Count()
        continuation.onTermination { terminations.add() }
        let reader = Task {
            var seen = 0
            for await _ in mailbox { seen += 1 }
            return seen
        }
        continuation.yield(1)
        reader.cancel()
        let seen = await reader.value
        #expect(seen <= 1)
        #expect(!continuation.yield(2))
        continuation.finish()
        #expect(terminations.value == 1)
    }

    @Test("a consumer dropped without reading ends the mailbox, so its producer stops buffering")
    func droppedConsumerEnds() {
        let continuation: Mailbox<[UInt8]>.Continuation
        let terminated = Count()
        do {
            let made = Mailbox.make(of: [UInt8].self)
            continuation = made.continuation
            continuation.onTermination { terminated.add() }
            #expect(continuation.yield([1, 2, 3]))
        }
        #expect(terminated.value == 1)
        #expect(!continuation.yield([4]))
    }

    @Test("onTermination set after the end runs at once")
    func lateTerminationHandler() {
        let (_, continuation) = Mailbox.make(of: Int.self)
        continuation.finish()
        let ran = Count()
        continuation.onTermination { ran.add() }
        #expect(ran.value == 1)
    }
}

private final class Count: Sendable {
    private let count = Atomic<Int>(0)
    var value: Int { count.load(ordering: .relaxed) }
    func add() { count.add(1, ordering: .relaxed) }

    /// A producer that keeps the mailbox at its limit while the consumer reads (a flood the
    /// consumer never catches up with): what was read must not stay in memory.
    @Test("under a steady flood at the limit, elements already read are let go")
    func floodAtTheLimitIsBounded() {
        let (mailbox, continuation) = Mailbox.make(of: Int.self)
        var next = 0
        for _ in 0..<100 {
            continuation.yield(next, buffering: 100)
            next += 1
        }
        var read: [Int] = []
        for _ in 0..<100_000 {
            guard let element = mailbox.nextIfBuffered() else { break }
            read.append(element)
            #expect(continuation.yield(next, buffering: 100))
            next += 1
        }
        #expect(read == Array(0..<100_000))
        #expect(mailbox.consumer.storage.heldCount < 2_200, "held \(mailbox.consumer.storage.heldCount)")
        #expect(!continuation.yield(-1, buffering: 100), "still at the limit: dropped")
    }
}
