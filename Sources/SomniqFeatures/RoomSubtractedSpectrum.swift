import Foundation

/// The sound with the room taken off: `clean_mfcc_1`…`clean_mfcc_6`, `clean_centroid_hz` and `clean_share_db`
/// (see `FeatureID` for the formulas). Per mel band, the room's energy is tracked over the recording from each
/// window's quietest sub-frame in that band, as `NoiseFloorTracker` tracks the broadband level: followed down at once
/// and up at most 0.1 dB/s, so a fan switched on becomes room within minutes while a snoring bout barely moves it.
/// What stands above twice that (the room's mean rather than its quietest moment) is the sound.
final class RoomSubtractedSpectrum {
    /// The room's mean energy in a band, over its quietest sub-frame's.
    static let overSubtraction: Float = 2
    /// The sound's bands are floored this far under its strongest: 30 dB.
    static let dynamicRange: Float = 1e-3
    /// `clean_share_db` where nothing stands over the room (and where the window holds no signal).
    static let nothingStandsOutDb: Float = -30

    private let filters: MelFilterbank
    private let bands: Int
    /// The room's energy per band (natural log), before the current window; empty until the first window.
    private var roomLog: [Float] = []
    private var clean: [Float]
    private var cleanLog: [Float]
    private let riseNatsPerWindow = Float(NoiseFloorTracker.riseDecibelsPerSecond) * Float(AnalysisGrid.hopSeconds)
        * Float(log(10.0) / 10)

    init(filters: MelFilterbank, bands: Int) {
        self.filters = filters
        self.bands = bands
        clean = [Float](repeating: 0, count: bands)
        cleanLog = [Float](repeating: 0, count: bands)
    }

    /// Writes the family's features for the window of blocks `a` and `b`, whose sub-frames number `1 / scale`,
    /// then takes the window's quietest sub-frames as the room's candidate.
    func measure(_ a: BlockSummary, _ b: BlockSummary?, scale: Float, into features: inout FeatureVector) {
        let firstWindow = roomLog.isEmpty
        if firstWindow { roomLog = [Float](repeating: 0, count: bands) }
        var total: Float = 0, cleanTotal: Float = 0, strongest: Float = 0
        for band in 0..<bands {
            let quietest = min(a.melEnergyMin[band], b?.melEnergyMin[band] ?? .greatestFiniteMagnitude)
            let candidate = log(max(quietest, 1e-12))
            if firstWindow {
                roomLog[band] = candidate
            }
            let energy = (a.melEnergySum[band] + (b?.melEnergySum[band] ?? 0)) * scale
            let sound = max(0, energy - Self.overSubtraction * exp(roomLog[band]))
            clean[band] = sound
            total += energy
            cleanTotal += sound
            strongest = max(strongest, sound)
            // The room after this window: a quieter candidate at once, a louder one slowly.
            roomLog[band] = candidate <= roomLog[band] ? candidate : min(candidate, roomLog[band] + riseNatsPerWindow)
        }
        guard strongest > 0, total > 0 else {
            for id in FeatureID.cleanMfccs { features[id] = 0 }
            features[.cleanCentroidHz] = 0
            features[.cleanShareDb] = Self.nothingStandsOutDb
            return
        }
        let floor = strongest * Self.dynamicRange
        var weighted: Float = 0
        for band in 0..<bands {
            cleanLog[band] = log(max(clean[band], floor))
            weighted += filters.centreHz[band] * clean[band]
        }
        filters.cepstrum(cleanLog, as: FeatureID.cleanMfccs, into: &features)
        features[.cleanCentroidHz] = weighted / cleanTotal
        features[.cleanShareDb] = max(Self.nothingStandsOutDb, 10 * log10(cleanTotal / total))
    }
}
