import LodestoneEngine
import LodestoneScheduler
import LodestoneService
import LodestoneWire
import LodestoneLog

/// `lodestone serve --mqtt`: the session's wire messages, gated by `PublishGate`, go to the fleet's broker through the
/// `FleetPublisher`; the fleet's commands change what is published and what is demanded. Above the session: it is one
/// more subscriber of `Session.messages`, whose demand (client `mqtt`, background) the scheduler plans for like any
/// client's — a fleet that wants a location every 5 minutes at 100 m gets a duty-cycled receiver, not a continuous one.
public actor FleetLink {
    public let configuration: FleetConfiguration
    public let publisher: FleetPublisher
    let session: Session
    let logger: Logger
    /// What is published now (the configuration's, as changed by accepted commands).
    public private(set) var publish: FleetConfiguration.Publish
    /// The accepted commands merged into one (`nil`: none since the last reset), kept in the queue's file under
    /// `commandsStateName` and re-applied to the configuration's settings at each start.
    public private(set) var commands: FleetCommand?
    /// The name of the accepted commands in the queue's file (table `fleet_state`).
    public static let commandsStateName = "commands"
    private var feedTask: Task<Void, Never>?
    private var linkTask: Task<Void, Never>?

    /// Opens the outbound queue at `<stateDirectory>/mqtt-queue.sqlite`.
    /// - Throws: `FleetError` (invalid configuration, queue not writable).
    public init(
        configuration: FleetConfiguration, session: Session, stateDirectory: String, boardName: String, logger: Logger
    ) throws(FleetError) {
        try configuration.validate()
        self.configuration = configuration; self.session = session; self.logger = logger
        publish = configuration.publish
        publisher = try FleetPublisher(
            configuration: configuration, queuePath: stateDirectory + "/mqtt-queue.sqlite", logger: logger)
        self.boardName = boardName; self.stateDirectory = stateDirectory
    }
    private let boardName: String
    private let stateDirectory: String

    /// The queue file's path for a state directory.
    public static func queuePath(stateDirectory: String) -> String { stateDirectory + "/mqtt-queue.sqlite" }

    /// Starts publishing and connecting.
    public func start() async {
        let discovery =
            configuration.homeAssistant
            ? HomeAssistantDiscovery.messages(configuration, boardName: boardName, release: Lodestone.version) : []
        await publisher.setRetainedOnConnect(discovery)
        await publisher.setCommandHandler { [weak self] payload in await self?.command(payload) }
        let p = publisher
        linkTask = Task { await p.run() }
        await restoreCommands()
        restartFeed()
        logger.notice(
            "fleet: publishing \(publish.classes.sorted().map(\.rawValue).joined(separator: ", ")) as \(configuration.topic("…")) to \(configuration.broker)"
        )
    }

    /// Stops the feed, then the link (publishing `offline` when connected). Queued messages stay on disk.
    public func stop() async {
        feedTask?.cancel()
        await feedTask?.value
        await publisher.requestStop()
        // A link waiting to reconnect (or a broker that never acknowledges) is cancelled after 3 s.
        let link = linkTask
        let deadline = Task {
            try? await Task.sleep(for: .seconds(3))
            link?.cancel()
        }
        await linkTask?.value
        deadline.cancel()
        let s = await publisher.status
        logger.notice(
            "fleet: stopped; \(s.acknowledged) messages acknowledged, \(s.queued) queued for the next start, \(s.dropped) dropped (queue full)"
        )
    }

    /// The demand the fleet's publishing puts on the scheduler.
    public static func demand(_ p: FleetConfiguration.Publish) -> Demand {
        let c = p.classes
        return Demand(
            client: "mqtt",
            location: c.contains(.location)
                ? LocationDemand(
                    desiredAccuracy: p.desiredAccuracy, distanceFilterM: p.distanceFilterM,
                    maximumAgeS: max(10, p.intervalS(.location)), updateIntervalS: p.intervalS(.location))
                : nil,
            heading: c.contains(.heading) ? HeadingDemand(headingFilterDeg: 1, trueNorth: true) : nil,
            activity: c.contains(.activity) || c.contains(.pedometer), altitude: c.contains(.altitude), foreground: false)
    }

    /// The wire classes the feed reads, and the periodic rate: the shortest interval of the periodic classes.
    static func wire(_ p: FleetConfiguration.Publish) -> (classes: Set<Wire.Class>, rateHz: Double) {
        var classes: Set<Wire.Class> = []
        var shortestS = Double.infinity
        for c in p.classes {
            switch c {
            case .location: classes.insert(.location)
            case .heading: classes.insert(.heading)
            case .activity: classes.insert(.activity)
            case .pedometer: classes.insert(.pedometer)
            case .altitude: classes.insert(.altitude)
            case .plan, .battery: classes.insert(.plan)
            }
            if [.location, .heading, .pedometer, .altitude].contains(c) { shortestS = min(shortestS, p.intervalS(c)) }
        }
        // PLAN and BATTERY go out at the next message after they are due: keep some periodic message coming.
        if classes.contains(.plan) && shortestS.isInfinite { classes.insert(.status) }
        let rateHz = min(10, 1 / (shortestS.isFinite ? shortestS : min(p.intervalS(.battery), p.intervalS(.plan))))
        return (classes, rateHz)
    }

    private func restartFeed() {
        feedTask?.cancel()
        let p = publish
        let (classes, rateHz) = Self.wire(p)
        let stream = session.messages(
            classes, rateHz: rateHz, activityPeriodS: p.intervalS(.activity), demand: Self.demand(p),
            options: SubscriptionOptions(client: "mqtt", foreground: false, buffering: .lossless(4096)))
        let publisher = publisher
        feedTask = Task {
            var gate = PublishGate(p)
            for await m in stream {
                for (suffix, message) in gate.offer(m) { await publisher.enqueue(suffix, message) }
            }
        }
    }

    /// Re-applies the commands accepted before the last stop (or kill) to the configuration's settings, under today's
    /// rules. Stored commands that cannot be read or are refused now are logged as an error, and the configuration's
    /// settings stay (the next accepted command replaces what is stored).
    func restoreCommands() async {
        let stored: String?
        do { stored = try await publisher.state(Self.commandsStateName) } catch {
            logger.error("fleet: cannot read the fleet's stored commands (\(error)); using the configuration's settings")
            return
        }
        guard let stored else { return }
        do {
            let c = try FleetCommand.decode(stored)
            publish = try c.applied(to: configuration.publish, rules: configuration.commands)
            commands = c
            logger.notice("fleet: restored the fleet's commands accepted before the last stop: \(stored)")
        } catch {
            logger.error(
                "fleet: the fleet's stored commands in \(FleetLink.queuePath(stateDirectory: stateDirectory)) (table fleet_state) cannot be applied: \(error); using the configuration's settings until the next accepted command"
            )
        }
    }

    /// One message on the command topic: applied if the configuration allows all of it and it could be stored (so that
    /// it outlives a restart); answered either way.
    func command(_ payload: String) async {
        var id: String?
        do throws(FleetError) {
            let c = try FleetCommand.decode(payload)
            id = c.id
            let new = try c.applied(to: publish, rules: configuration.commands, configured: configuration.publish)
            let merged = (commands ?? FleetCommand()).merging(c)
            do throws(FleetError) { try await publisher.setState(Self.commandsStateName, merged.json) } catch {
                throw FleetError("it could not be stored: \(error)")
            }
            commands = merged
            publish = new
            restartFeed()
            logger.notice("fleet: command \(id ?? "(no id)") accepted: \(payload)")
            await publisher.enqueue("command/reply", FleetCommandReply.accepted(id, new))
        } catch {
            logger.warning("fleet: command \(id ?? "(no id)") refused: \(error)")
            await publisher.enqueue("command/reply", FleetCommandReply.refused(id, error.description))
        }
    }
}
