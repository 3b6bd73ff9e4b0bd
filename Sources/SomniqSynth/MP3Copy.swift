import CSndfile
import Foundation

/// Test audio as an MP3 (libsndfile's LAME encoder at its default bit rate): for checking what a lossy, frame-coded
/// format does to reading and seeking. Not a format the tool writes.
public enum MP3Copy {
    public enum Failure: Error, CustomStringConvertible {
        case cannotWrite(String, reason: String)
        public var description: String {
            switch self { case .cannotWrite(let path, let reason): "cannot write \(path) as MP3: \(reason)" }
        }
    }

    /// Writes mono `samples` at `sampleRate` to `path` as MPEG Layer III.
    public static func write(_ samples: [Float], sampleRate: Int, to path: String) throws {
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = 1
        info.format = Int32(SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III)
        guard let handle = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw Failure.cannotWrite(path, reason: String(cString: sf_strerror(nil)))
        }
        let written = samples.withUnsafeBufferPointer { sf_writef_float(handle, $0.baseAddress, sf_count_t($0.count)) }
        let error = sf_error(handle) != 0 ? String(cString: sf_strerror(handle)) : nil
        sf_close(handle)
        if written != samples.count || error != nil {
            throw Failure.cannotWrite(path, reason: error ?? "\(written) of \(samples.count) samples written")
        }
    }
}
