import ArgumentParser
import CLupData
import CLupDomain
import CLupSupport
import Foundation

/// `clup measure-board`: what keeping a store's status costs as its queue grows, measured in
/// the worker's own code on an in-memory database (the benchmark script runs it). For each
/// queue length it times, as medians over repeated runs: a read of the kept standing, and
/// each kind of update — a new ticket, a cancellation, an exit — from the change reaching the
/// board to the standing being readable again (the board's share of the work; the changes are
/// written straight to the table, since past two hours of queue the line-up rule refuses new
/// tickets).
struct MeasureBoard: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "measure-board", abstract: "Time the kept store status's reads and updates (prints JSON).")

    @Option(help: "Queue lengths, comma-separated.") var waiting: String = "100,1000,10000"
    @Option(help: "Updates timed per kind and queue length.") var repeats: Int = 30

    struct Row: Encodable {
        var waiting: Int
        var readMicroseconds: Double
        var newTicketMs: Double
        var cancellationMs: Double
        var exitMs: Double
        /// The fastest exit of the repeats: on a shared machine, the cost least disturbed by
        /// other work, for comparing two builds.
        var fastestExitMs: Double
        /// The standing computed afresh from the store's live reservations: what the first read
        /// after a change that cannot be brought along (an exit) pays.
        var recomputeMs: Double
        var fastestRecomputeMs: Double
    }

    func run() throws {
        guard Sodium.ensureInitialized() else { throw ValidationError("libsodium could not be initialised") }
        FreedMemory.keepForReuse()
        var rows: [Row] = []
        for size in waiting.split(separator: ",").compactMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) {
            rows.append(try measure(waiting: size))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        print(String(decoding: try encoder.encode(rows), as: UTF8.self))
    }

    private func measure(waiting size: Int) throws -> Row {
        let database = try AppDatabase.inMemory()
        let now = Date()
        let store = try database.stores.createStore(
            NewStore(name: "Measured", address: "Via 1", phone: "0", position: GeoPoint(latitude: 45.46, longitude: 9.19),
                     capacity: 60, timeZone: "UTC"),
            hours: (1...7).map { OpeningInterval(weekday: $0, opens: 0, closes: 1440) }, departments: [])
        let day = Int(now.timeIntervalSince1970) / 86_400
        // A full store: people inside, and the queue behind them.
        try database.fillForMeasurement(storeId: store.id, day: day, inside: 60, waiting: size, now: now)
        func standing(at time: Date) -> StoreStanding {
            database.board.standing(of: store.id, now: time)!
        }
        var clock = now
        _ = standing(at: clock)
        // Reads of the kept standing.
        let reads = 10_000
        let started = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<reads { _ = standing(at: clock) }
        let readMicroseconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1000 / Double(reads)

        /// The board's share of an update: `sql` commits (through the board's observer, which
        /// is timed with it), then the next read recomputes the standing.
        func timeUpdate(_ change: () throws -> Void) throws -> Double {
            clock += 0.001
            let begin = DispatchTime.now().uptimeNanoseconds
            try change()
            _ = standing(at: clock)
            return Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e6
        }
        var recomputations: [Double] = []
        if let entry = database.board.entry(store.id) {
            for _ in 0..<repeats {
                clock += 0.001
                let begin = DispatchTime.now().uptimeNanoseconds
                _ = StoreStanding(live: entry.live, settings: entry.definition.settings, hours: entry.hours, now: clock)
                recomputations.append(Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e6)
            }
        }
        var newTicket: [Double] = []
        for index in 0..<repeats {
            newTicket.append(try timeUpdate {
                try database.addWaitingForMeasurement(storeId: store.id, day: day, number: size + 61 + index, now: clock)
            })
        }
        let middle = try database.idsForMeasurement(storeId: store.id, status: .waiting, limit: repeats, offset: size / 2)
        var cancellations: [Double] = []
        for id in middle {
            cancellations.append(try timeUpdate {
                try database.cancelForMeasurement(id: id, now: clock)
            })
        }
        var exits: [Double] = []
        let insideIds = try database.idsForMeasurement(storeId: store.id, status: .inside, limit: repeats)
        for id in insideIds {
            exits.append(try timeUpdate { _ = try database.doors.scan(reservationId: id, at: store.id, now: clock) })
        }
        func median(_ values: [Double]) -> Double {
            let sorted = values.sorted()
            return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
        }
        return Row(waiting: size, readMicroseconds: readMicroseconds, newTicketMs: median(newTicket),
                   cancellationMs: median(cancellations), exitMs: median(exits), fastestExitMs: exits.min() ?? 0,
                   recomputeMs: median(recomputations), fastestRecomputeMs: recomputations.min() ?? 0)
    }
}
