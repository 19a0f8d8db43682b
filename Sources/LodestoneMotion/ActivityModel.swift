import LodestoneCore
import RealModule

/// A trained activity model: gradient-boosted decision trees over `ActivityFeatures`, one tree per class per
/// boosting round, scores turned into probabilities by a softmax (multinomial deviance; Friedman, "Greedy
/// function approximation: a gradient boosting machine", Ann. Statist. 29(5), 2001, §4.6). This is the
/// structure scikit-learn's `HistGradientBoostingClassifier` trains; `benchmarks/accuracy/activity/train.py`
/// trains one and writes it in the text format below.
///
/// The shipped model is `ActivityModel.standard`, compiled in from generated Swift source
/// (`ActivityModelData.swift`) rather than loaded as a bundle resource: the `lodestone` binary is then
/// self-contained and can be copied to a board alone (a SwiftPM resource bundle must sit beside the binary,
/// and reading it needs Foundation in this target). Another model (say, one fold of a cross-validation) is
/// read from a file with `init(text:)`.
///
/// Text format (whitespace-separated tokens, `#` comments):
/// ```
/// lodestone-activity-model 1
/// features <F> <feature names…>
/// classes 5 stationary walk run cycle drive
/// baseline <5 raw scores>
/// trees <T>
/// tree <class index> <node count>
/// <feature index or -1 for a leaf> <threshold> <left> <right> <missing goes left 0|1> <leaf value>   (per node)
/// ```
/// A sample goes left when its feature is ≤ the threshold, or when it is missing (NaN) and the node says so.
public struct ActivityModel: Sendable, Hashable {
    /// Names of the features, in order (must equal `ActivityFeatures.names`).
    public let featureNames: [String]
    /// The classes scored, in output order.
    public let classes: [MotionActivity.Kind]
    let baseline: [Double]
    let treeClass: [Int]
    let treeRoot: [Int]
    let nodeFeature: [Int]
    let nodeThreshold: [Double]
    let nodeLeft: [Int]
    let nodeRight: [Int]
    let nodeMissingLeft: [Bool]
    let nodeValue: [Double]

    /// Number of trees.
    public var treeCount: Int { treeRoot.count }
    /// Number of nodes over all trees.
    public var nodeCount: Int { nodeFeature.count }

    /// Why a model text could not be read: what and where.
    public struct FormatError: Error, Sendable, Hashable, CustomStringConvertible {
        /// Token index (0-based) where reading failed, and what was wrong.
        public var token: Int
        public var problem: String
        /// One line: where and what.
        public var description: String { "activity model, token \(token + 1): \(problem)" }
    }

    /// Reads a model in the text format above. Throws on any inconsistency (wrong magic or version, feature
    /// names that differ from `ActivityFeatures.names`, child indices outside their tree, a truncated file).
    public init(text: String) throws(FormatError) {
        var reader = TokenReader(text: text)
        guard !reader.isAtEnd, try reader.word() == "lodestone-activity-model", try reader.int() == 1 else {
            throw FormatError(token: 0, problem: "not a lodestone-activity-model version 1 file")
        }
        try reader.expect("features")
        let featureCount = try reader.int()
        var names: [String] = []
        for _ in 0..<max(0, featureCount) { names.append(try reader.word()) }
        guard names == ActivityFeatures.names else {
            throw FormatError(
                token: reader.index,
                problem: "its features (\(names.count)) are not this build's "
                    + "\(ActivityFeatures.names.count) features \(ActivityFeatures.names.prefix(3).joined(separator: ", "))…; "
                    + "retrain it with benchmarks/accuracy/activity/train.py")
        }
        try reader.expect("classes")
        let classCount = try reader.int()
        var classes: [MotionActivity.Kind] = []
        for _ in 0..<max(0, classCount) {
            let w = try reader.word()
            guard let k = MotionActivity.Kind(rawValue: w), k != .unknown else {
                throw FormatError(token: reader.index - 1, problem: "unknown class \"\(w)\"")
            }
            classes.append(k)
        }
        guard !classes.isEmpty else { throw FormatError(token: reader.index, problem: "no classes") }
        try reader.expect("baseline")
        var baseline: [Double] = []
        for _ in classes { baseline.append(try reader.double()) }
        try reader.expect("trees")
        let treeCount = try reader.int()
        var treeClass: [Int] = [], treeRoot: [Int] = []
        var feature: [Int] = [], threshold: [Double] = [], left: [Int] = [], right: [Int] = []
        var missingLeft: [Bool] = [], value: [Double] = []
        for _ in 0..<max(0, treeCount) {
            try reader.expect("tree")
            let c = try reader.int()
            guard classes.indices.contains(c) else {
                throw FormatError(token: reader.index - 1, problem: "class index \(c) out of range")
            }
            let n = try reader.int()
            guard n >= 1 else { throw FormatError(token: reader.index - 1, problem: "a tree needs at least one node") }
            let root = feature.count
            treeClass.append(c)
            treeRoot.append(root)
            for _ in 0..<n {
                let f = try reader.int()
                let t = try reader.double()
                let l = try reader.int(), r = try reader.int()
                let m = try reader.int()
                let v = try reader.double()
                if f >= 0 {
                    guard f < featureCount, (0..<n).contains(l), (0..<n).contains(r) else {
                        throw FormatError(
                            token: reader.index - 6,
                            problem: "node refers to feature \(f) or children \(l), \(r) outside its tree")
                    }
                }
                feature.append(f)
                threshold.append(t)
                left.append(root + l)
                right.append(root + r)
                missingLeft.append(m != 0)
                value.append(v)
            }
        }
        guard reader.isAtEnd else { throw FormatError(token: reader.index, problem: "unexpected text after the last tree") }
        featureNames = names
        self.classes = classes
        self.baseline = baseline
        self.treeClass = treeClass
        self.treeRoot = treeRoot
        nodeFeature = feature
        nodeThreshold = threshold
        nodeLeft = left
        nodeRight = right
        nodeMissingLeft = missingLeft
        nodeValue = value
    }

    /// Class probabilities for a feature vector, written into `probabilities` (one per class, summing to 1).
    /// Allocation-free: `probabilities` must already hold `classes.count` elements.
    public func predict(_ features: [Double], into probabilities: inout [Double]) {
        for c in classes.indices { probabilities[c] = baseline[c] }
        for t in treeRoot.indices {
            var node = treeRoot[t]
            // Depth is bounded by the node count: a malformed cycle cannot hang.
            for _ in 0..<nodeFeature.count {
                let f = nodeFeature[node]
                if f < 0 { break }
                let x = features[f]
                let goLeft = x.isNaN ? nodeMissingLeft[node] : x <= nodeThreshold[node]
                node = goLeft ? nodeLeft[node] : nodeRight[node]
            }
            probabilities[treeClass[t]] += nodeValue[node]
        }
        var largest = -Double.infinity
        for c in classes.indices { largest = max(largest, probabilities[c]) }
        var sum = 0.0
        for c in classes.indices {
            probabilities[c] = Double.exp(probabilities[c] - largest)
            sum += probabilities[c]
        }
        for c in classes.indices { probabilities[c] /= sum }
    }
}

/// Splits model text into tokens, skipping `#` comments: the tokens are the runs of bytes between spaces, tabs,
/// carriage returns and line feeds, up to a `#` (which ends its line's tokens).
///
/// It works on the text's UTF-8 bytes, so reading the shipped model (about 100 000 tokens, read by every process
/// that runs the motion stage) costs a few milliseconds instead of the tens that `Substring`s of `Character`s
/// cost. Numbers are read as `Int(String)` and `Double(String)` read them (`DecimalParsing.double` is bit for bit
/// `Double(String)`).
struct TokenReader {
    private let bytes: [UInt8]
    /// Where each token starts and ends in `bytes`.
    private let starts: [Int]
    private let ends: [Int]
    private(set) var index = 0

    init(text: String) {
        bytes = Array(text.utf8)
        var starts: [Int] = [], ends: [Int] = []
        bytes.withUnsafeBufferPointer { b in
            var i = 0
            let n = b.count
            while i < n {
                let c = b[i]
                if c == UInt8(ascii: "#") {
                    while i < n && b[i] != UInt8(ascii: "\n") { i += 1 }
                } else if c == UInt8(ascii: " ") || c == UInt8(ascii: "\t") || c == UInt8(ascii: "\r")
                    || c == UInt8(ascii: "\n")
                {
                    i += 1
                } else {
                    starts.append(i)
                    while i < n {
                        let d = b[i]
                        if d == UInt8(ascii: " ") || d == UInt8(ascii: "\t") || d == UInt8(ascii: "\r") || d == UInt8(ascii: "\n")
                            || d == UInt8(ascii: "#")
                        {
                            break
                        }
                        i += 1
                    }
                    ends.append(i)
                }
            }
        }
        self.starts = starts
        self.ends = ends
    }

    var isAtEnd: Bool { index >= starts.count }

    /// The next token's bytes, passed to `body`.
    private mutating func next<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) throws(ActivityModel.FormatError) -> R {
        guard index < starts.count else {
            throw ActivityModel.FormatError(token: index, problem: "the text ends too early (truncated?)")
        }
        let from = starts[index], to = ends[index]
        index += 1
        return bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[from..<to])) }
    }

    mutating func word() throws(ActivityModel.FormatError) -> String {
        try next { String(decoding: $0, as: UTF8.self) }
    }

    mutating func int() throws(ActivityModel.FormatError) -> Int {
        let value: Int? = try next { token in
            // `-?digits` of at most 18 digits here (no overflow); anything else as `Int(String)` reads it.
            var i = token.first == UInt8(ascii: "-") ? 1 : 0
            let digits = token.count - i
            guard digits > 0, digits <= 18 else { return Int(String(decoding: token, as: UTF8.self)) }
            var v = 0
            while i < token.count {
                let d = token[i] &- UInt8(ascii: "0")
                guard d < 10 else { return Int(String(decoding: token, as: UTF8.self)) }
                v = v * 10 + Int(d)
                i += 1
            }
            return token.first == UInt8(ascii: "-") ? -v : v
        }
        guard let value else {
            throw ActivityModel.FormatError(token: index - 1, problem: "\"\(tokenText(index - 1))\" is not an integer")
        }
        return value
    }

    mutating func double() throws(ActivityModel.FormatError) -> Double {
        let value = try next { DecimalParsing.double($0) }
        guard let value, value.isFinite else {
            throw ActivityModel.FormatError(token: index - 1, problem: "\"\(tokenText(index - 1))\" is not a finite number")
        }
        return value
    }

    mutating func expect(_ keyword: String) throws(ActivityModel.FormatError) {
        let w = try word()
        guard w == keyword else {
            throw ActivityModel.FormatError(token: index - 1, problem: "expected \"\(keyword)\", found \"\(w)\"")
        }
    }

    /// Token `i`'s text (for messages).
    private func tokenText(_ i: Int) -> String {
        String(decoding: bytes[starts[i]..<ends[i]], as: UTF8.self)
    }
}
