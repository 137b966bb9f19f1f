import BotClock
import BotCore
import Foundation
import SocialNetwork

/// Who a browser is to the front door: a visitor (a CSRF token, and the sign-ins it started), then a person signed in
/// as themselves on their network.
struct DoorSession: Sendable {
    /// A sign-in this browser started: its state, its flow's pending exchange, whose account, the network, and until
    /// when it holds.
    struct PendingSignIn: Sendable {
        var pending: any PendingAuthorization
        var account: Account
        var network: String
        var networkName: String
        var expires: Date
    }

    /// The token each of this browser's forms carries.
    var csrf: String
    /// Its sign-ins in flight, by state.
    var pending: [String: PendingSignIn] = [:]
    /// The person, once signed in.
    var person: DoorAccount?
    /// What the person's sign-in gave (secrets), until their mirror is made (then sealed in the fleet, and dropped here).
    var personSignIn: DoorSignIn?
    /// The bot's account, once the person signed it in too.
    var bot: DoorAccount?
    /// What the bot's sign-in gave (secrets), until the mirror is made.
    var botSignIn: DoorSignIn?
    /// The invitation this browser brought (`DOOR_SIGN_UP=invitations`), until a mirror is made with it.
    var invitation: String?
    /// Whether the operator signed in here with `DOOR_OPERATOR_PASSWORD`.
    var isOperator = false
    /// Until when the session holds (slid forward on each use).
    var expires: Date
}

/// The front door's sessions, kept in this process: a restart signs everyone out (they sign in again; nothing of
/// theirs is lost). Ids and tokens are 256 random bits; a sign-in's state is good once, in the browser that started it.
actor DoorSessions {
    /// How long a session lasts without use.
    static let lifetime: TimeInterval = 12 * 3_600
    /// How long a started sign-in waits for its callback.
    static let signInLifetime: TimeInterval = 10 * 60
    /// The most sign-ins one browser may start in `signInLifetime`.
    static let signInsPerWindow = 8
    /// The most sessions kept at once.
    static let maxSessions = 20_000

    /// How often lapsed sessions are swept.
    static let sweepInterval: TimeInterval = 60

    private var sessions: [String: DoorSession] = [:]
    private var lastSweep = Date.distantPast
    private let clock: any BotClock
    /// What becomes of sign-ins no mirror was made with, as their session ends (closed, lapsed, signed in anew) or the
    /// bot's account is signed in again: given back where the network takes them back.
    private let giveBack: @Sendable ([DoorSignIn]) -> Void

    init(clock: any BotClock, giveBack: @escaping @Sendable ([DoorSignIn]) -> Void = DoorSessions.releaseInBackground) {
        self.clock = clock
        self.giveBack = giveBack
    }

    /// Releases `signIns` where they can be, beside whatever asked (a network that does not answer delays nobody).
    static func releaseInBackground(_ signIns: [DoorSignIn]) {
        let releases = signIns.compactMap(\.release)
        guard !releases.isEmpty else { return }
        Task { for release in releases { _ = await release() } }
    }

    /// Gives back what `session` signed in and no mirror was made with.
    private func discard(_ session: DoorSession?) {
        guard let session else { return }
        let unused = [session.personSignIn, session.botSignIn].compactMap { $0 }
        if !unused.isEmpty { giveBack(unused) }
    }

    /// Removes the sessions `lapsed` picks, giving back what they signed in.
    private func remove(where lapsed: (DoorSession) -> Bool) {
        for (id, session) in sessions where lapsed(session) {
            sessions[id] = nil
            discard(session)
        }
    }

    /// How many sessions are kept now (lapsed ones included until the next sweep).
    var count: Int { sessions.count }

    /// 256 random bits, base64url.
    static func token() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The session `id` names, slid forward, or nil when there is none or it lapsed.
    func session(_ id: String?) -> DoorSession? {
        let now = clock.now()
        // Lapsed sessions are swept a minute apart, not on every request (a page costs a look-up, not a pass over all).
        if now.timeIntervalSince(lastSweep) >= Self.sweepInterval {
            remove { $0.expires <= now }
            lastSweep = now
        }
        guard let id, var session = sessions[id] else { return nil }
        guard session.expires > now else {
            sessions[id] = nil
            discard(session)
            return nil
        }
        session.expires = now.addingTimeInterval(Self.lifetime)
        sessions[id] = session
        return session
    }

    /// A new visitor's session: its id and itself. At `maxSessions`, the visitors' sessions nearest their end go first
    /// (a tenth of them), then any: a flood of new browsers costs memory up to the cap, no more.
    func open() -> (id: String, session: DoorSession) {
        if sessions.count >= Self.maxSessions {
            let now = clock.now()
            remove { $0.expires <= now }
            if sessions.count >= Self.maxSessions {
                let byEnd = sessions.sorted {
                    ($0.value.person == nil ? 0 : 1, $0.value.expires) < ($1.value.person == nil ? 0 : 1, $1.value.expires)
                }
                for (id, session) in byEnd.prefix(max(1, Self.maxSessions / 10)) {
                    sessions[id] = nil
                    discard(session)
                }
            }
        }
        let session = DoorSession(csrf: Self.token(), expires: clock.now().addingTimeInterval(Self.lifetime))
        let id = Self.token()
        sessions[id] = session
        return (id, session)
    }

    /// Keeps `pending` under `state` in the session `id`; false when the browser started too many sign-ins lately.
    func start(
        _ pending: any PendingAuthorization, for account: Account, network: String, networkName: String, state: String, in id: String
    ) -> Bool {
        let now = clock.now()
        guard var session = sessions[id] else { return false }
        session.pending = session.pending.filter { $0.value.expires > now }
        guard session.pending.count < Self.signInsPerWindow else { return false }
        session.pending[state] = .init(
            pending: pending, account: account, network: network, networkName: networkName,
            expires: now.addingTimeInterval(Self.signInLifetime))
        sessions[id] = session
        return true
    }

    /// Takes the sign-in `state` names out of the session `id`: once, and only in the browser that started it. A state
    /// brought by another browser is used up all the same (where a network's approval does not rest on the code alone,
    /// MiAuth, the browser that started it could otherwise finish what another approved).
    func take(state: String, in id: String?) -> DoorSession.PendingSignIn? {
        guard let id, var session = sessions[id], let pending = session.pending.removeValue(forKey: state) else {
            for (other, var session) in sessions where session.pending.removeValue(forKey: state) != nil { sessions[other] = session }
            return nil
        }
        sessions[id] = session
        return pending.expires > clock.now() ? pending : nil
    }

    /// Signs `person` in, with what their sign-in gave: a new session id (the visitor's is dropped, so that an id known
    /// before the sign-in is worth nothing after it), with a new CSRF token; the invitation the visitor brought is kept.
    func signIn(_ person: DoorAccount, with signIn: DoorSignIn, replacing id: String?) -> String {
        let old = id.flatMap { sessions.removeValue(forKey: $0) }
        discard(old)
        let (newID, _) = open()
        sessions[newID]?.person = person
        sessions[newID]?.personSignIn = signIn
        // The invitation the visitor brought stays with them (the operator's sign-in does not: it is signed in again).
        sessions[newID]?.invitation = old?.invitation
        return newID
    }

    /// Notes the bot's account the person of session `id` signed in, with what its sign-in gave.
    func signInBot(_ bot: DoorAccount, with signIn: DoorSignIn, in id: String) {
        if let replaced = sessions[id]?.botSignIn { giveBack([replaced]) }
        sessions[id]?.bot = bot
        sessions[id]?.botSignIn = signIn
    }

    /// Takes the two sign-ins out of session `id` while its mirror is made (a sign-out meanwhile gives back nothing the
    /// mirror now holds); nil when it has not both.
    func takeSignIns(in id: String) -> (person: DoorSignIn, bot: DoorSignIn)? {
        guard let person = sessions[id]?.personSignIn, let bot = sessions[id]?.botSignIn else { return nil }
        sessions[id]?.personSignIn = nil
        sessions[id]?.botSignIn = nil
        return (person, bot)
    }

    /// Puts back the sign-ins `takeSignIns` took (no mirror was made with them); given back when the session is gone.
    func putBack(_ signIns: (person: DoorSignIn, bot: DoorSignIn), in id: String) {
        guard sessions[id] != nil else { return giveBack([signIns.person, signIns.bot]) }
        sessions[id]?.personSignIn = signIns.person
        sessions[id]?.botSignIn = signIns.bot
    }

    /// Forgets the sign-ins' secrets of session `id` (its mirror keeps them sealed now), and the bot's account.
    func dropSignIns(in id: String) {
        sessions[id]?.personSignIn = nil
        sessions[id]?.bot = nil
        sessions[id]?.botSignIn = nil
        sessions[id]?.invitation = nil
    }

    /// Notes the invitation the browser of session `id` brought (nil: forgets it).
    func noteInvitation(_ code: String?, in id: String) { sessions[id]?.invitation = code }

    /// Signs the operator in on the browser of session `id`: a new session id and CSRF token (an id known before is
    /// worth nothing after), keeping what the browser's person signed in.
    func signInOperator(replacing id: String) -> String {
        let old = sessions.removeValue(forKey: id)
        let (newID, _) = open()
        sessions[newID]?.person = old?.person
        sessions[newID]?.personSignIn = old?.personSignIn
        sessions[newID]?.bot = old?.bot
        sessions[newID]?.botSignIn = old?.botSignIn
        sessions[newID]?.invitation = old?.invitation
        sessions[newID]?.isOperator = true
        return newID
    }

    /// Signs the operator out of session `id`, whose person stays signed in.
    func signOutOperator(in id: String) { sessions[id]?.isOperator = false }

    /// Ends the session `id`, giving back what it signed in and no mirror was made with.
    func close(_ id: String) { discard(sessions.removeValue(forKey: id)) }
}
