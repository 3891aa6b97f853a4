import CLupSupport
import Foundation
import GRDB

/// Group commit: the write transactions that threads ask for while another group is being
/// written are run together in one SQLite transaction and made durable by one commit (one
/// fsync of the WAL), and each caller is answered only after that commit has returned.
///
/// Each request's work is still its own unit: if one of them throws, the whole transaction is
/// rolled back and the others are run again without it, in the same order, so every answer —
/// the error included — is the one its work gave against exactly the state that committed.
/// (SQL savepoints would undo one request alone, but GRDB holds back change notifications
/// inside a savepoint, and the board's read-back of a transaction's own changes needs them.)
/// The work must therefore be a function of the database alone, as every `AppDatabase` write
/// is: it may run more than once, and only its last run counts.
///
/// No caller waits for company: the writing thread takes whatever has queued as soon as it is
/// free, and callers arriving meanwhile form the next group. The writing thread is created
/// with the database, so it keeps the priority of the thread that opened it (the worker's main
/// thread) rather than the lower one of the page threads that ask for most writes: the one
/// serial part of every write must not wait behind the pages.
final class GroupCommit: Sendable {
    private let state: State
    /// At most this many requests share a commit.
    static let largestGroup = 64

    init(writer: any DatabaseWriter) {
        let state = State()
        self.state = state
        let thread = Thread {
            ThreadName.set("clup-writer")
            while let group = state.nextGroup() {
                Self.run(group, on: writer)
                state.finished(group)
            }
        }
        thread.name = "clup-writer"
        thread.start()
    }

    deinit {
        state.close()
    }

    /// Callers waiting for the next group (for tests).
    var queuedCount: Int { state.queuedCount }

    /// Runs `work` in a write transaction, possibly shared with other callers', and returns
    /// its result once the transaction has committed.
    func write<T>(_ work: (Database) throws -> T) throws -> T {
        try withoutActuallyEscaping(work) { work in
            var result: T?
            // The job runs while this call waits for it, and the writing thread lets go of it
            // before signalling it, so the closure does not outlive `work`.
            let job = Job { db in result = try work(db) }
            state.submitAndWait(job)
            if let error = job.error { throw error }
            guard let result else { preconditionFailure("a committed job has no result") }
            return result
        }
    }

    /// Writes one group: every job in one transaction; a job that throws keeps its error and
    /// the rest are written again without it.
    private static func run(_ group: [Job], on writer: any DatabaseWriter) {
        var remaining = group
        while !remaining.isEmpty {
            var failed: Int?
            do {
                try writer.writeWithoutTransaction { db in
                    try db.inTransaction(.immediate) {
                        for (index, job) in remaining.enumerated() {
                            do {
                                try job.work?(db)
                            } catch {
                                job.error = error
                                failed = index
                                throw error
                            }
                        }
                        return .commit
                    }
                }
                return
            } catch {
                guard let failed else {
                    // Beginning or committing failed: nothing was written for anyone.
                    for job in remaining { job.error = error }
                    return
                }
                remaining.remove(at: failed)
            }
        }
    }

    /// The queue between callers and the writing thread. Only the writing thread waits on
    /// `condition`; each caller waits on its own job's semaphore, so a group written wakes its
    /// own callers and nobody else (one condition for all woke every waiting page thread at
    /// every submission and every commit, to find most of them still waiting).
    private final class State: @unchecked Sendable {
        // @unchecked: the queue and `closed` are touched only with `condition` locked. A job's
        // fields are written by the writing thread before it signals the job's semaphore, and
        // read by its caller after that wait returns.
        private let condition = NSCondition()
        private var queue: [Job] = []
        private var closed = false

        var queuedCount: Int {
            condition.lock()
            defer { condition.unlock() }
            return queue.count
        }

        func submitAndWait(_ job: Job) {
            condition.lock()
            queue.append(job)
            condition.signal()
            condition.unlock()
            job.finished.wait()
        }

        /// The next group to write, waiting for one; nil once the database is gone.
        func nextGroup() -> [Job]? {
            condition.lock()
            defer { condition.unlock() }
            while queue.isEmpty {
                if closed { return nil }
                condition.wait()
            }
            DataMetrics.writeQueue(depth: queue.count)
            let group = Array(queue.prefix(GroupCommit.largestGroup))
            queue.removeFirst(group.count)
            DataMetrics.groupCommit(size: group.count)
            return group
        }

        func finished(_ group: [Job]) {
            for job in group {
                job.work = nil
                job.finished.signal()
            }
        }

        func close() {
            condition.lock()
            closed = true
            condition.broadcast()
            condition.unlock()
        }
    }

    private final class Job {
        var work: ((Database) throws -> Void)?
        var error: (any Error)?
        /// Signalled once the job's group has committed (or failed) and `work` is let go of.
        let finished = DispatchSemaphore(value: 0)

        init(_ work: @escaping (Database) throws -> Void) {
            self.work = work
        }
    }
}
