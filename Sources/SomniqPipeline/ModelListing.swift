import SomniqFeatures
import SomniqModel

/// The `classes` and `profiles` listings.
public enum ModelListing {
    public static func classesTable(_ bundle: ModelBundle) -> String {
        let measured = !bundle.quality.isEmpty
        var table = TextTable(headers: ["class", "tier", "status", "max"] + (measured ? ["clips (sources)", "heard: P / R", "new sources: P / R"] : [])
                                  + ["covers", "description"])
        for definition in bundle.classifier.classes {
            var row = [definition.id, definition.tier.rawValue, definition.status.rawValue, Formatting.fixed(Double(definition.maxConfidence), 2)]
            if measured {
                if let quality = bundle.quality[definition.id] {
                    row += ["\(quality.clips) (\(quality.sources))", shares(quality.precision, quality.recall),
                            shares(quality.newSourcePrecision, quality.newSourceRecall)]
                } else {
                    row += ["", "", ""]
                }
            }
            table.append(row + [definition.covers, definition.description])
        }
        var text = "model \(bundle.classifier.name) \(bundle.classifier.version) (\(bundle.location))\n" + table.render()
        if measured {
            text += "heard: of the held-out clips called the class, the share that were it (P), and of its clips, the share called it (R), "
                + "each scored by a model fitted without its recording (grouped 5-fold); new sources: the same with each source "
                + "(corpus, recorder) left out of the fit, what to expect of recordings unlike any it learnt from. From the model's "
                + "report card (\(ClassQuality.fileName); docs/classifier.md).\n"
        }
        return text
    }

    /// "0.789 / 0.845" (as the card prints them), a precision never defined (no clip called the class) as "—".
    private static func shares(_ precision: Double?, _ recall: Double) -> String {
        "\(precision.map { Formatting.fixed($0, 3) } ?? "—") / \(Formatting.fixed(recall, 3))"
    }

    public static func classesJSON(_ bundle: ModelBundle) throws -> String {
        struct HeldOut: Encodable {
            var clips: Int, sources: Int, precision: Double?, recall: Double, newSourcePrecision: Double?, newSourceRecall: Double
        }
        struct Entry: Encodable {
            var id: String, tier: String, status: String, maxConfidence: Float, covers: String, description: String, heldOut: HeldOut?
        }
        struct Listing: Encodable {
            var model: String, version: String, classes: [Entry]
        }
        return try JSONOutput.encode(Listing(
            model: bundle.classifier.name, version: bundle.classifier.version,
            classes: bundle.classifier.classes.map {
                Entry(id: $0.id, tier: $0.tier.rawValue, status: $0.status.rawValue, maxConfidence: $0.maxConfidence,
                      covers: $0.covers, description: $0.description,
                      heldOut: bundle.quality[$0.id].map {
                          HeldOut(clips: $0.clips, sources: $0.sources, precision: $0.precision, recall: $0.recall,
                                  newSourcePrecision: $0.newSourcePrecision, newSourceRecall: $0.newSourceRecall)
                      })
            }))
    }

    public static func profilesTable(_ bundle: ModelBundle, rules showRules: Bool) -> String {
        var table = TextTable(headers: ["profile", "uncertainty", "on", "off", "debounce s", "cooldown s", "description"],
                              alignments: [.left, .right, .right, .right, .right, .right, .left])
        for profile in bundle.profiles.profiles {
            let name = profile.name + (profile.name == bundle.profiles.defaultProfile ? " (default)" : "")
            table.append([name, Formatting.fixed(profile.uncertainty, 2), Formatting.fixed(profile.on, 2),
                          Formatting.fixed(profile.off, 2), Formatting.fixed(profile.debounceSec, 1),
                          Formatting.fixed(profile.cooldownSec, 1), profile.description])
        }
        var text = "profiles \(bundle.profiles.version), strictest first\n" + table.render()
        guard showRules else { return text }
        for profile in bundle.profiles.profiles {
            var ruleTable = TextTable(
                headers: ["class", "tier", "uncert", "on", "off", "debounce", "cooldown", "smoothing", "window s", "window thr"],
                alignments: [.left, .left, .right, .right, .right, .right, .right, .left, .right, .right])
            for rule in bundle.rules(for: profile, frameHz: AnalysisGrid.frameHz).compactMap({ $0 }) {
                ruleTable.append([rule.soundClass, rule.tier.rawValue, Formatting.fixed(rule.uncertainty, 2),
                                  Formatting.fixed(rule.on, 2), Formatting.fixed(rule.off, 2),
                                  Formatting.fixed(rule.debounceSec, 2), Formatting.fixed(rule.cooldownSec, 1),
                                  rule.useWindowMean ? "mean" : "ema", Formatting.fixed(rule.windowSec, 1),
                                  Formatting.fixed(rule.windowThresh, 2)])
            }
            text += "\nrules under \(profile.name)\n" + ruleTable.render(indent: "  ")
        }
        return text
    }

    public static func profilesJSON(_ bundle: ModelBundle) throws -> String {
        struct Entry: Encodable {
            var profile: SensitivityProfile
            var rules: [AlertRule]
        }
        struct Listing: Encodable {
            var version: String, defaultProfile: String, profiles: [Entry]
        }
        return try JSONOutput.encode(Listing(
            version: bundle.profiles.version, defaultProfile: bundle.profiles.defaultProfile,
            profiles: bundle.profiles.profiles.map {
                Entry(profile: $0, rules: bundle.rules(for: $0, frameHz: AnalysisGrid.frameHz).compactMap { $0 })
            }))
    }
}
