import Foundation

/// A spatial index of stores: the map cut into cells of `cellDegrees` on a side, each listing
/// the stores in it. The nearest stores to a point are found by looking at rings of cells
/// around it, outwards, until the stores found are surely nearer than anything in the next
/// ring — so the cost depends on how many stores are near the point, not on how many there
/// are (a grid rather than SQLite's R*Tree: the worker keeps the stores in memory anyway).
public struct StoreGrid: Sendable {
    public struct Cell: Hashable, Sendable {
        var row: Int
        var column: Int
    }

    /// About 5.5 km north–south: a city's stores fill a few cells, so a search looks at a few
    /// dozen stores; cells of 1.1 km held a hundred thousand stores in 63,000 small arrays
    /// (8 MB, where 3 MB do now).
    public static let cellDegrees = 0.05
    private static let metresPerDegree = 111_195.0

    private var cells: [Cell: [(id: StoreID, point: GeoPoint)]] = [:]
    private var rows: ClosedRange<Int>?
    private var columns: ClosedRange<Int>?
    public private(set) var count = 0

    public init() {}

    static func cell(of point: GeoPoint) -> Cell {
        Cell(row: Int((point.latitude / cellDegrees).rounded(.down)),
             column: Int((point.longitude / cellDegrees).rounded(.down)))
    }

    public mutating func insert(id: StoreID, at point: GeoPoint) {
        let cell = Self.cell(of: point)
        cells[cell, default: []].append((id, point))
        rows = rows.map { min($0.lowerBound, cell.row)...max($0.upperBound, cell.row) } ?? cell.row...cell.row
        columns = columns.map { min($0.lowerBound, cell.column)...max($0.upperBound, cell.column) }
            ?? cell.column...cell.column
        count += 1
    }

    public mutating func remove(id: StoreID, at point: GeoPoint) {
        let cell = Self.cell(of: point)
        guard let index = cells[cell]?.firstIndex(where: { $0.id == id }) else { return }
        cells[cell]?.remove(at: index)
        if cells[cell]?.isEmpty == true { cells[cell] = nil }
        count -= 1
    }

    /// The `limit` stores nearest `point`, nearest first, ties by id.
    public func nearest(to point: GeoPoint, limit: Int, excluding: StoreID? = nil) -> [(id: StoreID, metres: Double)] {
        guard limit > 0, let rows, let columns else { return [] }
        let centre = Self.cell(of: point)
        var found: [(id: StoreID, metres: Double)] = []
        // The furthest ring that can hold a store.
        let lastRing = max(abs(rows.lowerBound - centre.row), abs(rows.upperBound - centre.row),
                           abs(columns.lowerBound - centre.column), abs(columns.upperBound - centre.column))
        // A cell of ring r is at least (r - 1) cells away on either axis; east–west a cell is
        // narrowest at the ring's latitude furthest from the equator.
        var ring = 0
        while ring <= lastRing {
            // Where stores are sparse, rings of empty cells would cost more than every store.
            if 8 * ring > count { return everyStore(from: point, limit: limit, excluding: excluding) }
            for cell in Self.ring(ring, around: centre) {
                for store in cells[cell] ?? [] where store.id != excluding {
                    found.append((store.id, point.distance(to: store.point)))
                }
            }
            if found.count >= limit {
                found.sort { ($0.metres, $0.id) < ($1.metres, $1.id) }
                if found.count > limit { found.removeLast(found.count - limit) }
                let furthestLatitude = min(89.9, abs(point.latitude) + Double(ring + 1) * Self.cellDegrees)
                let nextRingMetres = Double(ring) * Self.cellDegrees * Self.metresPerDegree
                    * cos(furthestLatitude * .pi / 180)
                if found[limit - 1].metres <= nextRingMetres { return found }
            }
            ring += 1
        }
        found.sort { ($0.metres, $0.id) < ($1.metres, $1.id) }
        return Array(found.prefix(limit))
    }

    private func everyStore(from point: GeoPoint, limit: Int, excluding: StoreID?) -> [(id: StoreID, metres: Double)] {
        var all: [(id: StoreID, metres: Double)] = []
        all.reserveCapacity(count)
        for stores in cells.values {
            for store in stores where store.id != excluding { all.append((store.id, point.distance(to: store.point))) }
        }
        all.sort { ($0.metres, $0.id) < ($1.metres, $1.id) }
        return Array(all.prefix(limit))
    }

    /// The cells at Chebyshev distance `ring` from `centre`.
    static func ring(_ ring: Int, around centre: Cell) -> [Cell] {
        guard ring > 0 else { return [centre] }
        var cells: [Cell] = []
        cells.reserveCapacity(8 * ring)
        for column in (centre.column - ring)...(centre.column + ring) {
            cells.append(Cell(row: centre.row - ring, column: column))
            cells.append(Cell(row: centre.row + ring, column: column))
        }
        for row in (centre.row - ring + 1)...(centre.row + ring - 1) {
            cells.append(Cell(row: row, column: centre.column - ring))
            cells.append(Cell(row: row, column: centre.column + ring))
        }
        return cells
    }
}
