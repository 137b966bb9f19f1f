import Crypto
import Foundation

/// The OAuth authorization server's endpoints, over `FakeBlueskyOAuthState`: this server is the account's PDS and its
/// own authorization server, as a self-hosted PDS is.
extension FakeBlueskyWorld {
    var issuer: String { pdsURL }

    /// `/.well-known/oauth-protected-resource`.
    func protectedResourceMetadata() -> FakeBlueskyResponse {
        .json(
            ["resource": .string(pdsURL), "authorization_servers": .strings([issuer]), "bearer_methods_supported": .strings(["header"])]
                as [String: OAuthJSON])
    }

    /// `/.well-known/oauth-authorization-server`.
    func authorizationServerMetadata() -> FakeBlueskyResponse {
        .json(
            [
                "issuer": .string(issuer),
                "authorization_endpoint": .string(issuer + "/oauth/authorize"),
                "token_endpoint": .string(issuer + "/oauth/token"),
                "revocation_endpoint": .string(issuer + "/oauth/revoke"),
                "pushed_authorization_request_endpoint": .string(issuer + "/oauth/par"),
                "require_pushed_authorization_requests": .bool(true),
                "dpop_signing_alg_values_supported": .strings(["ES256"]),
                "code_challenge_methods_supported": .strings(["S256"]),
                "response_types_supported": .strings(["code"]),
                "grant_types_supported": .strings(["authorization_code", "refresh_token"]),
                "token_endpoint_auth_methods_supported": .strings(["none", "private_key_jwt"]),
                "scopes_supported": .strings(["atproto", "transition:generic", "rpc:app.bsky.feed.getActorLikes?aud=*"]),
                "authorization_response_iss_parameter_supported": .bool(true),
                "client_id_metadata_document_supported": .bool(true),
            ] as [String: OAuthJSON])
    }

    /// `POST /oauth/par`: the authorization request, pushed, with a DPoP proof; a confidential client's (`fetched`:
    /// its metadata and key set, read by the server) signed with its assertion.
    func pushAuthorizationRequest(_ form: [String: String], proof: String?, fetched: Result<FakeBlueskyClient, FakeBlueskyClient.FetchRefusal>? = nil)
        -> FakeBlueskyResponse
    {
        let endpoint = "par"
        let thumbprint: String
        switch oauth.checkProof(proof, method: "POST", url: issuer + "/oauth/par", accessToken: nil, now: now, speed: speed, endpoint: endpoint) {
        case .success(let key): thumbprint = key
        case .failure(let refusal): return refusal
        }
        let client: (redirectURIs: [String], scope: String)
        var confidential: FakeBlueskyClient?
        switch fetched {
        case .failure(let refusal): return oauth.refuse(endpoint, 400, "invalid_client_metadata", refusal.description)
        case .success(let fetched):
            if let refusal = fetched.checkAssertion(form, issuer: issuer, now: now, speed: speed, seen: &oauth.seenProofs) {
                return oauth.refuse(endpoint, 401, "invalid_client", refusal)
            }
            client = (fetched.redirectURIs, fetched.scope)
            confidential = fetched
        case nil:
            guard let clientID = form["client_id"], let loopback = FakeBlueskyOAuthState.loopbackClient(clientID) else {
                return oauth.refuse(
                    endpoint, 400, "invalid_client", "client_id must be a client metadata address or a loopback client (http://localhost)")
            }
            client = loopback
        }
        let clientID = form["client_id"] ?? ""
        guard form["response_type"] == "code" else { return oauth.refuse(endpoint, 400, "unsupported_response_type", "response_type must be code") }
        guard let redirect = form["redirect_uri"],
            confidential == nil
                ? client.redirectURIs.contains(where: { Self.sameLoopbackAddress($0, redirect) }) : client.redirectURIs.contains(redirect)
        else {
            return oauth.refuse(endpoint, 400, "invalid_request", "redirect_uri is not one of the client's")
        }
        guard let challenge = form["code_challenge"], challenge.count == 43, form["code_challenge_method"] == "S256" else {
            return oauth.refuse(endpoint, 400, "invalid_request", "PKCE with S256 is required")
        }
        guard let state = form["state"], !state.isEmpty else { return oauth.refuse(endpoint, 400, "invalid_request", "state is required") }
        let scope = form["scope"] ?? ""
        let asked = Set(scope.split(separator: " ").map(String.init))
        let allowed = Set(client.scope.split(separator: " ").map(String.init))
        guard asked.contains("atproto"), asked.isSubset(of: allowed) else {
            return oauth.refuse(endpoint, 400, "invalid_scope", "scope must include atproto and stay within the client's")
        }
        let requestURI = "urn:ietf:params:oauth:request_uri:" + oauth.nextID("req")
        oauth.pushed[requestURI] = .init(
            clientID: clientID, redirectURI: redirect, scope: scope, state: state, challenge: challenge,
            keyThumbprint: thumbprint, loginHint: form["login_hint"], expires: now.addingTimeInterval(300 * max(1, speed)), client: confidential)
        var response = FakeBlueskyResponse.json(["request_uri": .string(requestURI), "expires_in": .number(299)] as [String: OAuthJSON])
        response.status = 201
        response.headers.append(("DPoP-Nonce", oauth.nonce))
        return response
    }

    /// `GET /oauth/authorize`: the sign-in page for a pushed request.
    func authorizationPage(_ query: [String: String]) -> FakeBlueskyResponse {
        guard let requestURI = query["request_uri"], let pushed = oauth.pushed[requestURI], pushed.expires > now,
            query["client_id"] == pushed.clientID
        else {
            return .page(
                400,
                "<h1>This sign-in link has expired or is not valid</h1><p class=\"oauth-error\" data-error=\"invalid_request\">Start again from the app.</p>"
            )
        }
        return .page(
            200,
            """
            <h1>Sign in to Fake Bluesky</h1>
            <p>\(pushed.client == nil ? "An app on your own computer" : "The web app") (\(Self.escaped(pushed.clientID))) asks for: <code>\(Self.escaped(pushed.scope))</code></p>
            <form method="post" action="/oauth/authorize">
            <input type="hidden" name="request_uri" value="\(Self.escaped(requestURI))">
            <label>Handle <input name="identifier" value="\(Self.escaped(pushed.loginHint ?? ""))"></label>
            <label>Password <input name="password" type="password"></label>
            <button name="decision" value="accept">Accept</button>
            <button name="decision" value="deny">Deny</button>
            </form>
            """)
    }

    /// `POST /oauth/authorize`: the person signs in and accepts (or denies): a redirect to the client with `code`,
    /// `state` and `iss`.
    func authorize(_ form: [String: String]) -> FakeBlueskyResponse {
        guard let requestURI = form["request_uri"], let pushed = oauth.pushed[requestURI], pushed.expires > now else {
            return .page(
                400,
                "<h1>This sign-in link has expired or is not valid</h1><p class=\"oauth-error\" data-error=\"invalid_request\">Start again from the app.</p>"
            )
        }
        func back(_ items: [URLQueryItem]) -> FakeBlueskyResponse {
            oauth.pushed[requestURI] = nil
            var address = URLComponents(string: pushed.redirectURI)!
            address.queryItems = items + [URLQueryItem(name: "state", value: pushed.state), URLQueryItem(name: "iss", value: issuer)]
            return FakeBlueskyResponse(status: 302, body: Data(), headers: [("Location", address.string!), ("Cache-Control", "no-store")])
        }
        if form["decision"] == "deny" {
            return back([
                URLQueryItem(name: "error", value: "access_denied"), URLQueryItem(name: "error_description", value: "The user denied access"),
            ])
        }
        let identifier = (form["identifier"] ?? "").lowercased().trimmingCharacters(in: .whitespaces)
        guard let account = accounts.values.first(where: { $0.handle == identifier || $0.did == identifier }),
            form["password"] == (account.password ?? "\(account.handle)-password")
        else {
            oauth.refusals.append("authorize: wrong identifier or password")
            return .page(
                401, "<h1>Sign in to Fake Bluesky</h1><p class=\"oauth-error\" data-error=\"invalid_credentials\">Invalid identifier or password</p>")
        }
        let code = oauth.nextID("cod")
        // A person's steps take real time: with the clock running fast, the limits are in real seconds.
        oauth.codes[code] = .init(pushed: pushed, did: account.did, expires: now.addingTimeInterval(600 * max(1, speed)))
        return back([URLQueryItem(name: "code", value: code)])
    }

    /// `POST /oauth/token`: a code (with its PKCE verifier, from the client and key that pushed its request) or a
    /// refresh token (single use, bound to the grant's key) for DPoP-bound tokens.
    func token(_ form: [String: String], proof: String?) -> FakeBlueskyResponse {
        let endpoint = "token"
        let thumbprint: String
        switch oauth.checkProof(proof, method: "POST", url: issuer + "/oauth/token", accessToken: nil, now: now, speed: speed, endpoint: endpoint) {
        case .success(let key): thumbprint = key
        case .failure(let refusal): return refusal
        }
        switch form["grant_type"] {
        case "authorization_code":
            guard let code = form["code"], var issued = oauth.codes[code] else { return oauth.refuse(endpoint, 400, "invalid_grant", "Invalid code") }
            if issued.used {
                // A code used twice was stolen: what it gave is revoked too.
                for (id, grant) in oauth.grants where grant.did == issued.did && grant.clientID == issued.pushed.clientID {
                    oauth.grants[id]?.revoked = true
                }
                return oauth.refuse(endpoint, 400, "invalid_grant", "Code already used")
            }
            issued.used = true
            oauth.codes[code] = issued
            guard issued.expires > now else { return oauth.refuse(endpoint, 400, "invalid_grant", "Code expired") }
            guard form["client_id"] == issued.pushed.clientID else {
                return oauth.refuse(endpoint, 400, "invalid_grant", "The code was issued to another client")
            }
            if let client = issued.pushed.client,
                let refusal = client.checkAssertion(form, issuer: issuer, now: now, speed: speed, seen: &oauth.seenProofs)
            {
                return oauth.refuse(endpoint, 401, "invalid_client", refusal)
            }
            guard form["redirect_uri"] == issued.pushed.redirectURI else {
                return oauth.refuse(endpoint, 400, "invalid_grant", "redirect_uri does not match")
            }
            guard let verifier = form["code_verifier"],
                FakeBlueskyOAuthState.base64URL(Data(SHA256.hash(data: Data(verifier.utf8)))) == issued.pushed.challenge
            else {
                return oauth.refuse(endpoint, 400, "invalid_grant", "Invalid code_verifier")
            }
            guard thumbprint == issued.pushed.keyThumbprint else {
                return oauth.refuse(endpoint, 400, "invalid_dpop_key_binding", "DPoP key does not match the one used for PAR")
            }
            let grant = oauth.nextID("grant")
            oauth.grants[grant] = .init(
                did: issued.did, clientID: issued.pushed.clientID, keyThumbprint: thumbprint, scope: issued.pushed.scope, refreshToken: "",
                client: issued.pushed.client, createdAt: now, updatedAt: now)
            return issueTokens(grant: grant, type: "authorization_code")
        case "refresh_token":
            guard let token = form["refresh_token"] else { return oauth.refuse(endpoint, 400, "invalid_request", "refresh_token is required") }
            if let spent = oauth.usedRefreshTokens[token] {
                oauth.grants[spent]?.revoked = true
                return oauth.refuse(endpoint, 400, "invalid_grant", "Refresh token replayed: the session is revoked")
            }
            guard let (grantID, grant) = oauth.grants.first(where: { $0.value.refreshToken == token }) else {
                return oauth.refuse(endpoint, 400, "invalid_grant", "Invalid refresh token")
            }
            guard !grant.revoked else { return oauth.refuse(endpoint, 400, "invalid_grant", "The session was revoked") }
            guard form["client_id"] == grant.clientID else {
                return oauth.refuse(endpoint, 400, "invalid_grant", "The token was issued to another client")
            }
            if let client = grant.client, let refusal = client.checkAssertion(form, issuer: issuer, now: now, speed: speed, seen: &oauth.seenProofs) {
                return oauth.refuse(endpoint, 401, "invalid_client", refusal)
            }
            guard thumbprint == grant.keyThumbprint else {
                return oauth.refuse(endpoint, 400, "invalid_dpop_key_binding", "DPoP key does not match the session's")
            }
            let confidential = grant.client != nil
            let idle = confidential ? FakeBlueskyOAuthState.confidentialIdleLimit : FakeBlueskyOAuthState.publicIdleLimit
            let lifetime = confidential ? FakeBlueskyOAuthState.confidentialLifetime : FakeBlueskyOAuthState.publicLifetime
            guard now <= grant.updatedAt.addingTimeInterval(idle) else {
                return oauth.refuse(endpoint, 400, "invalid_grant", "Refresh token exceeded inactivity timeout")
            }
            guard now <= grant.createdAt.addingTimeInterval(lifetime) else {
                return oauth.refuse(endpoint, 400, "invalid_grant", "Refresh token expired")
            }
            oauth.usedRefreshTokens[token] = grantID
            oauth.grants[grantID]?.updatedAt = now
            return issueTokens(grant: grantID, type: "refresh_token")
        default:
            return oauth.refuse(endpoint, 400, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token")
        }
    }

    /// `POST /oauth/revoke` (RFC 7009): the grant a refresh or access token belongs to is revoked; 200 whatever the
    /// token (a token it does not know is no error), once the proof is good.
    func revoke(_ form: [String: String], proof: String?) -> FakeBlueskyResponse {
        if case .failure(let refusal) = oauth.checkProof(
            proof, method: "POST", url: issuer + "/oauth/revoke", accessToken: nil, now: now, speed: speed, endpoint: "revoke")
        {
            return refusal
        }
        let token = form["token"] ?? ""
        let grant = oauth.grants.first { $0.value.refreshToken == token }?.key ?? oauth.accessTokens[token]?.grant
        // A confidential client's grant is revoked only by that client, authenticated (RFC 7009 §2.1).
        if let grant, let client = oauth.grants[grant]?.client {
            guard form["client_id"] == client.clientID else {
                return oauth.refuse("revoke", 401, "invalid_client", "The token was issued to another client")
            }
            if let refusal = client.checkAssertion(form, issuer: issuer, now: now, speed: speed, seen: &oauth.seenProofs) {
                return oauth.refuse("revoke", 401, "invalid_client", refusal)
            }
        }
        if let grant { oauth.grants[grant]?.revoked = true }
        return .json([String: OAuthJSON]())
    }

    private func issueTokens(grant id: String, type: String) -> FakeBlueskyResponse {
        guard let grant = oauth.grants[id] else { return oauth.refuse("token", 400, "invalid_grant", "Unknown session") }
        let access = oauth.nextID("dpop-access")
        let refresh = oauth.nextID("refresh")
        oauth.grants[id]?.refreshToken = refresh
        oauth.accessTokens[access] = .init(did: grant.did, keyThumbprint: grant.keyThumbprint, expires: now.addingTimeInterval(3_600), grant: id)
        oauth.tokensIssued[type, default: 0] += 1
        var response = FakeBlueskyResponse.json(
            [
                "access_token": .string(access), "token_type": .string("DPoP"), "refresh_token": .string(refresh), "scope": .string(grant.scope),
                "sub": .string(grant.did), "expires_in": .number(3_600),
            ] as [String: OAuthJSON])
        response.headers.append(("DPoP-Nonce", oauth.nonce))
        response.headers.append(("Cache-Control", "no-store"))
        return response
    }

    /// The caller of an XRPC request made with a DPoP-bound access token (`Authorization: DPoP …`): the proof checked
    /// for this request (`htm`, `htu`, the nonce, `ath`) and signed by the token's key, the token live and its scope
    /// covering `nsid` (`transition:generic`, or `rpc:<nsid>?aud=…`). Refusals as the PDS answers them: 401 with
    /// `WWW-Authenticate: DPoP error="…"` (`use_dpop_nonce` with a fresh nonce, `invalid_token`), 403 for a scope.
    func authenticateDPoP(_ authorization: String, proof: String?, method: String, nsid: String) -> Result<String, FakeBlueskyResponse> {
        let token = String(authorization.dropFirst("DPoP ".count))
        func refusal(_ status: Int, _ error: String, _ message: String) -> FakeBlueskyResponse {
            oauth.refusals.append("xrpc \(nsid): \(error): \(message)")
            var response = FakeBlueskyResponse.error(status, error, message)
            if status == 401 { response.headers.append(("WWW-Authenticate", "DPoP error=\"\(error)\", error_description=\"\(message)\"")) }
            if error == "use_dpop_nonce" { response.headers.append(("DPoP-Nonce", oauth.nonce)) }
            return response
        }
        let thumbprint: String
        switch oauth.checkProof(
            proof, method: method, url: pdsURL + "/xrpc/" + nsid, accessToken: token, now: now, speed: speed, endpoint: "xrpc \(nsid)")
        {
        case .success(let key): thumbprint = key
        case .failure(let refused):
            // The AS's refusal, in the resource server's form.
            let body = (try? JSONSerialization.jsonObject(with: refused.body)) as? [String: Any]
            return .failure(
                refusal(401, body?["error"] as? String ?? "invalid_dpop_proof", body?["error_description"] as? String ?? "Invalid DPoP proof"))
        }
        guard let access = oauth.accessTokens[token], oauth.grants[access.grant]?.revoked == false else {
            return .failure(refusal(401, "invalid_token", "Token was revoked"))
        }
        guard access.expires > now else { return .failure(refusal(401, "invalid_token", "\"exp\" claim timestamp check failed")) }
        guard access.keyThumbprint == thumbprint else { return .failure(refusal(401, "invalid_token", "DPoP key does not match the token's")) }
        let scope = Set((oauth.grants[access.grant]?.scope ?? "").split(separator: " ").map(String.init))
        // The account's own session is the `atproto` scope's; the rest needs `transition:generic` or the method's `rpc:`.
        let allowed =
            nsid == "com.atproto.server.getSession" || scope.contains("transition:generic") || scope.contains(where: { $0.hasPrefix("rpc:\(nsid)?") })
        guard allowed else {
            return .failure(refusal(403, "ScopeMissingError", "Missing required scope \"rpc:\(nsid)?aud=*\""))
        }
        return .success(access.did)
    }

    /// As the account revoking the app's access in its settings: every OAuth grant of `did` ends.
    func revokeOAuthGrants(of did: String) {
        for (id, grant) in oauth.grants where grant.did == did { oauth.grants[id]?.revoked = true }
        oauth.accessTokens = oauth.accessTokens.filter { $0.value.did != did }
    }

    /// Whether two loopback redirect addresses are the same but for the port, which RFC 8252 lets the client choose.
    static func sameLoopbackAddress(_ registered: String, _ asked: String) -> Bool {
        guard let first = URLComponents(string: registered), let second = URLComponents(string: asked) else { return false }
        return first.scheme == second.scheme && first.host == second.host
            && (first.path.isEmpty ? "/" : first.path) == (second.path.isEmpty ? "/" : second.path)
            && (first.port == nil || first.port == second.port)
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "\"", with: "&quot;")
    }
}

/// A value of the OAuth documents and answers, which are plain JSON.
enum OAuthJSON: Encodable {
    case string(String)
    case number(Int)
    case bool(Bool)
    case strings([String])

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let text): try container.encode(text)
        case .number(let number): try container.encode(number)
        case .bool(let flag): try container.encode(flag)
        case .strings(let texts): try container.encode(texts)
        }
    }
}
