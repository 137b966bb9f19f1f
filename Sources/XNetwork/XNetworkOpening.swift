public import BotCore
public import Stores
public import BotClock
import Foundation
public import Logging
public import ServiceLifecycle
public import XAPI

extension XMirrorNetwork {
    /// X for the daemon: both accounts, counted against `X_DAILY_BUDGET` (with what other runs spent today, read from
    /// `usageDays`), the lasting refusals kept in `state` and restored from it. Returns the network and the service
    /// that stores the run's spend every minute (`runID`). Logs the budget line (and, without `postLinks`, what
    /// leaving links out saves); a store that cannot be read is logged and the budget counts from zero until it can.
    public static func forDaemon(_ settings: XNetworkSettings, clock: any BotClock, state: any BotState, usageDays: any UsageDays, runID: String,
                                 postLinks: Bool, logger: Logger) async -> (network: XMirrorNetwork, services: [any Service]) {
        let usage = UsageMeter()
        let refusals = XRefusals()
        let budget = DailyBudget(limit: settings.dailyBudget, meter: usage, logger: logger)
        let client = XClient(configuration: XNetworkModule(settings: settings).clientConfiguration(accounts: [.human, .bot]), clock: clock, usage: usage,
                             refusals: refusals, budget: budget, refusalStore: StoredRefusals(state: state), logger: logger)
        do {
            refusals.restore(try await UsageRecording.storedRefusals(in: state), apps: client.appFingerprints)
        } catch {
            logger.error("Could not read the refusals X made before (\(error)); the first call of each kind finds out again.")
        }
        do {
            let spent = try await UsageRecording.loadSpentElsewhere(into: usage, from: usageDays, runID: runID, at: clock.now())
            logger.notice("\(String(format: "budget: X_DAILY_BUDGET $%.2f a UTC day by mirror_bot's count of X's bill ($%.3f spent today before this start; %@)", settings.dailyBudget, spent, usage.prices.source))")
        } catch {
            logger.error("Could not read today's API spend (\(error)); the budget counts from zero until it can.")
        }
        if !postLinks {
            logger.notice("\(String(format: "links: the person's tweets and replies with a link are not posted (POST_LINKS=false: X bills a post with a URL $%.3f, a plain one $%.3f)", usage.prices.postCreateWithURL, usage.prices.postCreate))")
        }
        let recorder = SpendRecorder(clock: clock, usage: usage, budget: budget, days: usageDays, state: state, runID: runID, logger: logger)
        return (XMirrorNetwork(client: client), [recorder])
    }
}
