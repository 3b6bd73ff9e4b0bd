import Foundation
import SomniqPipeline

/// Goldens as reviewable JSON: fixed key order, one detection, alert or episode per line, times to the
/// millisecond and confidences to four decimals, so that a change shows as a short, readable diff.
public enum GoldenFormat {
    public static func render(_ golden: Golden) -> String {
        var lines = ["{", "  \"fixture\": \(quote(golden.fixture)),", "  \"model\": \(quote(golden.model)),"]
        if let error = golden.error {
            lines.append("  \"error\": {\"code\": \(quote(error.code)), \"message\": \(quote(error.message)), \"exitStatus\": \(error.exitStatus)}")
            return (lines + ["}"]).joined(separator: "\n") + "\n"
        }
        lines.append("  \"durationSeconds\": \(time(golden.durationSeconds ?? 0)),")
        if let declared = golden.declaredFrames { lines.append("  \"declaredFrames\": \(declared),") }
        lines.append("  \"windows\": \(golden.windows ?? 0),")
        lines += array("detections", (golden.detections ?? []).map {
            "{\"class\": \(quote($0.classID)), \"start\": \(time($0.start)), \"end\": \(time($0.end)), "
                + "\"peak\": \(confidence($0.peak)), \"mean\": \(confidence($0.mean))}"
        }, indent: "  ", last: false)
        let order = golden.profileOrder ?? []
        lines.append("  \"profileOrder\": [\(order.map(quote).joined(separator: ", "))],")
        lines.append("  \"profiles\": {")
        for (index, name) in order.enumerated() {
            let profile = golden.profiles?[name] ?? Golden.ProfileEntry(alerts: [], episodes: [])
            lines.append("    \(quote(name)): {")
            lines += array("alerts", profile.alerts.map {
                "{\"class\": \(quote($0.classID)), \"tier\": \(quote($0.tier)), \"kind\": \(quote($0.kind)), "
                    + "\"offset\": \(time($0.offset)), \"confidence\": \(confidence($0.confidence))}"
            }, indent: "      ", last: false)
            lines += array("episodes", profile.episodes.map {
                "{\"class\": \(quote($0.classID)), \"tier\": \(quote($0.tier)), \"severity\": \(quote($0.severity)), "
                    + "\"start\": \(time($0.start)), \"end\": \(time($0.end)), \"peak\": \(confidence($0.peak)), "
                    + "\"alerts\": \($0.alerts), \"suppressed\": \($0.suppressed)}"
            }, indent: "      ", last: true)
            lines.append(index == order.count - 1 ? "    }" : "    },")
        }
        lines.append("  }")
        return (lines + ["}"]).joined(separator: "\n") + "\n"
    }

    public static func parse(_ data: Data) throws -> Golden { try JSONDecoder().decode(Golden.self, from: data) }

    /// `"name": [` with one item a line, or `"name": []` when empty.
    static func array(_ name: String, _ items: [String], indent: String, last: Bool) -> [String] {
        let close = last ? "" : ","
        guard !items.isEmpty else { return ["\(indent)\(quote(name)): []\(close)"] }
        let body = items.enumerated().map { index, item in indent + "  " + item + (index == items.count - 1 ? "" : ",") }
        return ["\(indent)\(quote(name)): ["] + body + ["\(indent)]\(close)"]
    }

    static func time(_ value: Double) -> String { String(format: "%.3f", value) }
    static func confidence(_ value: Double) -> String { String(format: "%.4f", value) }

    static func quote(_ text: String) -> String {
        let data = try! JSONEncoder().encode(text)
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\\/", with: "/")
    }
}
