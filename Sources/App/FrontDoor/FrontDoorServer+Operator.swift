import BotCore
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// The operator's page (`/operator`), behind `DOOR_OPERATOR_PASSWORD`: signed in with a form (wrong passwords
/// limited per client), in the door's own session (a new id at sign-in, the CSRF token in every form); every change is
/// recorded in the fleet's audit log with the client's address.
extension FrontDoorServer {
    /// What the operator's page answers without its password set or without a fleet.
    static let noOperatorPage =
        "There is no operator's page here: set DOOR_OPERATOR_PASSWORD (16 characters or more), with the fleet's DATABASE_URL and FLEET_KEY."

    /// A change on the operator's page: the form read, the operator's session and its CSRF token checked; `body`
    /// answers with the operations, the form's fields and who did it (`actor`). A refusal is shown in its words; any other
    /// failure in a line of the log and a page that says to try again.
    static func operatorChange(
        _ request: Request, context: DoorRequestContext, sessions: DoorSessions, settings: Settings, logger: Logger,
        _ body: (any DoorOperations, [String: String], String) async throws -> Response
    ) async throws -> Response {
        let text = DoorText.english
        guard let operations = settings.operations, settings.operatorPassword != nil else {
            return html(.notFound, DoorPages.refused(text, noOperatorPage))
        }
        let fields = try await form(request)
        guard let id = sessionIDOf(request, secure: settings.publicURL.scheme == "https"), let session = await sessions.session(id),
            session.isOperator, fields["csrf"] == session.csrf
        else {
            return html(.forbidden, DoorPages.refused(text, "This form has expired, or you are not signed in as the operator: open /operator again."))
        }
        do {
            return try await body(operations, fields, operatorActor(context.client(of: request, behindRouter: settings.behindRouter)))
        } catch let refused as DoorMirrorRefused {
            return html(.badRequest, DoorPages.refused(text, refused.description))
        } catch {
            logger.error("web: a change on the operator's page failed: \(error)")
            return html(.serviceUnavailable, DoorPages.refused(text, "That could not be done just now: open /operator again in a minute."))
        }
    }

    /// The audit log's name for the operator at `client`.
    static func operatorActor(_ client: String) -> String { "the operator's page (\(client))" }

    /// Adds the operator's routes to `router`.
    func addOperatorRoutes(to router: Router<DoorRequestContext>) {
        let sessions = sessions
        let settings = settings
        let logger = logger
        let failures = operatorFailures
        let secure = isSecure
        router.get("/operator") { request, _ in
            let text = DoorText.english
            guard let operations = settings.operations, settings.operatorPassword != nil else {
                return Self.html(.notFound, DoorPages.refused(text, Self.noOperatorPage))
            }
            let id = Self.sessionIDOf(request, secure: secure)
            guard let id, let session = await sessions.session(id) else {
                let (id, session) = await sessions.open()
                return Self.html(.ok, OperatorPages.signIn(csrf: session.csrf), cookie: Self.cookie(id, secure: secure))
            }
            guard session.isOperator else { return Self.html(.ok, OperatorPages.signIn(csrf: session.csrf)) }
            do {
                let overview = try await operations.overview(now: settings.clock.now())
                return Self.html(
                    .ok, OperatorPages.overview(overview, csrf: session.csrf, signUp: settings.signUp, now: settings.clock.now()))
            } catch {
                logger.error("web: the operator's page could not be read: \(error)")
                return Self.html(.serviceUnavailable, DoorPages.refused(text, "The fleet cannot be read just now: try again in a minute."))
            }
        }
        router.post("/operator/sign-in") { request, context in
            let text = DoorText.english
            guard let operations = settings.operations, let password = settings.operatorPassword else {
                return Self.html(.notFound, DoorPages.refused(text, Self.noOperatorPage))
            }
            let client = context.client(of: request, behindRouter: settings.behindRouter)
            if let wait = failures.refusal(of: client) {
                logger.warning("web: the operator's sign-in refused from one address: too many wrong passwords")
                var response = Self.html(
                    .tooManyRequests, DoorPages.refused(text, "Too many wrong passwords from your address: try again in \(wait / 60 + 1) minutes."))
                response.headers[.retryAfter] = String(wait)
                return response
            }
            let fields = try await Self.form(request)
            guard let id = Self.sessionIDOf(request, secure: secure), let session = await sessions.session(id), fields["csrf"] == session.csrf else {
                return Self.html(.forbidden, DoorPages.refused(text, "This form has expired: open /operator again."))
            }
            guard Passwords.equalInConstantTime(fields["password"] ?? "", password) else {
                failures.recordFailure(of: client)
                logger.warning("web: a wrong password was given on the operator's page")
                return Self.html(.unauthorized, DoorPages.refused(text, "That is not the operator's password."))
            }
            let newID = await sessions.signInOperator(replacing: id)
            do {
                try await operations.record("signed in", by: Self.operatorActor(client))
            } catch {
                logger.error("web: the operator's sign-in could not be recorded in the audit log: \(error)")
            }
            logger.notice("web: the operator signed in")
            return Self.redirect("/operator", cookie: Self.cookie(newID, secure: secure))
        }
        for (path, paused) in [("/operator/pause", true), ("/operator/resume", false)] {
            router.post(RouterPath(path)) { request, context in
                try await Self.operatorChange(request, context: context, sessions: sessions, settings: settings, logger: logger) {
                    operations, fields, actor in
                    let name = fields["bot"] ?? ""
                    guard try await operations.setPaused(paused, bot: name, by: actor) else {
                        return Self.html(.notFound, DoorPages.refused(DoorText.english, "There is no bot named \(name)."))
                    }
                    return Self.redirect("/operator#bots")
                }
            }
        }
        router.post("/operator/invitations") { request, context in
            try await Self.operatorChange(request, context: context, sessions: sessions, settings: settings, logger: logger) {
                operations, fields, actor in
                let note = (fields["note"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
                guard !note.isEmpty, note.count <= 200, let days = Int(fields["days"] ?? ""), (1...90).contains(days) else {
                    return Self.html(
                        .badRequest,
                        DoorPages.refused(DoorText.english, "Say who the invitation is for (up to 200 characters), and for 1 to 90 days."))
                }
                let code = try await operations.invite(note: note, days: days, by: actor, now: settings.clock.now())
                var link = URLComponents(url: settings.publicURL, resolvingAgainstBaseURL: false) ?? URLComponents()
                link.path = "/"
                link.queryItems = [URLQueryItem(name: "invitation", value: code)]
                return Self.html(.ok, OperatorPages.invitationMade(link: link.url?.absoluteString ?? code, note: note, days: days))
            }
        }
        router.post("/operator/invitations/withdraw") { request, context in
            try await Self.operatorChange(request, context: context, sessions: sessions, settings: settings, logger: logger) {
                operations, fields, actor in
                guard let id = Int64(fields["invitation"] ?? ""), try await operations.withdrawInvitation(id, by: actor) else {
                    return Self.html(.notFound, DoorPages.refused(DoorText.english, "There is no such invitation."))
                }
                return Self.redirect("/operator#invitations")
            }
        }
        router.post("/operator/sign-out") { request, context in
            try await Self.operatorChange(request, context: context, sessions: sessions, settings: settings, logger: logger) { operations, _, actor in
                if let id = Self.sessionIDOf(request, secure: secure) { await sessions.signOutOperator(in: id) }
                try? await operations.record("signed out", by: actor)
                return Self.redirect("/operator")
            }
        }
    }
}
