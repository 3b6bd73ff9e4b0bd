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
    /// The room's level per band, dBFS of its mel energy, tracked as the broadband background is.
    private var room: [NoiseFloorTracker]
    private var clean: [Float]
    private var cleanLog: [Float]

    init(filters: MelFilterbank, bands: Int) {
        self.filters = filters
        self.bands = bands
        room = [NoiseFloorTracker](repeating: NoiseFloorTracker(), count: bands)
        clean = [Float](repeating: 0, count: bands)
        cleanLog = [Float](repeating: 0, count: bands)
    }

    /// Writes the family's features for the window of blocks `a` and `b`, whose sub-frames with signal number
    /// `1 / scale`, then takes the window's quietest sub-frames as the room's candidate (a gap of digital silence says
    /// nothing of the room).
    func measure(_ a: BlockSummary, _ b: BlockSummary?, scale: Float, into features: inout FeatureVector) {
        var total: Float = 0, cleanTotal: Float = 0, strongest: Float = 0
        for band in 0..<bands {
            let quietest = min(a.melEnergyMin[band], b?.melEnergyMin[band] ?? .greatestFiniteMagnitude)
            let candidate = 10 * log10(max(quietest, 1e-12))
            // The room before this window (the window's own quietest moment in the first), then this window offered.
            let roomDbfs = room[band].floorDbfs ?? candidate
            room[band].update(candidateDbfs: candidate)
            let energy = (a.melEnergySum[band] + (b?.melEnergySum[band] ?? 0)) * scale
            let sound = max(0, energy - Self.overSubtraction * pow(10, roomDbfs / 10))
            clean[band] = sound
            total += energy
            cleanTotal += sound
            strongest = max(strongest, sound)
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
