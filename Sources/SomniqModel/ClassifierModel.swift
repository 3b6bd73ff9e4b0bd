import SomniqFeatures

/// A rule-based classifier as stored in `model.json`: versioned, human-readable data.
public struct ClassifierModel: Codable, Equatable, Sendable {
    public static let format = "somniq-model"
    /// 2: a boosted score's trees are one string each (`ScoreTree.notation`); 1 (still read): nested objects.
    public static let supportedFormatVersion = 2
    static let oldestFormatVersion = 1

    public var format: String
    public var formatVersion: Int
    public var name: String
    /// The model's own version, stored with every analysis made with it.
    public var version: String
    public var description: String
    /// Per-window confidences at or above this are stored as `detections` rows (all are kept in `windows`).
    public var detectionFloor: Float
    public var classes: [SoundClassDefinition]

    public init(name: String, version: String, description: String = "", detectionFloor: Float = 0.2,
                classes: [SoundClassDefinition]) {
        format = Self.format
        formatVersion = Self.supportedFormatVersion
        self.name = name
        self.version = version
        self.description = description
        self.detectionFloor = detectionFloor
        self.classes = classes
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case format, formatVersion, name, version, description, detectionFloor, classes
    }

    /// The most classes a model may have: every class is scored in every window (the default has 21; a model of 20,000
    /// took 138 s over a 4-minute night).
    public static let maximumClasses = 256

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        (format, formatVersion) = try container.decodeFormat(.format, .formatVersion, expected: Self.format,
                                                             supportedVersion: Self.supportedFormatVersion,
                                                             oldestVersion: Self.oldestFormatVersion)
        name = try container.decode(String.self, forKey: .name)
        version = try container.decode(String.self, forKey: .version)
        description = try container.decodeIfPresent(String.self, forKey: .description) ?? ""
        detectionFloor = try container.decode(Float.self, forKey: .detectionFloor)
        guard detectionFloor > 0, detectionFloor < 1 else {
            throw DecodingError.dataCorruptedError(forKey: .detectionFloor, in: container,
                debugDescription: "detectionFloor must lie in (0, 1)")
        }
        classes = try container.decode([SoundClassDefinition].self, forKey: .classes)
        guard !classes.isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: .classes, in: container, debugDescription: "a model needs classes")
        }
        guard classes.count <= Self.maximumClasses else {
            throw DecodingError.dataCorruptedError(forKey: .classes, in: container,
                debugDescription: "a model has at most \(Self.maximumClasses) classes, this one \(classes.count); every class is "
                    + "scored in every window, so the analysis's time grows with them (merge classes, or split the model)")
        }
        var seen = Set<String>()
        for definition in classes where !seen.insert(definition.id).inserted {
            throw DecodingError.dataCorruptedError(forKey: .classes, in: container,
                debugDescription: "class \"\(definition.id)\" is defined twice")
        }
        for definition in classes {
            for claimed in definition.events?.claims ?? [] where !seen.contains(claimed) || claimed == definition.id {
                throw DecodingError.dataCorruptedError(forKey: .classes, in: container,
                    debugDescription: "class \"\(definition.id)\" claims \"\(claimed)\", which is not another class of this model")
            }
            for paused in definition.endsPauseIn?.classes ?? [] where !seen.contains(paused) || paused == definition.id {
                throw DecodingError.dataCorruptedError(forKey: .classes, in: container,
                    debugDescription: "class \"\(definition.id)\" ends a pause in \"\(paused)\", which is not another class of this model")
            }
        }
    }

    /// Written always in this build's format (trees as notation), whichever version the model was read from.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(format, forKey: .format)
        try container.encode(Self.supportedFormatVersion, forKey: .formatVersion)
        try container.encode(name, forKey: .name)
        try container.encode(version, forKey: .version)
        try container.encode(description, forKey: .description)
        try container.encode(detectionFloor, forKey: .detectionFloor)
        try container.encode(classes, forKey: .classes)
    }

    /// Class identifiers in model order: the column order of every confidence vector.
    public var classIDs: [String] { classes.map(\.id) }

    /// The model as it chooses a whole clip's class: each score read through its clip calibration where it has one
    /// (`PointsScore.clipCalibration`); what `classify` and `evaluate --clips` analyse with. The alerts keep `self`.
    public var choosingClips: ClassifierModel {
        var model = self
        for index in model.classes.indices {
            guard let clip = model.classes[index].score?.clipCalibration else { continue }
            model.classes[index].score!.calibration = clip
        }
        return model
    }

    /// Every feature the model's classes read: their conditions, rule paths, backstops and trees. An analysis for this
    /// model may leave the others unmeasured (`FeatureStream`'s `bandShapes`).
    public var readFeatures: Set<FeatureID> {
        classes.reduce(into: []) { features, definition in
            let conditions = definition.all + definition.any + definition.none + definition.never + definition.always
                + definition.paths.flatMap(\.all)
                + (definition.backstop.map { $0.all + $0.any + $0.none } ?? [])
            features.formUnion(conditions.map(\.feature))
            for tree in definition.score?.trees ?? [] { tree.collectFeatures(into: &features) }
        }
    }
}
