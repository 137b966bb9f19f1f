import Foundation
import Stores

/// The operator's pages (`/operator`): its sign-in, and the fleet at a glance with what the operator may do to it.
/// Server-rendered, no script, every value escaped, readable at 360 px (the tables scroll sideways); in English.
enum OperatorPages {
    static let escaped = DoorPages.escaped

    /// The password's form.
    static func signIn(csrf: String) -> String {
        DoorPages.page(
            .english,
            """
            <h1>The operator's page</h1>
            \(DoorPages.form("/operator/sign-in", csrf: csrf, """
                <label for="password">The operator's password (DOOR_OPERATOR_PASSWORD)</label>\
                <input id="password" name="password" type="password" autocomplete="current-password" required>\
                <button type="submit">Sign in</button>
                """))
            <p><a href="/">The front door</a></p>
            """)
    }

    /// `2026-11-29 20:15 UTC`.
    static func time(_ date: Date?) -> String {
        guard let date else { return "" }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
        return formatter.string(from: date)
    }

    /// What the sign-up mode lets in, in a sentence.
    static func signUpSentence(_ signUp: DoorSignUp) -> String {
        switch signUp {
        case .open: "open: anyone signed in as themselves makes a mirror (DOOR_SIGN_UP=open)"
        case .servers(let servers): "only people on \(servers.sorted().joined(separator: ", ")) (DOOR_SIGN_UP=servers)"
        case .invitations: "by invitation: a mirror is made only with an invitation made below (DOOR_SIGN_UP=invitations)"
        case .closed: "closed: nobody new (DOOR_SIGN_UP=closed)"
        }
    }

    /// The fleet at a glance: the sign-ups against the quota, every bot with its state and last failure (pause and
    /// resume), the processes, the invitations (make, withdraw), and the audit log.
    static func overview(_ overview: DoorOverview, csrf: String, signUp: DoorSignUp, now: Date) -> String {
        let door = overview.madeAtDoor
        let lastDay = door.count { ($0.createdAt ?? .distantPast) > now.addingTimeInterval(-86_400) }
        let lastWeek = door.count { ($0.createdAt ?? .distantPast) > now.addingTimeInterval(-7 * 86_400) }
        let failed = overview.bots.count(where: \.failed)
        var body = """
            <h1>The operator's page</h1>
            \(DoorPages.form("/operator/sign-out", csrf: csrf, "<button type=\"submit\" class=\"quiet small\">Sign out</button>"))
            <h2 id="sign-ups">Sign-ups</h2>
            <p>Who may sign up: \(escaped(signUpSentence(signUp))).</p>
            <p id="quota">\(door.count) of \(overview.maxMirrors) mirrors made at the door (DOOR_MAX_MIRRORS); \(lastDay) in the last day, \(lastWeek) in the last week.</p>
            <h2 id="bots">Bots</h2>
            <p>\(overview.bots.count) \(overview.bots.count == 1 ? "bot" : "bots"): \(overview.bots.count { $0.pauseReason == nil && $0.holder != nil }) running, \
            \(overview.bots.count { $0.pauseReason == nil && $0.holder == nil }) waiting for a process, \
            \(overview.bots.count { $0.pauseReason != nil }) paused\(failed > 0 ? ", <span class=\"failed\">\(failed) after a failure</span>" : "").</p>
            <div class="wide"><table class="list" id="bot-list"><thead><tr><th>Bot</th><th>Network</th><th>State, last failure</th><th>Made</th><th></th></tr></thead><tbody>
            """
        for bot in overview.bots {
            let state: String
            if let reason = bot.pauseReason {
                state =
                    bot.failed
                    ? "<span class=\"failed\">failed: \(escaped(reason))</span>" : escaped(reason.hasPrefix("paused") ? reason : "paused: " + reason)
            } else {
                state = bot.holder.map { "running on \(escaped($0))" } ?? "waiting for a process"
            }
            let action: String
            if bot.pauseReason == nil {
                action = button("/operator/pause", csrf: csrf, field: ("bot", bot.name), label: "Pause")
            } else if bot.pausedByItsPerson {
                action = "its person's"
            } else {
                action = button("/operator/resume", csrf: csrf, field: ("bot", bot.name), label: "Resume")
            }
            body +=
                "<tr data-bot=\"\(escaped(bot.name))\"><td>\(escaped(bot.name))</td><td>\(escaped(bot.network))</td><td>\(state)</td>"
                + "<td>\(escaped(time(bot.createdAt)))</td><td>\(action)</td></tr>\n"
        }
        body += "</tbody></table></div>"
        body += "<h2 id=\"processes\">Processes</h2>"
        if overview.processes.isEmpty {
            body += "<p>No process of the fleet has been heard from in the last minute: start <code>mirror_bot fleet</code>.</p>"
        } else {
            body += "<ul id=\"process-list\">"
            for process in overview.processes {
                let held = overview.bots.count { $0.holder == process.id }
                let ago = max(0, Int(now.timeIntervalSince(process.heardAt)))
                body += "<li>\(escaped(process.id)): heard \(ago) s ago, runs \(held) \(held == 1 ? "bot" : "bots")</li>"
            }
            body += "</ul>"
        }
        body += """
            <h2 id="invitations">Invitations</h2>
            \(DoorPages.form("/operator/invitations", csrf: csrf, """
                <label for="note">Who it is for</label><input id="note" name="note" maxlength="200" required>\
                <label for="days">Good for (days)</label><input id="days" name="days" type="number" min="1" max="90" value="14" required>\
                <button type="submit">Make an invitation</button>
                """))
            """
        if !overview.invitations.isEmpty {
            body +=
                "<div class=\"wide\"><table class=\"list\" id=\"invitation-list\"><thead><tr><th>No.</th><th>For</th><th>Made</th><th>State</th><th></th></tr></thead><tbody>"
            for invitation in overview.invitations {
                let state: String
                var action = ""
                if let used = invitation.usedAt {
                    state = "used \(time(used)) for \(invitation.usedFor ?? "a mirror since deleted")"
                } else if invitation.expiresAt <= now {
                    state = "expired \(time(invitation.expiresAt))"
                } else {
                    state = "open until \(time(invitation.expiresAt))"
                    action = button(
                        "/operator/invitations/withdraw", csrf: csrf, field: ("invitation", String(invitation.id)), label: "Withdraw", danger: true)
                }
                body +=
                    "<tr data-invitation=\"\(invitation.id)\"><td>\(invitation.id)</td><td>\(escaped(invitation.note))</td>"
                    + "<td>\(escaped(time(invitation.createdAt)))</td><td>\(escaped(state))</td><td>\(action)</td></tr>\n"
            }
            body += "</tbody></table></div>"
        }
        body += "<h2 id=\"audit\">What the operator did</h2>"
        if overview.audit.isEmpty {
            body += "<p>Nothing yet.</p>"
        } else {
            body += "<ol id=\"audit-log\" class=\"lately\">"
            for entry in overview.audit {
                var line = "<li><time>\(escaped(time(entry.at)))</time> \(escaped(entry.actor)): \(escaped(entry.action))"
                if let bot = entry.bot { line += " \(escaped(bot))" }
                if let detail = entry.detail { line += " (\(escaped(detail)))" }
                body += line + "</li>"
            }
            body += "</ol>"
        }
        return DoorPages.page(.english, body)
    }

    /// A row's small button: a form posting `field` to `action` with the session's token.
    static func button(_ action: String, csrf: String, field: (name: String, value: String), label: String, danger: Bool = false) -> String {
        DoorPages.form(
            action, csrf: csrf,
            "<input type=\"hidden\" name=\"\(field.name)\" value=\"\(escaped(field.value))\"><button type=\"submit\" class=\"small\(danger ? " danger" : "")\">\(label)</button>"
        )
    }

    /// An invitation just made: its link, shown this once.
    static func invitationMade(link: String, note: String, days: Int) -> String {
        DoorPages.page(
            .english,
            """
            <h1>An invitation</h1>
            <p>For \(escaped(note)), good for \(days) days, once. Send this link to them: it is shown only now (the door keeps only its digest).</p>
            <p><input id="invitation-link" value="\(escaped(link))" readonly aria-label="The invitation's link"></p>
            <p><a href="/operator#invitations">Back to the operator's page</a></p>
            """)
    }
}
