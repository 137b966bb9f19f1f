import BotClock
import BotCore
import Consent
import Foundation
import Hummingbird
import SocialNetwork
import Stores

/// What the page at `/` shows, read from the store when it is asked for.
struct StatusPageData: Sendable {
    /// The bot's clock now.
    var now: Date
    /// The local day shown (`YYYY-MM-DD`) and its zone.
    var day: String
    var timeZone: TimeZone
    /// The person's posts per hour of the day over the archive, 24 entries.
    var postsByHour: [Int]
    /// How many days the archive spans (for the average day).
    var archiveDays: Int
    /// Today's slots (none when the plan is not drawn yet).
    var slots: [PlanSlot]
    /// Today's like slots; nil when no like plan is stored (liking off, or the day's not drawn yet).
    var likeSlots: [LikeSlot]? = nil
    /// The newest actions.
    var actions: [BotAction]
    /// The network's cost of each UTC day, oldest first, and the daily budget (nil where nothing is billed).
    var spendByDay: [(day: String, cost: Double)]
    var dailyBudget: Double?
    /// Learning: posts archived, the newest one's id, training examples.
    var archiveSize: Int
    var newestPostID: PostID?
    var trainingExamples: Int
    /// How likes are decided (model, threshold, cross-validated precision and recall), when known.
    var likeModel: String?
    /// The health checks' outcomes (the last background check).
    var health: [HealthOutcome]
    /// What the start still waits for (nil once the services run).
    var waitingFor: String? = nil
    /// Each endpoint's calls (empty where the network's client does not count them).
    var endpointCalls: [EndpointCalls]
    /// The network's name ("X", "Mastodon"; empty when not given).
    var networkName: String
    /// Where the network shows a post.
    var postLinks: PostAddresses
    /// What the person paused from their account, nil when the bot runs.
    var paused: OwnerControl.Paused? = nil
    /// How many accounts opted out.
    var optOuts: Int = 0
}

/// The status page as HTML: server-rendered, no JavaScript, readable on a phone. The person's average day by hour as
/// bars with today's slots marked on it (posted, pending, skipped), the last actions with their reasons, the spend
/// against the budget with the last 30 days, learning, health.
enum StatusPageView {
    /// The page while the start has not opened the stores: what it waits for, refreshed every 5 seconds (503).
    static func startingPage(waitingFor: String?, networkName: String) -> Response {
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="refresh" content="5"><title>mirror_bot status</title><link rel="icon" href="data:,">
            <style>body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:46rem;padding:0.8rem;color:#222}</style></head><body>
            <h1>mirror_bot\(networkName.isEmpty ? "" : " on " + escape(networkName)) <span id="health-summary">starting</span></h1>
            <p id="waiting">Waiting for \(escape(waitingFor ?? "its stores")).</p>
            </body></html>

            """
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: .serviceUnavailable, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    /// The page.
    static func render(_ data: StatusPageData) -> String {
        let healthy = data.health.allSatisfy(\.isOK)
        let posted = data.slots.filter { $0.state == .posted }.count
        let unchecked = data.slots.filter { $0.state == .posted && $0.postedUnchecked }.count
        let skipped = data.slots.filter { $0.state == .skipped }.count
        let pending = data.slots.count - posted - skipped
        let nowMinute = minuteOfDay(data.now, in: data.timeZone)
        let next = data.slots.first { $0.state == .planned && $0.minute >= nowMinute }
        var html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>mirror_bot status</title><link rel="icon" href="data:,">
            <style>
            body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:46rem;padding:0.8rem;color:#222}
            h1{font-size:1.3rem;margin:0.2rem 0} h2{font-size:1.05rem;margin:1.2rem 0 0.4rem;border-bottom:1px solid #ddd}
            .ok{color:#1a7f37}.bad{color:#c62828} svg{width:100%;height:auto} ul{padding-left:1.1rem}
            li{margin:0.25rem 0} .kind{font-weight:600} .reason{color:#555} .muted{color:#777;font-size:0.9em}
            table{border-collapse:collapse} td{padding:0.1rem 0.6rem 0.1rem 0}
            </style></head><body>
            <h1>mirror_bot\(data.networkName.isEmpty ? "" : " on " + escape(data.networkName)) <span class="\(healthy ? "ok" : "bad")" id="health-summary">\(healthy ? "running" : "needs attention")</span></h1>
            <p class="muted">\(escape(data.day)) (\(escape(data.timeZone.identifier))), bot time \(escape(clockTime(nowMinute)))\
            \(next.map { " · next post at " + clockTime($0.minute) } ?? "")</p>
            \(data.waitingFor.map { "<p class=\"bad\" id=\"waiting\">Starting: waiting for \(escape($0)).</p>" } ?? "")
            \(pausedLine(data))
            <h2>Today's plan against the person's day</h2>
            <p>\(data.slots.count) planned: \(posted) posted, \(pending) pending, \(skipped) skipped.</p>
            <p id="unchecked"\(unchecked == 0 ? " class=\"muted\"" : "")>\(unchecked) of today's posts went out unchecked\(unchecked == 0 ? "." : ": their originals could not be looked up ahead (the network did not answer); each is looked up within the hour, and its copy deleted if the original is gone.")</p>

            """
        html += rhythmChart(data, nowMinute: nowMinute)
        html += likesSection(data)
        html += "<h2>Last actions</h2>\n<ul id=\"actions\">\n"
        if data.actions.isEmpty { html += "<li class=\"muted\">Nothing yet.</li>\n" }
        for action in data.actions {
            let local = localTime(action.at, in: data.timeZone)
            var line = "<li><span class=\"kind\">\(escape(label(action.kind)))</span> <span class=\"muted\">\(escape(local))</span>"
            if let post = action.postID {
                line += " " + link(post, data.postLinks.botSide, text: action.kind == .liked ? "the post" : "the bot's post")
            }
            if let reason = action.reason { line += "<br><span class=\"reason\">\(escape(reason))</span>" }
            html += line + "</li>\n"
        }
        html += "</ul>\n"
        html += spendSection(data)
        html +=
            "<h2>Consent</h2>\n<p id=\"opt-outs\">\(data.optOuts) account\(data.optOuts == 1 ? "" : "s") opted out: never answered or liked "
            + "(<code>mirror_bot optout list</code>).</p>\n"
        html += """
            <h2>Learning</h2>
            <table><tr><td>Posts of the person archived</td><td>\(data.archiveSize)</td></tr>
            <tr><td>Newest post learned</td><td>\(data.newestPostID.map { link($0.text, data.postLinks.personSide, text: $0.text) } ?? "none")</td></tr>
            <tr><td>Training examples (likes and not)</td><td>\(data.trainingExamples)</td></tr>
            <tr><td>Likes decided by</td><td id="like-model">\(escape(data.likeModel ?? "no calibration stored yet (made at the first start that likes)"))</td></tr></table>
            <h2>Health</h2>
            <ul id="health">

            """
        for check in data.health {
            let state =
                switch check.code {
                case .ok: "answers"
                case .starting: "not checked yet"
                case .timeout: "does not answer in time"
                case .failing: "does not answer"
                }
            html +=
                "<li><span class=\"\(check.isOK ? "ok" : "bad")\">\(escape(check.name)): \(state)</span>"
                + (check.problem.map { "<br><span class=\"reason\">\(escape($0))</span>" } ?? "") + "</li>\n"
        }
        html += "</ul>\n"
        if !data.endpointCalls.isEmpty {
            html +=
                "<table id=\"endpoints\"><tr><td><b>Endpoint</b></td><td><b>calls</b></td><td><b>failed</b></td><td><b>last success</b></td></tr>\n"
            for row in data.endpointCalls {
                html +=
                    "<tr><td>\(escape(row.endpoint)) <span class=\"muted\">as \(escape(row.account))</span></td><td>\(row.calls)</td><td>\(row.failures)</td>"
                    + "<td>\(row.lastSuccessAt.map { escape(localTime($0, in: data.timeZone)) } ?? "never")</td></tr>\n"
            }
            html += "</table>\n"
        }
        html +=
            "<p class=\"muted\">The same as JSON: <code>/api/v1/actions</code>, <code>/api/v1/plans/\(escape(data.day))</code>, <code>/api/v1/usage/days</code>.</p>\n</body></html>\n"
        return html
    }

    /// Today's likes beside the posts: how many planned, liked, skipped and pending, and each slot with its score and
    /// the post it liked or why it was skipped.
    static func likesSection(_ data: StatusPageData) -> String {
        guard let slots = data.likeSlots else {
            return
                "<h2>Today's likes</h2>\n<p id=\"likes-plan\" class=\"muted\">No like plan for today: the bot does not like on this network, or the day's likes are not drawn yet.</p>\n"
        }
        let liked = slots.filter { $0.state == .liked }.count
        let skipped = slots.filter { $0.state == .skipped }.count
        // A slot still planned after its minute waits for a post to like (the favoriter looks again after each poll).
        let today = LocalTime(of: data.now, in: data.timeZone)
        func isWaiting(_ slot: LikeSlot) -> Bool { slot.state == .planned && data.day == today.day && slot.minute < today.minute }
        let waiting = slots.filter(isWaiting).count
        var html =
            "<h2>Today's likes</h2>\n<p id=\"likes-plan\">\(slots.count) planned, as many as one of the person's days of liking: "
            + "\(liked) liked, \(waiting > 0 ? "\(waiting) waiting for a post, " : "")\(slots.count - liked - skipped - waiting) pending, \(skipped) skipped. "
            + "Each slot likes the best-scored post kept for it.</p>\n<ul id=\"like-slots\">\n"
        for slot in slots {
            let state = isWaiting(slot) ? "waiting for a post to like" : slot.state.rawValue
            var line = "<li><span class=\"kind\">\(clockTime(slot.minute))</span> \(escape(state))"
            if let score = slot.logRatio { line += String(format: " <span class=\"muted\">score %.2f</span>", score) }
            if let post = slot.postID { line += " " + link(post.text, data.postLinks.botSide, text: "the post") }
            if let reason = slot.reason { line += "<br><span class=\"reason\">\(escape(reason))</span>" }
            html += line + "</li>\n"
        }
        return html + "</ul>\n"
    }

    /// The person's average day (bars by hour) with today's slots as marks: filled green posted, hollow pending, red
    /// skipped; a line at the bot's time now.
    /// The person's pause, when there is one.
    static func pausedLine(_ data: StatusPageData) -> String {
        guard let paused = data.paused else { return "" }
        if paused.pause == .ended {
            return "<p class=\"bad\" id=\"paused\">The person ended this mirror at \(escape(localTime(paused.since, in: data.timeZone))): "
                + "nothing is posted, answered, liked or learned, and what was learned from them is deleted. Only their own new sign-in starts it again.</p>"
        }
        if paused.pause == .signInLapsed {
            return "<p class=\"bad\" id=\"paused\">The person's sign-in lapsed at \(escape(localTime(paused.since, in: data.timeZone))) "
                + "(the network's limit on its life; they did not withdraw): nothing is posted, answered, liked or learned, and nothing learned is deleted. "
                + "Their own new sign-in starts it again.</p>"
        }
        let what = paused.pause == .posting ? "Posting is paused" : "Everything is paused (posts, answers, likes)"
        return "<p class=\"bad\" id=\"paused\">\(what) by the person since \(escape(localTime(paused.since, in: data.timeZone))): "
            + "a mention of the bot from their account saying \"resume\" or 「再開」 ends it.</p>"
    }

    static func rhythmChart(_ data: StatusPageData, nowMinute: Int) -> String {
        let width = 480.0
        let height = 150.0
        let top = 10.0
        let axis = 130.0
        let days = Double(max(1, data.archiveDays))
        let averages = data.postsByHour.map { Double($0) / days }
        let highest = max(averages.max() ?? 0, 0.1)
        var svg =
            "<svg id=\"rhythm\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-label=\"The person's average posts by hour, with today's slots\">\n"
        svg += "<title>The person's average posts by hour (bars) and today's slots (marks)</title>\n"
        for (hour, average) in averages.enumerated() {
            let barHeight = (axis - top - 12) * average / highest
            svg += String(
                format:
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#b3cde3\"><title>%02d:00 %.2f posts a day</title></rect>\n",
                Double(hour) * width / 24 + 1, axis - barHeight, width / 24 - 2, barHeight, hour, average)
        }
        svg += "<line x1=\"0\" y1=\"\(axis)\" x2=\"\(width)\" y2=\"\(axis)\" stroke=\"#888\"/>\n"
        for hour in stride(from: 0, through: 24, by: 6) {
            svg += String(
                format: "<text x=\"%.1f\" y=\"146\" font-size=\"10\" text-anchor=\"middle\" fill=\"#555\">%02d:00</text>\n",
                min(width - 14, max(14, Double(hour) * width / 24)), hour % 24)
        }
        let nowX = Double(nowMinute) * width / 1_440
        svg += String(
            format: "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\" stroke-dasharray=\"3 3\"/>\n", nowX, top, nowX, axis)
        for slot in data.slots {
            let x = Double(slot.minute) * width / 1_440
            let (fill, stroke) =
                switch slot.state {
                case .posted: ("#1a7f37", "#1a7f37")
                case .skipped: ("#c62828", "#c62828")
                case .planned, .posting: ("white", "#555")
                }
            svg += String(
                format: "<circle class=\"slot %@\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%@\" stroke=\"%@\"><title>%@ %@</title></circle>\n",
                slot.state.rawValue, x, axis - 4, fill, stroke, clockTime(slot.minute), slot.state.rawValue)
        }
        return svg + "</svg>\n"
    }

    /// Today's spend against the budget and the last 30 days as small bars.
    static func spendSection(_ data: StatusPageData) -> String {
        guard let budget = data.dailyBudget else { return "<h2>Spend</h2>\n<p>Nothing is billed on this network.</p>\n" }
        let today = data.spendByDay.last { $0.day == utcDay(of: data.now) }?.cost ?? 0
        var html = "<h2>Spend</h2>\n<p id=\"spend\">Today (UTC): $\(String(format: "%.3f", today)) of $\(String(format: "%.2f", budget)).</p>\n"
        let days = Array(data.spendByDay.suffix(30))
        guard !days.isEmpty else { return html }
        let highest = max(days.map(\.cost).max() ?? 0, budget)
        html += "<svg id=\"spend-days\" viewBox=\"0 0 300 60\" role=\"img\" aria-label=\"The cost of each of the last 30 UTC days\">\n"
        html += String(
            format:
                "<line x1=\"0\" y1=\"%.1f\" x2=\"300\" y2=\"%.1f\" stroke=\"#c62828\" stroke-dasharray=\"2 2\"><title>budget $%.2f</title></line>\n",
            55 - 50 * budget / highest, 55 - 50 * budget / highest, budget)
        for (index, day) in days.enumerated() {
            let barHeight = 50 * day.cost / highest
            html += String(
                format: "<rect x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"%.1f\" fill=\"#888\"><title>%@ $%.3f</title></rect>\n",
                Double(index) * 10, 55 - barHeight, barHeight, day.day, day.cost)
        }
        return html + "</svg>\n"
    }

    // MARK: - Helpers

    static func label(_ kind: BotAction.Kind) -> String {
        switch kind {
        case .posted: "posted"
        case .skipped: "skipped a slot"
        case .replied: "replied"
        case .notReplied: "did not reply"
        case .liked: "liked"
        }
    }

    static func link(_ id: String, _ postLink: (String) -> String?, text: String) -> String {
        guard let url = postLink(id) else { return escape(text) }
        return "<a href=\"\(escape(url))\">\(escape(text))</a>"
    }

    /// `text` safe in HTML text and attribute values.
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    static func clockTime(_ minute: Int) -> String { LocalTime.clockTime(minute) }

    static func minuteOfDay(_ date: Date, in zone: TimeZone) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
    }

    static func localDay(of date: Date, in zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    static func localTime(_ date: Date, in zone: TimeZone) -> String {
        localDay(of: date, in: zone) + " " + clockTime(minuteOfDay(date, in: zone))
    }

    static func utcDay(of date: Date) -> String { localDay(of: date, in: TimeZone(identifier: "UTC")!) }
}
