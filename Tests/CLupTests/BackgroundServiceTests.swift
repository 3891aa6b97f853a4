import Foundation
import Logging
import Synchronization
import Testing

@testable import CLupJobs

/// The worker's services start, turn, survive a failing turn, and stop promptly and for good.
@Suite("Background services", .enabled(if: Fixture.engineFreePass))
struct BackgroundServiceTests {
    struct Failure: Error {}

    @Test("a service turns until stopped; a failing turn is logged and the next comes; stop wakes it at once")
    func lifecycle() throws {
        let turns = Atomic<Int>(0)
        let beats = Atomic<Int>(0)
        let service = BackgroundService(name: "test", every: 3600, logger: Logger(label: "test"),
                                        beat: { beats.add(1, ordering: .relaxed) }) {
            // The first turn fails: the loop goes on.
            if turns.add(1, ordering: .relaxed).newValue == 1 { throw Failure() }
        }
        #expect(service.stop(timeout: 0.1) == false)  // never started
        service.start()
        service.start()  // once only
        let deadline = Date() + 5
        while turns.load(ordering: .relaxed) < 1, Date() < deadline { usleep(1_000) }
        let first = turns.load(ordering: .relaxed)
        #expect(first == 1)
        // Waiting an hour for its next turn, it stops at once when told.
        let asked = Date()
        #expect(service.stop(timeout: 5))
        #expect(Date().timeIntervalSince(asked) < 1)
        // Stopping woke it only to end it: no turn after the stop, and a second stop returns.
        let (turned, beat) = (turns.load(ordering: .relaxed), beats.load(ordering: .relaxed))
        #expect(turned == 1 && beat == 1)
        #expect(service.stop(timeout: 1))
    }

    @Test("a group starts every service and stops them all, waiting for a turn in progress to finish")
    func group() throws {
        let running = DispatchSemaphore(value: 0)
        let finished = Atomic<Bool>(false)
        let slow = BackgroundService(name: "slow", every: 3600, logger: Logger(label: "test")) {
            running.signal()
            Thread.sleep(forTimeInterval: 0.3)
            finished.store(true, ordering: .relaxed)
        }
        let quick = BackgroundService(name: "quick", every: 0.01, logger: Logger(label: "test")) {}
        let services = ServiceGroup([slow, quick])
        services.start()
        #expect(running.wait(timeout: .now() + 5) == .success)
        #expect(services.stop(timeout: 5).isEmpty)
        let wasFinished = finished.load(ordering: .relaxed)
        #expect(wasFinished)  // the turn in progress was not cut off
        // One that does not finish within the timeout is named.
        let stuck = BackgroundService(name: "stuck", every: 3600, logger: Logger(label: "test")) {
            Thread.sleep(forTimeInterval: 2)
        }
        stuck.start()
        Thread.sleep(forTimeInterval: 0.1)
        #expect(ServiceGroup([stuck]).stop(timeout: 0.2) == ["stuck"])
        #expect(stuck.stop(timeout: 5))
    }
}
