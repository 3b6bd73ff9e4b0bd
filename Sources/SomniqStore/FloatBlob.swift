import Foundation

/// Float arrays as BLOBs: float32, little-endian, no header.
public enum FloatBlob {
    public static func encode<Values: Collection>(_ values: Values) -> Data where Values.Element == Float {
        // Contiguous values on a little-endian machine are already the blob: one copy, no per-value append.
        if Int(littleEndian: 1) == 1, let data = values.withContiguousStorageIfAvailable({ Data(buffer: $0) }) {
            return data
        }
        var data = Data(capacity: values.count * 4)
        for value in values {
            withUnsafeBytes(of: value.bitPattern.littleEndian) { data.append(contentsOf: $0) }
        }
        return data
    }

    public static func decode(_ data: Data) -> [Float] {
        var values: [Float] = []
        decode(data, into: &values)
        return values
    }

    /// Decodes into `values`, reusing its storage.
    public static func decode(_ data: Data, into values: inout [Float]) {
        let count = data.count / 4
        if values.count != count { values = [Float](repeating: 0, count: count) }
        data.withUnsafeBytes { raw in
            for index in 0..<count {
                values[index] = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self)))
            }
        }
    }
}
