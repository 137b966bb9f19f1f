public import BotClock
public import BotCore
public import Foundation
public import SocialNetwork
import Synchronization

/// A network in memory, scripted by a test: it serves a `ScriptedWorld` as a network's client would report it to the
/// bot, faults included (each fault as the client's retries leave it: a delay, a lost answer, an unknown outcome, a
/// refusal), on the bot's clock. One value per run of the daemon; `kill()` ends a run as a SIGKILL does: from then on
/// nothing it sends has any effect.
public final class ScriptedNetwork: MirrorNetwork, Sendable {
    /// What it serves.
    public let world: ScriptedWorld
    /// Its name in log lines.
    public let name: String
    /// What it offers.
    public let capabilities: NetworkCapabilities
    let clock: any BotClock
    let faults: FaultPlan
    let idempotentCreates: Bool
    let idempotencyWindow: TimeInterval
    let showsWarnings: Bool
    private let killed = Mutex(false)
    private let hurried = Mutex(false)
    /// The delays under way, woken by `kill()` and `hurry()`.
    private let delays = Mutex<[UInt64: CheckedContinuation<Void, Never>]>([:])
    private let delaySequence = Mutex<UInt64>(0)
    /// While the process is stalled (nil when it runs): the calls and answers held until it runs again.
    private let stalled = Mutex<[CheckedContinuation<Void, Never>]?>(nil)

    /// The network over `world`, failing as `faults` say; `idempotentCreates`: a create sent again for the same slot or
    /// mention within `idempotencyWindow` of the first is the same post (Mastodon's `Idempotency-Key`, which Mastodon
    /// keeps for an hour; after it, the same key makes a new post); `refusesRepeats`: a text the bot posted within a day
    /// is refused as a duplicate (X; by default a network without idempotent creates does; Misskey does neither);
    /// `showsWarnings`: posts may carry a content warning.
    public init(
        world: ScriptedWorld, clock: any BotClock, faults: FaultPlan = .none, name: String = "Scripted", likes: Bool = true,
        streamsMentions: Bool = false, idempotentCreates: Bool = false, idempotencyWindow: TimeInterval = 3_600, refusesRepeats: Bool? = nil,
        showsWarnings: Bool = false
    ) {
        self.world = world
        self.clock = clock
        self.faults = faults
        self.name = name
        capabilities = NetworkCapabilities(
            whyNoLikes: likes ? nil : "the scripted network offers no likes", streamsMentions: streamsMentions,
            refusesRepeatsWithin: (refusesRepeats ?? !idempotentCreates) ? 86_400 : nil)
        self.idempotentCreates = idempotentCreates
        self.idempotencyWindow = idempotencyWindow
        self.showsWarnings = showsWarnings
    }

    /// The process is gone: nothing sent from now on has an effect, and every call throws `CancellationError` (those
    /// waiting for an answer at once).
    public func kill() {
        killed.withLock { $0 = true }
        let waiting = delays.withLock { delays in
            defer { delays = [:] }
            return Array(delays.values)
        }
        waiting.forEach { $0.resume() }
        resume()
    }

    /// The process stalls (SIGSTOP, a frozen VM): it sends nothing until `resume()`, and the answers to what it had sent
    /// (carried out by the network meanwhile, as a server does) reach it only then.
    public func stall() { stalled.withLock { $0 = $0 ?? [] } }

    /// The stalled process runs again: what it held goes on.
    public func resume() {
        let held = stalled.withLock { held in
            defer { held = nil }
            return held ?? []
        }
        held.forEach { $0.resume() }
    }

    /// Returns at once while the process runs; while it is stalled, once it runs again.
    private func passStall() async {
        await withCheckedContinuation { continuation in
            let runs = stalled.withLock { held -> Bool in
                guard held != nil else { return true }
                held?.append(continuation)
                return false
            }
            if runs { continuation.resume() }
        }
    }

    /// The run is stopping: what is under way gets its answer at once (a stop takes no time on the bot's clock, so that
    /// it replays the same whatever real time its signalling takes).
    public func hurry() {
        hurried.withLock { $0 = true }
        let waiting = delays.withLock { delays in
            defer { delays = [:] }
            return Array(delays.values)
        }
        waiting.forEach { $0.resume() }
    }

    /// Waits `duration` on the clock, or until the network is killed (then throws `CancellationError`) or hurried.
    private func wait(_ duration: Duration) async throws {
        if hurried.withLock({ $0 }) { return try checkAlive() }
        let id = delaySequence.withLock {
            $0 += 1
            return $0
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { [clock] in try await clock.sleep(for: duration) }
            group.addTask { [self] in
                await withCheckedContinuation { continuation in
                    let endedAlready = killed.withLock { killed in
                        let ended = killed || hurried.withLock { $0 }
                        if !ended { delays.withLock { $0[id] = continuation } }
                        return ended
                    }
                    if endedAlready { continuation.resume() }
                }
            }
            defer {
                // However the wait ends (its time, a kill, a cancellation), the child waiting for a kill ends too.
                group.cancelAll()
                delays.withLock { $0.removeValue(forKey: id) }?.resume()
            }
            try await group.next()
            try checkAlive()
        }
    }

    // MARK: - Calls, faults and their outcomes

    /// How a kind of call is affected by faults.
    enum Kind {
        /// A read: answered late, or not at all after the client's tries.
        case read
        /// A read that a refusal does not reach (the bot reading back its own posts).
        case readBack
        /// A create without an idempotency key, unless the network takes them.
        case create
        /// A write that asking again repeats (a like, a deletion).
        case idempotentWrite
    }

    /// Runs one call: its fault (drawn from the plan), the delay it costs on the clock, its effect on the world (`body`,
    /// run when the call is carried out), and the error the bot sees. Every call is recorded.
    func call<Result: Sendable>(
        _ operation: String, key: String, _ kind: Kind,
        _ body: @Sendable (inout ScriptedWorld.State, Date) throws -> Result
    ) async throws -> Result {
        await passStall()
        try checkAlive()
        // A write leaves only with time left on the process's lease on the bot, and is given no longer than that (the
        // HTTP core's rule): nothing of it lands after another process may have taken the bot over.
        let isWrite = kind == .create || kind == .idempotentWrite
        let writeLimit: Duration?
        do {
            writeLimit = isWrite ? try WriteDeadline.limit(.seconds(30)) : nil
        } catch {
            record(operation, key, nil, carriedOut: false)
            throw NetworkError(error)
        }
        let attempt = world.state.withLock { state in
            defer { state.attempts[operation + "|" + key, default: 0] += 1 }
            return state.attempts[operation + "|" + key, default: 0]
        }
        let refusedUntil = world.state.withLock { $0.refusedUntil[operation] }
        if let until = refusedUntil, clock.now() < until, kind == .read || kind == .idempotentWrite {
            record(operation, key, .refused, carriedOut: false)
            throw NetworkError.refused("\(name) still refuses \(operation) (until \(until.formatted(.iso8601)))", recheckAt: until)
        }
        guard let drawn = faults.fault(for: operation, key: key, attempt: attempt) else { return try carryOut(operation, key, nil, body) }
        let persistent = drawn.persistent
        var fault = drawn.fault
        // What a network refuses for a while: reading mentions, timelines, likes and originals, liking; a refused create is a
        // duplicate. Who the accounts are is never refused (that is a wrong token, which ends the start).
        if fault == .refused && kind != .create && !Self.refusable.contains(operation) { fault = .serverUnavailable }
        // A delay drawn for the call; a write's is cut at its limit, and says so (true).
        func delay(_ seconds: ClosedRange<Double>) async throws -> Bool {
            let drawn = Duration.milliseconds(Int64(faults.draw(seconds, for: operation, key: key, attempt: attempt) * 1000))
            let cut = writeLimit.map { drawn > $0 } ?? false
            try await wait(cut ? writeLimit! : drawn)
            await passStall()
            try checkAlive()
            return cut
        }
        let what = "\(name) \(operation) (\(key))"
        switch (kind, fault) {
        case (.read, .refused), (.idempotentWrite, .refused):
            let until = clock.now().addingTimeInterval(3_600)
            world.state.withLock { $0.refusedUntil[operation] = until }
            record(operation, key, fault, carriedOut: false)
            throw NetworkError.refused("\(what) refused: 403 (scripted)", recheckAt: until)
        case (.read, .rateLimited), (.readBack, .rateLimited):
            _ = try await delay(5...90)  // the client waits for the window's reset, then asks
            return try carryOut(operation, key, fault, body)
        case (.read, _), (.readBack, _):
            _ = try await delay(fault == .hang ? 30...30 : persistent ? 7...7 : 1...3)
            guard persistent else { return try carryOut(operation, key, fault, body) }
            record(operation, key, fault, carriedOut: false)
            throw NetworkError.unavailable("\(what): \(fault) on every try (scripted)")
        case (.create, .refused):
            record(operation, key, fault, carriedOut: false)
            throw NetworkError.duplicate("\(what): 403 duplicate content (scripted)")
        case (.create, .rateLimited), (.idempotentWrite, .rateLimited):
            record(operation, key, fault, carriedOut: false)
            throw NetworkError.unavailable("\(what): rate-limited until later than a write waits (scripted)")
        case (.create, .serverUnavailable), (.create, .droppedBeforeSending),
            (.idempotentWrite, .serverUnavailable), (.idempotentWrite, .droppedBeforeSending):
            // Tried again after a backoff: not when the lease's time is up by then.
            if try await delay(persistent ? 7...7 : 1...3), let deadline = WriteDeadline.current {
                record(operation, key, fault, carriedOut: false)
                throw NetworkError(WriteDeadlinePassed(lapsesAt: deadline.lapsesAt(), now: clock.now()))
            }
            guard persistent else { return try carryOut(operation, key, fault, body) }
            record(operation, key, fault, carriedOut: false)
            throw NetworkError.unavailable("\(what): \(fault) on every try, not carried out (scripted)")
        case (.idempotentWrite, _):
            // Carried out; asked again, it answers the same.
            _ = try await delay(fault == .hang ? 30...30 : 1...3)
            return try carryOut(operation, key, fault, body)
        case (.create, .droppedAfterSending), (.create, .truncatedAnswer), (.create, .hang):
            _ = try await delay(fault == .hang ? 30...30 : 0...1)
            // A hang may have been carried out or not; a lost or cut answer was.
            let madeIt = fault != .hang || faults.draw(0...1, for: operation, key: key + "#made", attempt: attempt) < 0.5
            if idempotentCreates && !persistent { return try carryOut(operation, key, fault, body) }  // sent again with its key
            if madeIt { _ = try carryOut(operation, key, fault, body) } else { record(operation, key, fault, carriedOut: false) }
            throw NetworkError.outcomeUnknown("\(what): \(fault), the outcome is unknown (scripted)")
        }
    }

    /// The operations a network may refuse for a while.
    static let refusable: Set<String> = ["posts", "likes", "mentions", "homeTimeline", "postExists", "openStream", "like"]

    private func carryOut<Result>(
        _ operation: String, _ key: String, _ fault: Fault?,
        _ body: @Sendable (inout ScriptedWorld.State, Date) throws -> Result
    ) throws -> Result {
        try checkAlive()
        let now = clock.now()
        return try world.state.withLock { state in
            let result = try body(&state, now)
            state.calls.append(.init(at: now, operation: operation, key: key, fault: fault, carriedOut: true))
            return result
        }
    }

    private func record(_ operation: String, _ key: String, _ fault: Fault?, carriedOut: Bool) {
        let now = clock.now()
        world.state.withLock { $0.calls.append(.init(at: now, operation: operation, key: key, fault: fault, carriedOut: carriedOut)) }
    }

    private func checkAlive() throws {
        if killed.withLock({ $0 }) { throw CancellationError() }
    }

    // MARK: - The network protocol

    public func whoAmI(_ account: Account) async throws -> NetworkUser {
        let user = account == .human ? world.human : world.bot
        return try await call("whoAmI", key: account.rawValue, .read) { _, _ in NetworkUser(id: user.id, handle: user.handle) }
    }

    /// The posts in the bot's form.
    func networkPost(_ post: ScriptedWorld.Post, handles: Bool) -> NetworkPost {
        let author = world.user(post.authorID)
        return NetworkPost(
            id: String(post.id), text: post.text, authorID: post.authorID, authorHandle: handles ? author?.handle : nil,
            createdAt: post.createdAt, replyToUserID: post.replyToUserID, replyToPostID: post.replyToPostID.map { String($0) },
            conversationID: post.conversationID.map { String($0) }, isRepost: post.isRepost,
            authorAsksNoBots: author?.asksNoBots ?? false, contentWarning: post.contentWarning)
    }

    /// Pages of what `select` picks at the first page's read (newest first, at most `maxPosts`), `perPage` a page, each
    /// page one call.
    func pages(
        _ operation: String, key: String, perPage: Int, maxPosts: Int?, handles: Bool = false,
        _ select: @escaping @Sendable (ScriptedWorld.State, Date) -> [ScriptedWorld.Post]
    ) -> NetworkPages {
        let network = self
        return NetworkPages {
            let list = Mutex<[ScriptedWorld.Post]?>(nil)
            let page = Mutex(0)
            return NetworkPages.Iterator {
                let number = page.withLock { value in
                    defer { value += 1 }
                    return value
                }
                let posts = try await network.call(operation, key: "\(key)|page \(number)", .read) { state, now -> [ScriptedWorld.Post] in
                    if let known = list.withLock({ $0 }) { return known }
                    var selected = select(state, now).sorted { $0.id > $1.id }
                    if let maxPosts { selected = Array(selected.prefix(max(0, maxPosts))) }
                    list.withLock { $0 = selected }
                    return selected
                }
                let slice = posts.dropFirst(number * max(1, perPage)).prefix(max(1, perPage))
                guard !slice.isEmpty else { return nil }
                return NetworkPage(posts: slice.map { network.networkPost($0, handles: handles) }, newestID: slice.first.map { String($0.id) })
            }
        }
    }

    public func posts(of userID: String, since sinceID: String?, maxPosts: Int, for work: Work) -> NetworkPages {
        let since = sinceID.flatMap { Int64($0) } ?? 0
        return pages("posts", key: "since \(since)", perPage: 100, maxPosts: maxPosts) { state, now in
            state.posts.values.filter { $0.authorID == userID && $0.madeFor == nil && !$0.isRepost && $0.id > since && $0.isVisible(at: now) }
        }
    }

    public func likes(of userID: String, perPage: Int, maxPosts: Int?, for work: Work) -> NetworkPages {
        let network = self
        return NetworkPages {
            let page = Mutex(0)
            return NetworkPages.Iterator {
                let number = page.withLock { value in
                    defer { value += 1 }
                    return value
                }
                let liked = try await network.call("likes", key: "page \(number)", .read) { state, now -> [(ScriptedWorld.Post, Date)] in
                    state.personsLikes.filter { $0.likedAt <= now }.sorted { $0.likedAt > $1.likedAt }
                        .compactMap { like in state.posts[like.postID].map { ($0, like.likedAt) } }.filter { $0.0.isVisible(at: now) }
                }
                let capped = maxPosts.map { Array(liked.prefix($0)) } ?? liked
                let slice = capped.dropFirst(number * max(1, perPage)).prefix(max(1, perPage))
                guard !slice.isEmpty else { return nil }
                // Like times are given, as Misskey's reactions give them.
                return NetworkPage(
                    posts: slice.map { post, likedAt in
                        var liked = network.networkPost(post, handles: true)
                        liked.likedAt = likedAt
                        return liked
                    },
                    newestID: nil)
            }
        }
    }

    public func mentions(of userID: String, since sinceID: String?, perPage: Int, for work: Work) -> NetworkPages {
        let since = sinceID.flatMap { Int64($0) } ?? 0
        return pages("mentions", key: "since \(since)", perPage: perPage, maxPosts: nil) { state, now in
            state.posts.values.filter { $0.mentionsBot && $0.id > since && $0.isVisible(at: now) }
        }
    }

    public func homeTimeline(
        of userID: String, as account: Account, since sinceID: String?, maxPosts: Int?, perPage: Int,
        includingReposts: Bool, for work: Work
    ) -> NetworkPages {
        let since = sinceID.flatMap { Int64($0) } ?? 0
        return pages("homeTimeline", key: "\(account) since \(since)", perPage: perPage, maxPosts: maxPosts, handles: true) { state, now in
            state.posts.values.filter {
                $0.onTimelinesOf.contains(account) && $0.id > since && $0.isVisible(at: now) && (includingReposts || !$0.isRepost)
            }
        }
    }

    public func openMentionStream(of userID: String) async throws -> NetworkPostStream {
        guard capabilities.streamsMentions else { throw NetworkError.rejected("\(name) does not push mentions; they are polled") }
        let opened = try await call("openStream", key: "at \(clock.now().timeIntervalSince1970)", .read) { state, now in
            state.posts.values.filter { $0.mentionsBot && $0.createdAt <= now }.map(\.id).max() ?? 0
        }
        let network = self
        let delivered = Mutex(opened)
        return NetworkPostStream {
            NetworkPostStream.Iterator {
                while true {
                    try network.checkAlive()
                    let after = delivered.withLock { $0 }
                    let next = network.world.state.withLock { state in
                        state.posts.values.filter { $0.mentionsBot && $0.id > after && $0.deletedAt == nil }.min { $0.id < $1.id }
                    }
                    guard let next else {
                        try await network.clock.sleep(for: .seconds(86_400))
                        continue
                    }
                    if next.createdAt > network.clock.now() {
                        try await network.clock.sleep(until: next.createdAt)
                        continue
                    }
                    delivered.withLock { $0 = next.id }
                    // The stream breaks now and then: the mention is not pushed, and the catch-up poll finds it.
                    if let (fault, _) = network.faults.fault(for: "stream", key: String(next.id), attempt: 0), fault != .rateLimited {
                        network.record("stream", String(next.id), fault, carriedOut: false)
                        throw NetworkError.unavailable("\(network.name)'s stream broke (\(fault), scripted)")
                    }
                    network.record("stream", String(next.id), nil, carriedOut: true)
                    return network.networkPost(next, handles: false)
                }
            }
        }
    }

    public func postExists(_ postID: String, as account: Account, for work: Work) async throws -> Bool {
        let id = Int64(postID) ?? -1
        return try await call("postExists", key: postID, .read) { state, now in state.posts[id]?.isVisible(at: now) ?? false }
    }

    /// A create: the bot's post made for `madeFor`; with idempotent creates, the post already made for it is the answer.
    private func create(_ operation: String, madeFor: String, text: String, warning: String?, replyTo: Int64?) async throws -> String? {
        if warning != nil && !showsWarnings { throw NetworkError.unpostable("behind a content warning, which \(name) cannot show") }
        let (bot, idempotent, repeatWindow, keyWindow) = (world.bot, idempotentCreates, capabilities.refusesRepeatsWithin, idempotencyWindow)
        return try await call(operation, key: madeFor, .create) { state, now in
            if idempotent, let made = state.posts.values.first(where: { $0.madeFor == madeFor && now.timeIntervalSince($0.createdAt) < keyWindow }) {
                return String(made.id)
            }
            // As X: a text the account posted within the window is refused as a duplicate (the bot should never ask).
            if let repeatWindow,
                let earlier = state.posts.values.first(where: { post in
                    post.authorID == bot.id && post.deletedAt == nil && post.text == text && post.createdAt > now.addingTimeInterval(-repeatWindow)
                })
            {
                state.repeatsRefused.append(text)
                throw NetworkError.duplicate(
                    "\(operation) (\(madeFor)): 403 duplicate content: the bot posted the same text as \(earlier.id) (scripted)")
            }
            let replied = replyTo.flatMap { state.posts[$0] }
            var post = ScriptedWorld.Post(
                id: ScriptedWorld.id(at: now, scripted: false, &state), authorID: bot.id, text: text, createdAt: now,
                replyToPostID: replyTo, replyToUserID: replied?.authorID,
                conversationID: replied.map { $0.conversationID ?? $0.id }, contentWarning: warning)
            post.madeFor = madeFor
            state.posts[post.id] = post
            return String(post.id)
        }
    }

    public func post(_ text: String, warning: String?, slot: String, for work: Work) async throws -> String? {
        try await create("post", madeFor: "post:" + slot, text: text, warning: warning, replyTo: nil)
    }

    public func reply(_ text: String, warning: String?, to postID: String, for work: Work) async throws -> String? {
        try await create("reply", madeFor: "reply:" + postID, text: text, warning: warning, replyTo: Int64(postID))
    }

    public func ownRecentPost(_ text: String?, inReplyTo postID: String?, sentSince: Date?, for work: Work) async throws -> String? {
        let bot = world.bot.id
        return try await call("ownRecentPost", key: "\(text ?? "*")|\(postID ?? "-")", .readBack) { state, now in
            let newest = state.posts.values.filter { post in
                post.authorID == bot && post.madeFor != nil && post.isVisible(at: now)
                    && sentSince.map { post.createdAt >= ReadBack.since($0) } ?? true
            }.sorted { $0.id > $1.id }.prefix(ReadBack.pageSize(sentSince: sentSince))
            return newest.first { post in (text == nil || post.text == text) && (postID == nil || post.replyToPostID.map(String.init) == postID) }
                .map { String($0.id) }
        }
    }

    public func deletePost(_ postID: String, for work: Work) async throws -> Bool {
        let (id, bot) = (Int64(postID) ?? -1, world.bot.id)
        return try await call("deletePost", key: postID, .idempotentWrite) { state, now in
            guard let post = state.posts[id], post.authorID == bot, post.deletedAt == nil else { return false }
            state.posts[id]?.deletedAt = now
            return true
        }
    }

    public func like(_ postID: String, as botID: String, for work: Work) async throws {
        let id = Int64(postID) ?? -1
        try await call("like", key: postID, .idempotentWrite) { state, now in
            if state.likes[id] == nil, state.posts[id] != nil { state.likes[id] = now }
        }
    }

    public func checkLikes(as botID: String, on postID: String, for work: Work) async throws {
        try await call("like", key: "check \(postID)", .idempotentWrite) { _, _ in }
    }

    public func refusal(of capability: NetworkCapability, for account: Account) -> NetworkRefusal? {
        guard let until = world.state.withLock({ $0.refusedUntil["like"] }), clock.now() < until else { return nil }
        return NetworkRefusal(since: until.addingTimeInterval(-3_600), recheckAt: until, what: "like", detail: "scripted refusal")
    }

    public func keepAsideForPosts(at dates: [Date]) {}
    public var accounting: (any NetworkAccounting)? { nil }
    public func mostItCosts(_ reading: PlannedReading) -> NetworkCost? { nil }
}

extension ScriptedWorld {
    /// A post id for `date`: ids grow with time, as X's and Mastodon's do (milliseconds since 1970, then a sequence:
    /// posts scripted ahead take the lower half of it, posts made during the run the upper, so that they never meet).
    static func id(at date: Date, scripted: Bool, _ state: inout State) -> Int64 {
        state.sequence &+= 1
        return Int64(date.timeIntervalSince1970 * 1000) << 10 | (scripted ? 0 : 512) | Int64(state.sequence % 512)
    }

    /// A post id for `date`, for posts scripted ahead.
    public func id(at date: Date) -> Int64 { state.withLock { Self.id(at: date, scripted: true, &$0) } }
}
