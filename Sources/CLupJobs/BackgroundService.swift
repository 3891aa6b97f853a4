import Dispatch
import Foundation
import Logging
import Metrics
import Synchronization

/// Work done outside requests — sending mail, calling the queues, dispatching notices — on a
/// thread of its own, turn after turn, until it is stopped. A turn that throws is logged and
/// the next comes as usual; `beat` is called at the start of every turn (for `/healthz`).
///
/// `stop()` wakes a loop that is waiting for its next turn at once, lets a turn in progress
/// finish, and returns when the thread has ended: on SIGTERM the worker stops serving first,
/// then its services, so nothing is cut off half-way (messages a turn had handed to threads of
/// their own, push messages, are leased and resumed by the next worker).
public final class BackgroundService: Sendable {
    public let name: String
    private let interval: TimeInterval
    private let turn: @Sendable () throws -> Void
    private let beat: @Sendable () -> Void
    private let logger: Logger
    private let stopping = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)

    /// `turn` runs every `interval` seconds (counted from the end of the previous turn).
    public init(name: String, every interval: TimeInterval, logger: Logger, beat: @escaping @Sendable () -> Void = {},
                turn: @escaping @Sendable () throws -> Void)
    {
        self.name = name
        self.interval = interval
        self.logger = logger
        self.beat = beat
        self.turn = turn
    }

    public func start() {
        guard started.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged else {
            return
        }
        let thread = Thread { [self] in
            let dimensions = [("service", name)]
            var due = ContinuousClock.now
            while !stopping.load(ordering: .sequentiallyConsistent) {
                let start = ContinuousClock.now
                // How late the turn starts: a loop (the queue timer above all) that cannot
                // keep its pace shows here before anyone waits for it.
                Timer(label: "clup_service_lag_seconds", dimensions: dimensions).record(duration: max(.zero, start - due))
                beat()
                do {
                    try turn()
                } catch {
                    logger.error("\(name): \(error)")
                    Counter(label: "clup_service_errors_total", dimensions: dimensions).increment()
                }
                let end = ContinuousClock.now
                Timer(label: "clup_service_turn_seconds", dimensions: dimensions).record(duration: end - start)
                due = end + .milliseconds(Int64(interval * 1000))
                _ = wake.wait(timeout: .now() + interval)
            }
            ended.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Stops the loop after its current turn; true once it has ended, false if a turn still
    /// runs after `timeout` seconds (or the service was never started).
    @discardableResult
    public func stop(timeout: TimeInterval = 30) -> Bool {
        guard started.load(ordering: .sequentiallyConsistent) else { return false }
        stopping.store(true, ordering: .sequentiallyConsistent)
        wake.signal()
        guard ended.wait(timeout: .now() + timeout) == .success else { return false }
        ended.signal()  // a second stop() returns at once
        return true
    }
}

/// Services that start together and stop together, the last started first.
public struct ServiceGroup: Sendable {
    public let services: [BackgroundService]

    public init(_ services: [BackgroundService]) {
        self.services = services
    }

    public func start() {
        services.forEach { $0.start() }
    }

    /// Stops every service; the names of those still running after `timeout` each.
    @discardableResult
    public func stop(timeout: TimeInterval = 30) -> [String] {
        services.reversed().filter { !$0.stop(timeout: timeout) }.map(\.name)
    }
}
