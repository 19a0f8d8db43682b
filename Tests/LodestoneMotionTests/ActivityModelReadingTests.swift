import Testing

@testable import LodestoneMotion

/// The model reader works on UTF-8 bytes (startup of every process that runs the motion stage); it must read the
/// shipped model exactly as the former `Substring` tokenizer with `Int(String)` and `Double(String)` read it.
@Suite struct ActivityModelReadingTests {
    /// The former tokenizer: lines, `#` comments cut, split on spaces, tabs and carriage returns.
    static func formerTokens(_ text: String) -> [Substring] {
        var out: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            out.append(contentsOf: content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }))
        }
        return out
    }

    @Test func theShippedModelReadsAsTheFormerReaderReadIt() throws {
        let tokens = Self.formerTokens(ActivityModelData.text)
        let model = ActivityModel.standard
        var i = tokens.firstIndex(of: "baseline")!
        i += 1
        for c in model.classes.indices {
            #expect(model.baseline[c].bitPattern == Double(String(tokens[i]))!.bitPattern)
            i += 1
        }
        #expect(tokens[i] == "trees" && Int(String(tokens[i + 1])) == model.treeCount)
        i += 2
        var node = 0
        for t in 0..<model.treeCount {
            #expect(tokens[i] == "tree" && Int(String(tokens[i + 1])) == model.treeClass[t])
            let n = Int(String(tokens[i + 2]))!
            i += 3
            for k in 0..<n {
                let root = model.treeRoot[t]
                #expect(Int(String(tokens[i])) == model.nodeFeature[node])
                #expect(Double(String(tokens[i + 1]))!.bitPattern == model.nodeThreshold[node].bitPattern)
                #expect(Int(String(tokens[i + 2]))! + root == model.nodeLeft[node])
                #expect(Int(String(tokens[i + 3]))! + root == model.nodeRight[node])
                #expect((Int(String(tokens[i + 4]))! != 0) == model.nodeMissingLeft[node])
                #expect(Double(String(tokens[i + 5]))!.bitPattern == model.nodeValue[node].bitPattern, "node \(k) of tree \(t)")
                i += 6
                node += 1
            }
        }
        #expect(i == tokens.count && node == model.nodeCount)
    }

    /// (The former reader took a CRLF file for one line, its first `#` cutting off the rest.)
    @Test func commentsTabsAndCRLFLineEndsSeparateTokens() throws {
        let names = ActivityFeatures.names
        let text =
            "# a model written by hand\r\nlodestone-activity-model\t1 # version\r\nfeatures \(names.count) "
            + names.joined(separator: "  ") + "\r\nclasses 5 stationary walk run cycle drive\nbaseline 0 -0 1e-3 +2 .5\n"
            + "trees 1\ntree 0 1\n-1 0 0 0 0 0.25#leaf\n"
        let model = try ActivityModel(text: text)
        #expect(model.treeCount == 1 && model.nodeValue == [0.25])
        #expect(model.baseline == [0, -0.0, 1e-3, 2, 0.5])
        #expect(model.baseline[1].sign == .minus)
    }

    @Test(arguments: ["1.5", "x", "99999999999999999999", "--1", ""])
    func aBadIntegerIsNamed(_ count: String) {
        do {
            _ = try ActivityModel(text: "lodestone-activity-model 1\nfeatures \(count) a")
            Issue.record("read a feature count \(count)")
        } catch {
            #expect(error.description.contains(count.isEmpty ? "a" : count), "\(error.description)")
        }
    }
}
