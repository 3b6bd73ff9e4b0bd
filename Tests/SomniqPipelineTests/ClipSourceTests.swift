import Foundation
import SomniqLabelledAudio
import Testing

/// A class, so that each test's folder is removed when the test ends.
@Suite final class ClipSourceTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("clip-source-\(UUID().uuidString)").path

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    func manifest(_ text: String) throws -> String {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/MANIFEST.tsv"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func aManifestsGroupAndCategoryAreRead() throws {
        let path = try manifest("""
            path\tlabel\tsource\tgroup\torig_label
            other/a.flac\tother\tesc\tfreesound:17\tscreaming
            other/b_12345_x.wav\tother\tesc\t\t
            /abs/c.wav\tcough\tcos\tcoswara:p1\tcough-heavy

            """)
        let clips = try ClipSource.load(path)
        #expect(clips.map(\.label) == ["other", "other", "cough"])
        #expect(clips.map(\.detail) == ["screaming", nil, "cough-heavy"])
        #expect(clips.map(\.resolvedGroup) == ["freesound:17", "12345", "coswara:p1"],
                "the manifest's group, else the one the file name shows (a Freesound id)")
        #expect(clips[0].path == (path as NSString).deletingLastPathComponent + "/other/a.flac")
        #expect(clips[2].path == "/abs/c.wav" && clips[2].source == "cos")
    }

    @Test func aManifestWithoutThoseColumnsReadsAsBefore() throws {
        let clips = try ClipSource.load(try manifest("path\tlabel\nx/1.wav\tsnoring\n"))
        #expect(clips.map(\.label) == ["snoring"] && clips[0].detail == nil && clips[0].group == nil && clips[0].resolvedGroup == "1")
    }
}
