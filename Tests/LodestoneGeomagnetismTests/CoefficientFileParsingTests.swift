import LodestoneGeomagnetism
import Testing

/// The coefficient-file parser: whitespace-tolerant, strict about content, errors naming the line.
@Suite struct CoefficientFileParsingTests {
    let original = WorldMagneticModel.wmm2025CoefficientFileText
    var lines: [String] { original.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }

    func replacing(line number: Int, with text: String?) -> String {
        var l = lines
        if let text { l[number - 1] = text } else { l.remove(at: number - 1) }
        return l.joined(separator: "\n")
    }

    func parseError(_ text: String) -> WMMError? {
        do {
            _ = try WorldMagneticModel(coefficientFileText: text)
            return nil
        } catch {
            return error
        }
    }

    func sameField(_ a: WorldMagneticModel, _ b: WorldMagneticModel) throws -> Bool {
        let x = try a.elements(latitudeDeg: 33, longitudeDeg: -117, heightKm: 0.2, decimalYear: 2028.3)
        let y = try b.elements(latitudeDeg: 33, longitudeDeg: -117, heightKm: 0.2, decimalYear: 2028.3)
        return x == y
    }

    @Test func headerWhitespaceAndLineEndingsDoNotMatter() throws {
        // NCEI's zip copy has 5 spaces in the header instead of 8 (README); tabs and CR-LF must also parse.
        let fiveSpaces = replacing(line: 1, with: "    2025.0            WMM-2025     11/13/2024")
        let tabs = original.replacingAll(" ", with: "\t")
        let crlf = original.replacingAll("\n", with: "\r\n")
        let blankLines = "\n\n" + original.replacingAll("\n  5  0", with: "\n\n  5  0")
        for text in [fiveSpaces, tabs, crlf, blankLines] {
            let m = try WorldMagneticModel(coefficientFileText: text)
            #expect(try sameField(m, .wmm2025))
            #expect(m.modelName == "WMM-2025")
        }
    }

    @Test func malformedFilesNameTheLine() {
        let cases: [(String, WMMError)] = [
            ("", .emptyCoefficientFile),
            ("\n  \n", .emptyCoefficientFile),
            (replacing(line: 1, with: "2025.0 WMM-2025"), .malformedHeader(line: 1, text: "2025.0 WMM-2025")),
            (replacing(line: 1, with: "2025.0 IGRF-14 11/13/2024"), .malformedHeader(line: 1, text: "2025.0 IGRF-14 11/13/2024")),
            (replacing(line: 1, with: "abc WMM-2025 11/13/2024"), .malformedHeader(line: 1, text: "abc WMM-2025 11/13/2024")),
            (
                replacing(line: 1, with: "2025.0 WMM-2025 13/45/2024"),
                .malformedHeader(line: 1, text: "2025.0 WMM-2025 13/45/2024")
            ),
            (
                replacing(line: 5, with: "  2  1    2951.1   -3133.6       -5.2"),
                .malformedCoefficientRow(line: 5, text: "  2  1    2951.1   -3133.6       -5.2")
            ),
            (
                replacing(line: 5, with: "  2  1    29x1.1   -3133.6       -5.2      -27.7"),
                .malformedCoefficientRow(line: 5, text: "  2  1    29x1.1   -3133.6       -5.2      -27.7")
            ),
            (
                replacing(line: 5, with: "  2  1    nan   -3133.6       -5.2      -27.7"),
                .malformedCoefficientRow(line: 5, text: "  2  1    nan   -3133.6       -5.2      -27.7")
            ),
            (
                replacing(line: 5, with: "  2  2    2951.1   -3133.6       -5.2      -27.7"),
                .unexpectedDegreeOrder(line: 5, expectedDegree: 2, expectedOrder: 1, foundDegree: 2, foundOrder: 2)
            ),
            (
                replacing(line: 5, with: nil),
                .unexpectedDegreeOrder(line: 5, expectedDegree: 2, expectedOrder: 1, foundDegree: 2, foundOrder: 2)
            ),
            (lines.prefix(40).joined(separator: "\n"), .truncatedCoefficientFile(line: 40, rowsRead: 39)),
            (
                lines.prefix(40).joined(separator: "\n") + "\n" + String(repeating: "9", count: 48),
                .truncatedCoefficientFile(line: 41, rowsRead: 39)
            ),
            (lines.prefix(91).joined(separator: "\n"), .missingEndMarker(line: 92, text: nil)),
            (
                lines.prefix(91).joined(separator: "\n") + "\n 13  0 1 2 3 4\n",
                .missingEndMarker(line: 92, text: " 13  0 1 2 3 4")
            )
        ]
        for (text, expected) in cases {
            #expect(parseError(text) == expected)
        }
        #expect(parseError(original) == nil)
    }

    @Test func errorDescriptionsSayWhereAndWhat() {
        let d = WMMError.unexpectedDegreeOrder(line: 5, expectedDegree: 2, expectedOrder: 1, foundDegree: 2, foundOrder: 2)
            .description
        #expect(d.contains("line 5") && d.contains("expected degree 2 order 1"))
        #expect(
            WMMError.dateOutsideValidity(decimalYear: 2031, validFrom: 2024.87, validUntil: 2030).description
                .contains("2031"))
    }
}

extension String {
    /// Every occurrence of `target` replaced (no Foundation needed for the model; tests keep to the stdlib too).
    func replacingAll(_ target: String, with replacement: String) -> String {
        var result = ""
        var rest = self[...]
        while let r = rest.firstRange(of: target) {
            result += rest[..<r.lowerBound] + replacement
            rest = rest[r.upperBound...]
        }
        return result + rest
    }
}
