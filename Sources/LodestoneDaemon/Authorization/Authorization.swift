/// Whether a client may see the location, as Core Location's `CLAuthorizationStatus`.
public enum LocationAccess: String, Sendable, Hashable, Codable, CaseIterable {
    /// No location at all: location streams answer with `authorizationDenied` and no position.
    case denied
    /// Locations only for the client's foreground subscriptions (a person is looking at it), as
    /// `authorizedWhenInUse`; a background subscription is denied.
    case whenInUse = "when-in-use"
    /// Locations for foreground and background subscriptions, as `authorizedAlways`.
    case always
}

/// How exact the locations a client may see are, as Core Location's `CLAccuracyAuthorization`.
public enum AccuracyAccess: String, Sendable, Hashable, Codable, CaseIterable {
    /// Locations as the engine makes them.
    case full
    /// Approximate locations: a fixed 5 km grid cell, no altitude, speed or course, at most one position per 15 min
    /// (`ReducedAccuracy`).
    case reduced
}

/// What one client may see: the daemon decides it once per connection from the policy (`Policy`).
public struct Authorization: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Whether the client may see the location, and when.
    public var location: LocationAccess
    /// How exact the locations it sees are (meaningless when `location` is `denied`).
    public var accuracy: AccuracyAccess
    /// Heading, device motion, activity, pedometer, altitude and raw sensors.
    public var motion: Bool
    /// Which rule decided, for diagnostics and the client's status: "policy.toml:12 (user alice)", "default",
    /// "gpsd endpoint", "--gpsd-access". When several levels of the policy each set some of the keys, all of them,
    /// the most specific first, separated by ", ".
    public var decidedBy: String

    /// An authorization as given (the server's command-line overrides, tests).
    public init(location: LocationAccess, accuracy: AccuracyAccess, motion: Bool, decidedBy: String) {
        self.location = location; self.accuracy = accuracy; self.motion = motion; self.decidedBy = decidedBy
    }

    /// Whether a location subscription may get positions: always for `always`, only in the foreground for
    /// `whenInUse`, never for `denied`.
    ///
    /// - Parameter foreground: the subscription says a person is looking (`SubscriptionOptions.foreground`).
    public func allowsLocation(foreground: Bool) -> Bool {
        switch location {
        case .denied: false
        case .whenInUse: foreground
        case .always: true
        }
    }

    /// One line for logs: "location when-in-use (reduced), motion allowed, by policy.toml:12 (user alice)".
    public var description: String {
        let seen = location == .denied ? "location denied" : "location \(location.rawValue) (\(accuracy.rawValue))"
        return "\(seen), motion \(motion ? "allowed" : "denied"), by \(decidedBy)"
    }
}
