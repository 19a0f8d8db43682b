extension Geodesic {
    /// Douglas–Peucker simplification of a track: the indices of the points to keep so that every dropped
    /// point lies within `toleranceM` metres (geodesic distance) of the simplified track. The first and last
    /// points are always kept; indices are increasing.
    ///
    /// D. H. Douglas & T. K. Peucker, "Algorithms for the reduction of the number of points required to
    /// represent a digitized line or its caricature", The Canadian Cartographer 10(2):112–122 (1973), with
    /// distances to geodesic segments (`distance(from:toSegmentFrom:to:)`) instead of planar ones. Iterative
    /// (no recursion depth limit); O(n log n) typically, O(n²) at worst. Points with invalid coordinates are
    /// dropped.
    public func simplify(_ track: [Coordinate], toleranceM: Double) -> [Int] {
        let valid = track.indices.filter { track[$0].isValid }
        guard valid.count > 2 else { return valid }
        let tolerance = max(0, toleranceM.isFinite ? toleranceM : 0)
        var keep = [Bool](repeating: false, count: valid.count)
        keep[0] = true
        keep[valid.count - 1] = true
        var stack: [(Int, Int)] = [(0, valid.count - 1)]
        while let (first, last) = stack.popLast() {
            guard last > first + 1 else { continue }
            var farthest = first, farthestDistance = -1.0
            for k in (first + 1)..<last {
                let d =
                    distance(from: track[valid[k]], toSegmentFrom: track[valid[first]], to: track[valid[last]])?.distanceM ?? 0
                if d > farthestDistance { farthestDistance = d; farthest = k }
            }
            if farthestDistance > tolerance {
                keep[farthest] = true
                stack.append((first, farthest))
                stack.append((farthest, last))
            }
        }
        return valid.indices.filter { keep[$0] }.map { valid[$0] }
    }
}
