/// Sounds of a bedroom at night that are none of the classes the model knows, synthesised so that tests and
/// `somniq-synth bedroom-sounds` can play them and `fit` can learn them as examples of none of the classes (chimes by
/// default; `AugmentationRecipe`): a phone's ding, a sleeper's teeth grinding, someone walking across the
/// room, a car passing outside.
public enum BedroomSound: String, CaseIterable, Sendable {
    case chime
    case teethGrinding = "teeth-grinding"
    case footsteps
    case passingCar = "passing-car"

    /// In words, for names and READMEs.
    public var name: String {
        switch self {
        case .chime: "chime"
        case .teethGrinding: "teeth grinding"
        case .footsteps: "footsteps"
        case .passingCar: "passing car"
        }
    }

    /// What it is (plural) and how it is made, in words, for the model's README.
    public var described: (what: String, how: String) {
        switch self {
        case .chime: ("notification chimes", "one to three struck notes at 400–2000 Hz")
        case .teethGrinding: ("spells of teeth grinding", "runs of stick-slip clicks, or chattering taps")
        case .footsteps: ("walks of footsteps", "4–10 heel strikes 0.45–0.75 s apart")
        case .passingCar: ("passing cars", "6–20 s of road rumble and tyre hiss swelling and fading")
        }
    }

    /// The levels `fit` hears it at, dBFS RMS over the sound: a chime from a phone across the room to one on the
    /// pillow; grinding is quiet; steps from the hallway to beside the bed.
    public var trainingLevels: ClosedRange<Double> {
        switch self {
        case .chime: -45 ... -15
        case .teethGrinding: -50 ... -25
        case .footsteps: -45 ... -20
        case .passingCar: -60 ... -30
        }
    }

    /// How far over its synthesised room `fit` hears it, dB: a passing car is the room's own rumble swelling by a few
    /// decibels at night, the others stand out of it.
    public var trainingSNR: ClosedRange<Double> {
        switch self {
        case .chime, .teethGrinding, .footsteps: 10...40
        case .passingCar: 0...20
        }
    }

    /// One instance, at `levelDbfs`, from `synthesizer`'s generator.
    public func make(with synthesizer: inout SoundSynthesizer, levelDbfs: Double) -> [Double] {
        switch self {
        case .chime: synthesizer.chime(levelDbfs: levelDbfs)
        case .teethGrinding: synthesizer.teethGrinding(levelDbfs: levelDbfs)
        case .footsteps: synthesizer.footsteps(levelDbfs: levelDbfs)
        case .passingCar: synthesizer.passingCar(levelDbfs: levelDbfs)
        }
    }
}
