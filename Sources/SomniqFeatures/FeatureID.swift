/// The per-window features, in the order of a `FeatureVector`. The raw value is the name the
/// model files use. Each case documents its formula, unit and range.
///
/// Every feature is measured on the recording resampled to 8 kHz (`FeatureStream`), so over the 0–4 kHz band
/// every recording of 8 kHz or more has: it means the same at every sample rate. A feature whose band a
/// recording lacks (`requiredBandHz` above its Nyquist frequency) is NaN: missing, not silent.
///
/// Notation: `x[n]` the window's samples (mono, [-1, 1]); `P[k]` the window's mean power spectrum
/// (Welch: the average of the sixteen 1/16 s Hann-windowed sub-frame periodograms, gaps left out), `f[k]` bin
/// frequency in Hz; `e[m]` the level of 10 ms micro-block `m` in dBFS; `floor` the background
/// estimate of `noise_floor_dbfs` before this window. Levels are clamped at -120 dBFS; a window
/// below -100 dBFS ("no signal") reports 0 for every spectral shape feature. Within a window, a micro-block or
/// sub-frame below -100 dBFS is a *gap*: digital silence, which no microphone records but editors, clip collections'
/// padding and recorders' gates leave. A gap counts as the quietest room for `noise_floor_dbfs`, but the features
/// of the sound's time course and spectrum leave it out (each says how): the step into or out of digital silence
/// describes the edit, and one corpus's padding must not become what its class sounds like.
public enum FeatureID: String, CaseIterable, Sendable, Codable {
    /// `10 log10(mean x²)`, dBFS, [-120, 0]. A full-scale sine reads -3.01.
    case rmsDbfs = "rms_dbfs"
    /// `20 log10(max |x|)`, dBFS, [-120, 0].
    case peakDbfs = "peak_dbfs"
    /// `peak_dbfs - rms_dbfs`, dB, ≥ 0. 3.01 for a sine; large for clicks and impacts.
    case crestDb = "crest_db"
    /// Running background level of this recording before this window, dBFS: the 10th percentile of the
    /// window's micro-block levels, followed down at once and up at most 0.1 dB/s.
    case noiseFloorDbfs = "noise_floor_dbfs"
    /// `rms_dbfs - noise_floor_dbfs`, dB: how loud the window is against this bedroom.
    case snrDb = "snr_db"
    /// 10th-to-90th percentile spread of `e[m]` over the micro-blocks that are not gaps, dB: a steady sound is near 0,
    /// bursts are large.
    case levelRangeDb = "level_range_db"
    /// Largest rise of `e[m]` over the mean of the three micro-blocks before it, dB: impulsive onsets. Not a rise out
    /// of a gap (an edit's cut).
    case onsetStrengthDb = "onset_strength_db"
    /// Fraction of micro-blocks more than 10 dB above `floor`, [0, 1].
    case activeFraction = "active_fraction"
    /// Share of the modulation power of `e[m]` (mean removed; DFT at 1–15 Hz) at 3–8 Hz, [0, 1]:
    /// syllable-rate amplitude modulation, high for speech and laughter, low for a single smooth burst.
    /// About 0.4 for a random envelope; 0 for windows under 0.5 s. A gap's level is read as the window's mean.
    case syllabicModulation = "syllabic_modulation"
    /// `Σ f P / Σ P`, Hz. A sine's centroid is its frequency.
    case spectralCentroidHz = "spectral_centroid_hz"
    /// `sqrt(Σ (f - centroid)² P / Σ P)`, Hz.
    case spectralSpreadHz = "spectral_spread_hz"
    /// Geometric over arithmetic mean of `P[k]` from 50 Hz to 4 kHz, [0, 1]: near 1 for white noise, near 0 for tones.
    case spectralFlatness = "spectral_flatness"
    /// Frequency below which 85% of the power lies, Hz.
    case spectralRolloffHz = "spectral_rolloff_hz"
    /// Mean over consecutive sub-frames (neither a gap) of `Σ max(0, |X_t| - |X_t-1|) / Σ |X_t|`, [0, 1]: how fast the
    /// spectrum changes.
    case spectralFlux = "spectral_flux"
    /// Frequency of the largest `P[k]` above 50 Hz, Hz.
    case dominantFrequencyHz = "dominant_frequency_hz"
    /// Mean over sub-frames (not gaps) of the power within the Hann main lobe (±32 Hz) of the strongest peak above 50 Hz, over the
    /// sub-frame's total above 50 Hz, [0, 1]: near 1 for a pure tone, near 0 for noise.
    case tonality = "tonality"
    /// Fraction of sub-frames (not gaps) whose strongest peak holds at least half the sub-frame's power, [0, 1]: beeps and whistles.
    case tonalFraction = "tonal_fraction"
    /// Share of the window's loud pairs of consecutive sub-frames (neither a gap; the quieter within 12 dB of the
    /// window's loudest) whose later sub-frame, tonal enough (tonality ≥ 0.25), has its strongest peak where one or two
    /// sub-frames before had a strong peak, to within 0.5% (peaks refined between bins by a parabola through the log
    /// powers), [0, 1]; 0 without a pair. A held electronic tone (a beep, a ring, a chime's note, a buzzer alternating
    /// two tones) reads near 1, its pauses left out; a voice (a cry, a sob, a vowel) glides and trembles, and noise has
    /// no peak to hold: low (`ToneSteadiness`).
    case toneSteadiness = "tone_steadiness"
    /// Peak of the window-corrected normalised autocorrelation (from `P`, bins below 50 Hz removed) at lags for 60–500 Hz, [0, 1]:
    /// voiced speech, crying, snoring flutter, music.
    case harmonicity = "harmonicity"
    /// Frequency of that autocorrelation peak, Hz (0 when `harmonicity` is 0).
    case pitchHz = "pitch_hz"
    /// Sign changes of `x[n]` per sample of the 8 kHz analysis signal, [0, 1].
    case zeroCrossingRate = "zero_crossing_rate"
    /// Fraction of the power below 2 kHz (`Σ P`, 50 Hz–2 kHz) in 50–250 Hz, [0, 1]. The four low-band shares
    /// are taken of the power below 2 kHz so that they exist at every supported rate (4 kHz included).
    case bandRatio0To250 = "band_ratio_0_250"
    /// Fraction of the power below 2 kHz in 250–500 Hz, [0, 1].
    case bandRatio250To500 = "band_ratio_250_500"
    /// Fraction of the power below 2 kHz in 500–1000 Hz, [0, 1].
    case bandRatio500To1k = "band_ratio_500_1k"
    /// Fraction of the power below 2 kHz in 1–2 kHz, [0, 1].
    case bandRatio1kTo2k = "band_ratio_1k_2k"
    /// Fraction of `Σ P` (50 Hz–4 kHz) in 2–4 kHz, [0, 1].
    case bandRatio2kTo4k = "band_ratio_2k_4k"
    /// Share of the recording's power above the 0–4 kHz analysis band, [0, 1]: `1 − (analysis-band power / the
    /// recording's own power)`, from its own samples. An extra, not one of the classifier's common-band features:
    /// missing (NaN) where the recording has no such band (below 8.36 kHz); measured over different bands at
    /// different rates (4–8 kHz at 16 kHz, 4–22 kHz at 44.1 kHz), so the fitter never offers it.
    case bandRatio4kUp = "band_ratio_4k_up"
    /// `10 log10(Σ P below 500 Hz / Σ P above 500 Hz)`, dB, clamped to ±60.
    case lowHighRatioDb = "low_high_ratio_db"
    /// Causal context: normalised autocorrelation peak of the 0–1 kHz sub-frame level over the last 16 s, at lags of 2–8 s, [0, 1]:
    /// the breathing rhythm of snoring and loud breathing.
    case breathingPeriodicity = "breathing_periodicity"
    /// The lag of that peak, s (0 when fewer than 8 s have been heard).
    case breathingPeriodSeconds = "breathing_period_s"
    /// Causal context: during the first 3 s of a loud stretch (windows with `snr_db` ≥ 10 dB), the seconds of quiet
    /// before it (capped at 60 s); 0 otherwise. A gasp follows a silent pause.
    case precedingQuietSeconds = "preceding_quiet_s"

    /// Mel-frequency cepstral coefficients 1–12 of the window: the DCT-II (orthonormal) of the mean over sub-frames
    /// (not gaps) of `ln` energy in 24 triangular mel bands from 50 Hz to 4 kHz (the band every supported rate has, so
    /// the coefficients mean the same at 8 kHz and 48 kHz). Dimensionless; coefficient 0 (overall level) is left out.
    case mfcc1 = "mfcc_1"
    case mfcc2 = "mfcc_2"
    case mfcc3 = "mfcc_3"
    case mfcc4 = "mfcc_4"
    case mfcc5 = "mfcc_5"
    case mfcc6 = "mfcc_6"
    case mfcc7 = "mfcc_7"
    case mfcc8 = "mfcc_8"
    case mfcc9 = "mfcc_9"
    case mfcc10 = "mfcc_10"
    case mfcc11 = "mfcc_11"
    case mfcc12 = "mfcc_12"
    /// Mean over consecutive sub-frames (neither a gap) of the mean absolute change of the 24 log mel energies, nepers:
    /// how much the spectral envelope moves, high for speech and crying, low for steady noise.
    case melFlux = "mel_flux"

    /// Standard deviation over the window's sub-frames (not gaps) of cepstral coefficients 1–4: how the spectral envelope
    /// moves within the second (syllables, cries and snores change it; steady noise does not).
    case mfcc1Std = "mfcc_1_std"
    case mfcc2Std = "mfcc_2_std"
    case mfcc3Std = "mfcc_3_std"
    case mfcc4Std = "mfcc_4_std"
    /// The spectrum's shape band by band (`MelShape`). Per sub-frame (not a gap), `s[b] = ln E[b] - mean over the 24 bands
    /// of ln E`, with `E[b]` the sub-frame's energy in mel band `b` (the 24 of the cepstrum, 50 Hz–4 kHz, each floored
    /// 60 dB under the strongest): the shape with the level taken off, so the same sound louder or farther reads the same.
    /// `mel_shape_b` is its mean over the window, nepers: band `b` above (positive) or under the spectrum's mean level.
    case melShape1 = "mel_shape_1"
    case melShape2 = "mel_shape_2"
    case melShape3 = "mel_shape_3"
    case melShape4 = "mel_shape_4"
    case melShape5 = "mel_shape_5"
    case melShape6 = "mel_shape_6"
    case melShape7 = "mel_shape_7"
    case melShape8 = "mel_shape_8"
    case melShape9 = "mel_shape_9"
    case melShape10 = "mel_shape_10"
    case melShape11 = "mel_shape_11"
    case melShape12 = "mel_shape_12"
    case melShape13 = "mel_shape_13"
    case melShape14 = "mel_shape_14"
    case melShape15 = "mel_shape_15"
    case melShape16 = "mel_shape_16"
    case melShape17 = "mel_shape_17"
    case melShape18 = "mel_shape_18"
    case melShape19 = "mel_shape_19"
    case melShape20 = "mel_shape_20"
    case melShape21 = "mel_shape_21"
    case melShape22 = "mel_shape_22"
    case melShape23 = "mel_shape_23"
    case melShape24 = "mel_shape_24"
    /// Standard deviation of `s[b]` over the window's sub-frames, nepers, ≥ 0: how much band `b` moves within the
    /// second against the others (formants, a snore's flutter, a cough's burst), 0 for a steady sound.
    case melShapeStd1 = "mel_shape_std_1"
    case melShapeStd2 = "mel_shape_std_2"
    case melShapeStd3 = "mel_shape_std_3"
    case melShapeStd4 = "mel_shape_std_4"
    case melShapeStd5 = "mel_shape_std_5"
    case melShapeStd6 = "mel_shape_std_6"
    case melShapeStd7 = "mel_shape_std_7"
    case melShapeStd8 = "mel_shape_std_8"
    case melShapeStd9 = "mel_shape_std_9"
    case melShapeStd10 = "mel_shape_std_10"
    case melShapeStd11 = "mel_shape_std_11"
    case melShapeStd12 = "mel_shape_std_12"
    case melShapeStd13 = "mel_shape_std_13"
    case melShapeStd14 = "mel_shape_std_14"
    case melShapeStd15 = "mel_shape_std_15"
    case melShapeStd16 = "mel_shape_std_16"
    case melShapeStd17 = "mel_shape_std_17"
    case melShapeStd18 = "mel_shape_std_18"
    case melShapeStd19 = "mel_shape_std_19"
    case melShapeStd20 = "mel_shape_std_20"
    case melShapeStd21 = "mel_shape_std_21"
    case melShapeStd22 = "mel_shape_std_22"
    case melShapeStd23 = "mel_shape_std_23"
    case melShapeStd24 = "mel_shape_std_24"
    /// Mean over consecutive sub-frames (neither a gap) of `|s_t[b] - s_t-1[b]|`, nepers, ≥ 0: how fast band `b`
    /// changes from one sixteenth of a second to the next (`mel_flux` is the mean of these over the bands).
    case melShapeDelta1 = "mel_shape_delta_1"
    case melShapeDelta2 = "mel_shape_delta_2"
    case melShapeDelta3 = "mel_shape_delta_3"
    case melShapeDelta4 = "mel_shape_delta_4"
    case melShapeDelta5 = "mel_shape_delta_5"
    case melShapeDelta6 = "mel_shape_delta_6"
    case melShapeDelta7 = "mel_shape_delta_7"
    case melShapeDelta8 = "mel_shape_delta_8"
    case melShapeDelta9 = "mel_shape_delta_9"
    case melShapeDelta10 = "mel_shape_delta_10"
    case melShapeDelta11 = "mel_shape_delta_11"
    case melShapeDelta12 = "mel_shape_delta_12"
    case melShapeDelta13 = "mel_shape_delta_13"
    case melShapeDelta14 = "mel_shape_delta_14"
    case melShapeDelta15 = "mel_shape_delta_15"
    case melShapeDelta16 = "mel_shape_delta_16"
    case melShapeDelta17 = "mel_shape_delta_17"
    case melShapeDelta18 = "mel_shape_delta_18"
    case melShapeDelta19 = "mel_shape_delta_19"
    case melShapeDelta20 = "mel_shape_delta_20"
    case melShapeDelta21 = "mel_shape_delta_21"
    case melShapeDelta22 = "mel_shape_delta_22"
    case melShapeDelta23 = "mel_shape_delta_23"
    case melShapeDelta24 = "mel_shape_delta_24"
    /// Per octave `k` (62.5–125 Hz, 125–250, … 2–4 kHz; `OctaveFlatness`), the mean over sub-frames (not gaps) of
    /// `ln(geometric mean / arithmetic mean)` of the sub-frame's power in the octave's bins (each read over a floor 60 dB
    /// under the sub-frame's strongest bin), nepers, [-13.8, 0]: near 0 where
    /// the octave is noise (about -0.58 for a noise's single periodogram, whose bins scatter), far below for a tone
    /// or harmonics standing over their valleys.
    case octaveFlatness1 = "octave_flatness_1"
    case octaveFlatness2 = "octave_flatness_2"
    case octaveFlatness3 = "octave_flatness_3"
    case octaveFlatness4 = "octave_flatness_4"
    case octaveFlatness5 = "octave_flatness_5"
    case octaveFlatness6 = "octave_flatness_6"
    /// The sound with the room taken off. Per mel band `b` (the 24 of the cepstrum), `E[b]` is the window's mean
    /// energy and `N[b]` the room's in that band before this window: the window's quietest sub-frame (not a gap) in
    /// the band, followed down at once and up at most 0.1 dB/s over the recording (as `noise_floor_dbfs`). The sound's energy
    /// is `S[b] = max(E[b] - 2 N[b], 0)` (twice the quietest sub-frame: the room's mean, not its quietest moment),
    /// floored 30 dB under its strongest band. `clean_mfcc_k` is the DCT of `ln S` as `mfcc_k` is of `ln E`: the
    /// sound's spectral envelope, which a fan or road noise under it moves far less than it moves `mfcc_k`.
    case cleanMfcc1 = "clean_mfcc_1"
    case cleanMfcc2 = "clean_mfcc_2"
    case cleanMfcc3 = "clean_mfcc_3"
    case cleanMfcc4 = "clean_mfcc_4"
    case cleanMfcc5 = "clean_mfcc_5"
    case cleanMfcc6 = "clean_mfcc_6"
    /// `Σ f[b] S[b] / Σ S[b]` over the bands' centre frequencies, Hz: where the sound (not the room) lies. 0 when
    /// no band stands out of the room.
    case cleanCentroidHz = "clean_centroid_hz"
    /// `10 log10(Σ S / Σ E)`, dB, [-30, 0]: how much of the window's energy is the sound rather than the room
    /// (-30 when nothing stands out). A sound 13 dB over a fan reads about -0.1; a steady room alone about -3, as its
    /// quietest moments lie well under its mean.
    case cleanShareDb = "clean_share_db"

    /// Cycles in a row of a standard fire, smoke or CO alarm signal (temporal-three, temporal-four, or a piezo's steady
    /// beeping, three beeps a cycle) heard up to the window's end, causal; 0 once the pattern's longest silence has
    /// passed. A count, [0, ∞). See `AlarmPattern`.
    case alarmPatternCycles = "alarm_pattern_cycles"

    /// Causal context (`ContextSummary`): the mean and standard deviation of a feature over the window and the windows of
    /// the 3 s before it whose level lies within 10 dB of its own, in the feature's unit. NaN where the feature is missing.
    case contextHarmonicityMean = "ctx_harmonicity_mean"
    case contextHarmonicityStd = "ctx_harmonicity_std"
    case contextPitchMean = "ctx_pitch_hz_mean"
    case contextPitchStd = "ctx_pitch_hz_std"
    case contextCrestMean = "ctx_crest_db_mean"
    case contextCrestStd = "ctx_crest_db_std"
    case contextLevelRangeMean = "ctx_level_range_db_mean"
    case contextLevelRangeStd = "ctx_level_range_db_std"
    case contextOnsetMean = "ctx_onset_strength_db_mean"
    case contextOnsetStd = "ctx_onset_strength_db_std"
    case contextSpectralFluxMean = "ctx_spectral_flux_mean"
    case contextSpectralFluxStd = "ctx_spectral_flux_std"
    case contextMelFluxMean = "ctx_mel_flux_mean"
    case contextMelFluxStd = "ctx_mel_flux_std"
    case contextFlatnessMean = "ctx_spectral_flatness_mean"
    case contextFlatnessStd = "ctx_spectral_flatness_std"
    case contextCentroidMean = "ctx_spectral_centroid_hz_mean"
    case contextCentroidStd = "ctx_spectral_centroid_hz_std"
    case contextSyllabicMean = "ctx_syllabic_modulation_mean"
    case contextSyllabicStd = "ctx_syllabic_modulation_std"
    case contextLowBandMean = "ctx_band_ratio_0_250_mean"
    case contextLowBandStd = "ctx_band_ratio_0_250_std"
    case contextCleanMfcc1Mean = "ctx_clean_mfcc_1_mean"
    case contextCleanMfcc1Std = "ctx_clean_mfcc_1_std"
    case contextCleanMfcc2Mean = "ctx_clean_mfcc_2_mean"
    case contextCleanMfcc2Std = "ctx_clean_mfcc_2_std"
    case contextCleanShareMean = "ctx_clean_share_db_mean"
    case contextCleanShareStd = "ctx_clean_share_db_std"
    /// Causal context: the standard deviation of `rms_dbfs` over the window and the 6 before it, dB: how the level moves
    /// over 4 s (a rhythm of breaths or barks, or a steady sound).
    case contextLevelStdDb = "ctx_level_std_db"
    /// Causal context: the share of the window and the 6 before it within 10 dB of its level, [1/7, 1]: how long the sound has
    /// lasted.
    case contextLevelShare = "ctx_level_share"

    /// The cepstral coefficients in order.
    public static let mfccs: [FeatureID] = [.mfcc1, .mfcc2, .mfcc3, .mfcc4, .mfcc5, .mfcc6, .mfcc7, .mfcc8, .mfcc9, .mfcc10, .mfcc11, .mfcc12]
    /// The spreads of the first cepstral coefficients, in order.
    public static let mfccSpreads: [FeatureID] = [.mfcc1Std, .mfcc2Std, .mfcc3Std, .mfcc4Std]
    /// The mel bands' mean shapes, spreads and changes, band 1 (the lowest) first.
    public static let melShapes: [FeatureID] = (1...24).map { FeatureID(rawValue: "mel_shape_\($0)")! }
    public static let melShapeSpreads: [FeatureID] = (1...24).map { FeatureID(rawValue: "mel_shape_std_\($0)")! }
    public static let melShapeChanges: [FeatureID] = (1...24).map { FeatureID(rawValue: "mel_shape_delta_\($0)")! }
    /// The octaves' flatness, the lowest octave first.
    public static let octaveFlatnesses: [FeatureID] = [.octaveFlatness1, .octaveFlatness2, .octaveFlatness3, .octaveFlatness4,
                                                      .octaveFlatness5, .octaveFlatness6]
    /// The cepstral coefficients of the sound with the room taken off, in order.
    public static let cleanMfccs: [FeatureID] = [.cleanMfcc1, .cleanMfcc2, .cleanMfcc3, .cleanMfcc4, .cleanMfcc5, .cleanMfcc6]

    /// The spectrum's shape band by band: `melShapes`, `melShapeSpreads`, `melShapeChanges`, `octaveFlatnesses` (78).
    public static let bandShapes = Set(melShapes + melShapeSpreads + melShapeChanges + octaveFlatnesses)

    /// The features a database keeps of each window: all but the spectrum's shape band by band (`bandShapes`), which
    /// only a classifier reads; their 78 floats a window would grow a night's database by two thirds.
    public static let stored: [FeatureID] = allCases.filter { !bandShapes.contains($0) }

    /// Appends the `stored` features of one whole row (`FeatureID` order) to `kept`.
    public static func appendStored(of row: ArraySlice<Float>, to kept: inout [Float]) {
        for id in stored { kept.append(row[row.startIndex + id.index]) }
    }

    /// Position in a `FeatureVector`: the case's position in this declaration. A Swift enum without payloads
    /// is stored as its case's ordinal, so this is one load, not a hash of the name (features are read and
    /// written by ID dozens of times a window); a test checks it against `allCases` for every case.
    @inline(__always)
    public var index: Int { Int(unsafeBitCast(self, to: UInt8.self)) }

    public static let count = allCases.count

    /// The top of the band the feature's definition reads, Hz: a recording whose Nyquist frequency falls short of
    /// it (by more than `FeatureStream.bandTolerance`) cannot give the feature. 0 for level, time-course and
    /// pitch features, which any supported rate gives (as closely as its band allows).
    public var requiredBandHz: Float {
        if let summary = ContextSummary.summarised.first(where: { $0.mean == self || $0.spread == self }) {
            return summary.source.requiredBandHz
        }
        return switch self {
        case .rmsDbfs, .peakDbfs, .crestDb, .noiseFloorDbfs, .snrDb, .levelRangeDb, .onsetStrengthDb, .activeFraction,
             .syllabicModulation, .harmonicity, .pitchHz, .breathingPeriodicity, .breathingPeriodSeconds, .precedingQuietSeconds,
             .alarmPatternCycles, .contextLevelStdDb, .contextLevelShare:
            0
        case .bandRatio0To250, .bandRatio250To500, .bandRatio500To1k, .bandRatio1kTo2k,
             .octaveFlatness1, .octaveFlatness2, .octaveFlatness3, .octaveFlatness4, .octaveFlatness5:
            2_000
        case .bandRatio4kUp:
            4_400
        default:
            4_000
        }
    }
}

/// One window's features, indexed by `FeatureID`.
public struct FeatureVector: Equatable, Sendable {
    public var values: [Float]

    public init() { values = [Float](repeating: 0, count: FeatureID.count) }

    public init(values: [Float]) {
        precondition(values.count == FeatureID.count, "a feature vector has \(FeatureID.count) values")
        self.values = values
    }

    public subscript(_ id: FeatureID) -> Float {
        get { values[id.index] }
        set { values[id.index] = newValue }
    }
}
