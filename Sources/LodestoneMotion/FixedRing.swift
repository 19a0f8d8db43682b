/// A ring buffer of fixed capacity: appending to a full ring overwrites the oldest element. Storage is allocated
/// once, at `init`; `append` and the subscripts never allocate (as long as the ring is not shared with a copy:
/// the first write after a copy duplicates the storage, as for any Swift array).
public struct FixedRing<Element>: RandomAccessCollection {
    @usableFromInline var storage: [Element]
    @usableFromInline var head = 0
    @usableFromInline var stored = 0

    /// Number of elements held, ≤ `capacity`.
    @inlinable public var count: Int { stored }

    /// An empty ring holding up to `capacity` (≥ 1) elements; `filler` only initialises the storage.
    public init(capacity: Int, filler: Element) {
        storage = Array(repeating: filler, count: Swift.max(1, capacity))
    }

    /// The most elements the ring holds.
    @inlinable public var capacity: Int { storage.count }
    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { count }
    /// True when `count == capacity`.
    @inlinable public var isFull: Bool { count == storage.count }

    /// The `i`-th element, oldest first (0 ..< count).
    @inlinable public subscript(i: Int) -> Element {
        get { storage[physical(i)] }
        set { storage[physical(i)] = newValue }
    }

    /// The element `age` steps back from the newest (0 = newest), `nil` beyond the oldest.
    @inlinable public func back(_ age: Int) -> Element? {
        age >= 0 && age < count ? self[count - 1 - age] : nil
    }

    /// The newest element.
    @inlinable public var newest: Element? { back(0) }

    /// Appends `e`, dropping the oldest element when full.
    @inlinable public mutating func append(_ e: Element) {
        if stored < storage.count {
            storage[physical(stored)] = e
            stored += 1
        } else {
            storage[head] = e
            head = head + 1 == storage.count ? 0 : head + 1
        }
    }

    /// Empties the ring (the storage is kept).
    @inlinable public mutating func removeAll() {
        head = 0
        stored = 0
    }

    @inlinable func physical(_ i: Int) -> Int {
        let p = head + i
        return p >= storage.count ? p - storage.count : p
    }
}

extension FixedRing: Equatable where Element: Equatable {
    /// Equal when they hold the same elements in the same order and have the same capacity.
    public static func == (a: FixedRing, b: FixedRing) -> Bool {
        a.capacity == b.capacity && a.count == b.count && a.elementsEqual(b)
    }
}

extension FixedRing: Hashable where Element: Hashable {
    /// Hashes the capacity and the elements in order.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(capacity)
        for e in self { hasher.combine(e) }
    }
}

extension FixedRing: Sendable where Element: Sendable {}

extension FixedRing: Codable where Element: Codable {
    private enum CodingKeys: String, CodingKey { case storage, head, count }

    /// Encodes the storage as it is (capacity, filler and all), so that decoding restores the ring exactly.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(storage, forKey: .storage)
        try c.encode(head, forKey: .head)
        try c.encode(stored, forKey: .count)
    }

    /// Decodes a ring written by `encode(to:)`; throws for inconsistent indices.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        storage = try c.decode([Element].self, forKey: .storage)
        head = try c.decode(Int.self, forKey: .head)
        stored = try c.decode(Int.self, forKey: .count)
        guard !storage.isEmpty, (0..<storage.count).contains(head), (0...storage.count).contains(stored) else {
            throw DecodingError.dataCorruptedError(forKey: .head, in: c, debugDescription: "ring indices outside its storage")
        }
    }
}
