import Foundation

/// The WMM reference files, read from `../shared/datasets/wmm/` relative to the package root (located from
/// this file's path, so the tests run from any working directory).
enum WMMDataset {
    static let directory: URL = URL(fileURLWithPath: #filePath)
        .resolvingSymlinksInPath()
        .deletingLastPathComponent() // LodestoneGeomagnetismTests
        .deletingLastPathComponent() // Tests
        .deletingLastPathComponent() // package root
        .appendingPathComponent("../shared/datasets/wmm", isDirectory: true)
        .standardizedFileURL

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    static func text(_ name: String) throws -> String {
        String(decoding: try bytes(name), as: UTF8.self)
    }

    /// Rows of whitespace-separated fields, `#` comment lines and blank lines skipped. `NaN` stays a string.
    static func rows(_ name: String) throws -> [[String]] {
        try text(name).split(separator: "\n").compactMap { line in
            let t = line.trimmingCharacters(in: .whitespaces)
            if t.isEmpty || t.hasPrefix("#") { return nil }
            return t.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        }
    }
}
