import CQRencode
import CZlib
import Foundation

/// A QR code drawn by libqrencode, rendered as SVG (crisp at any size, inline in the page) or
/// PNG (to save or print).
public struct QRCode: Sendable {
    /// Modules per side, without the quiet zone.
    public let size: Int
    /// Row-major: true where the module is dark.
    let modules: [Bool]

    /// Light modules the standard asks around the code so scanners find its edges.
    public static let quietZone = 4

    /// libqrencode's failures, from `errno` (its documented error reporting).
    public enum EncodingError: Error, Equatable {
        case invalidInput
        case tooLong
        case outOfMemory
        case failed(Int32)
    }

    /// Encodes `text` at error-correction level M (15%: survives a crease or a smudge).
    public init(encoding text: String) throws(EncodingError) {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else {
            switch errno {
            case EINVAL: throw .invalidInput
            case ERANGE: throw .tooLong
            case ENOMEM: throw .outOfMemory
            default: throw .failed(errno)
            }
        }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        size = width
        // Bit 0 of each byte is the module's colour; the other bits describe its role.
        modules = (0..<(width * width)).map { code.pointee.data[$0] & 1 == 1 }
    }

    public func isDark(x: Int, y: Int) -> Bool { modules[y * size + x] }

    /// Side of the SVG's view box: the code and its quiet zone, one unit a module.
    public var svgSide: Int { size + 2 * Self.quietZone }

    /// An SVG path drawing every dark module, each row's runs of dark modules merged into one
    /// rectangle. Only digits and path letters, so it is safe in any attribute.
    public var svgPath: String {
        var path = ""
        for y in 0..<size {
            var x = 0
            while x < size {
                guard isDark(x: x, y: y) else { x += 1; continue }
                let start = x
                while x < size && isDark(x: x, y: y) { x += 1 }
                path += "M\(start + Self.quietZone) \(y + Self.quietZone)h\(x - start)v1h-\(x - start)z"
            }
        }
        return path
    }

    /// A 1-bit greyscale PNG, `scale` pixels a module, with the quiet zone.
    public func png(scale: Int = 8) -> [UInt8] {
        let side = svgSide * scale
        let rowBytes = (side + 7) / 8
        var raw = [UInt8]()
        raw.reserveCapacity((rowBytes + 1) * side)
        for pixelY in 0..<side {
            raw.append(0)  // filter: none
            var row = [UInt8](repeating: 0xFF, count: rowBytes)  // 1 = white
            let y = pixelY / scale - Self.quietZone
            if (0..<size).contains(y) {
                for x in 0..<size where isDark(x: x, y: y) {
                    for pixelX in ((x + Self.quietZone) * scale)..<((x + Self.quietZone + 1) * scale) {
                        row[pixelX / 8] &= ~(0x80 >> UInt8(pixelX % 8))
                    }
                }
            }
            raw += row
        }
        var header = [UInt8]()
        header += Self.bigEndian(UInt32(side)) + Self.bigEndian(UInt32(side))
        header += [1, 0, 0, 0, 0]  // bit depth 1, greyscale, deflate, no filter choice, no interlace
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + Self.chunk("IHDR", header) + Self.chunk("IDAT", Self.deflate(raw)) + Self.chunk("IEND", [])
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// A PNG chunk: length, type, data, and the CRC-32 of type and data.
    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        let crc = typed.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) }
        return bigEndian(UInt32(data.count)) + typed + bigEndian(UInt32(crc))
    }

    /// zlib-wrapped deflate, as PNG's IDAT requires. Cannot fail with a buffer of
    /// `compressBound` bytes except for lack of memory, which stops the process anyway.
    private static func deflate(_ input: [UInt8]) -> [UInt8] {
        var length = compressBound(uLong(input.count))
        var output = [UInt8](repeating: 0, count: Int(length))
        let status = compress2(&output, &length, input, uLong(input.count), Z_BEST_COMPRESSION)
        precondition(status == Z_OK, "zlib compress2 failed: \(status)")
        return Array(output.prefix(Int(length)))
    }
}
