public import BotCore
public import Stores
public import BotClock
public import BotConfiguration
import Foundation
public import Logging
public import ServiceLifecycle
public import XAPI

extension XMirrorNetwork {
    /// X for a one-shot command, with the credentials of `accounts` from `configuration` (`retry` as the command
    /// needs: `doctor` tries twice). Its meter counts the command's bill; nothing is budgeted.
    public static func forCommand(_ configuration: Configuration, accounts: [Account], retry: XClient.RetryPolicy = XClient.RetryPolicy(),
                                  logger: Logger) -> XMirrorNetwork {
        XMirrorNetwork(client: XClient(configuration: clientConfiguration(configuration, accounts: accounts, retry: retry), logger: logger))
    }

    /// X for the daemon: both accounts, counted against `X_DAILY_BUDGET` (with what other runs spent today, read from
    /// `usageDays`), the lasting refusals kept in `state` and restored from it. Returns the network and the service
    /// that stores the run's spend every minute (`runID`). Logs the budget line; a store that cannot be read is logged
    /// and the budget counts from zero until it can.
    public static func forDaemon(_ configuration: Configuration, clock: any BotClock, state: any BotState, usageDays: any UsageDays, runID: String,
                                 logger: Logger) async -> (network: XMirrorNetwork, services: [any Service]) {
        let usage = UsageMeter()
        let refusals = XRefusals()
        let budget = DailyBudget(limit: configuration.xDailyBudget, meter: usage, logger: logger)
        let client = XClient(configuration: clientConfiguration(configuration, accounts: [.human, .bot]), clock: clock, usage: usage,
                             refusals: refusals, budget: budget, refusalStore: StoredRefusals(state: state), logger: logger)
        do {
            refusals.restore(try await UsageRecording.storedRefusals(in: state), apps: client.appFingerprints)
        } catch {
            logger.error("Could not read the refusals X made before (\(error)); the first call of each kind finds out again.")
        }
        do {
            let spent = try await UsageRecording.loadSpentElsewhere(into: usage, from: usageDays, runID: runID, at: clock.now())
            logger.notice("\(String(format: "budget: X_DAILY_BUDGET $%.2f a UTC day by mirror_bot's count of X's bill ($%.3f spent today before this start; %@)", configuration.xDailyBudget, spent, usage.prices.source))")
        } catch {
            logger.error("Could not read today's API spend (\(error)); the budget counts from zero until it can.")
        }
        if !configuration.postLinks {
            logger.notice("\(String(format: "links: the person's tweets and replies with a link are not posted (POST_LINKS=false: X bills a post with a URL $%.3f, a plain one $%.3f)", usage.prices.postCreateWithURL, usage.prices.postCreate))")
        }
        let recorder = SpendRecorder(clock: clock, usage: usage, budget: budget, days: usageDays, state: state, runID: runID, logger: logger)
        return (XMirrorNetwork(client: client), [recorder])
    }

    private static func clientConfiguration(_ configuration: Configuration, accounts: [Account],
                                            retry: XClient.RetryPolicy = XClient.RetryPolicy()) -> XClient.Configuration {
        var credentials: [Account: AccountCredentials] = [:]
        for account in accounts { credentials[account] = account == .human ? configuration.human : configuration.bot }
        return XClient.Configuration(baseURL: configuration.xAPIBaseURL, credentials: credentials, retry: retry)
    }
}
