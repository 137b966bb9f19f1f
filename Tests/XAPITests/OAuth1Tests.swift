import Foundation
import Testing

@testable import XAPI

@Suite("OAuth 1.0a signing")
struct OAuth1Tests {
    static let xParameters = OAuth1.ProtocolParameters(
        consumerKey: "xvz1evFS4wEEPTGEFPHBog", token: "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb",
        nonce: "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg", timestamp: 1_318_622_958)
    static let xBody = [("status", "Hello Ladies + Gentlemen, a signed OAuth request!")]

    func xSignature(host: String) -> String {
        let base = OAuth1.signatureBaseString(
            method: "POST", url: URL(string: "https://\(host)/1.1/statuses/update.json?include_entities=true")!,
            formParameters: Self.xBody, protocolParameters: Self.xParameters)
        return OAuth1.signature(
            baseString: base, consumerSecret: "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw",
            tokenSecret: "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE")
    }

    @Test("X's \"Creating a signature\" example, on api.x.com and on api.twitter.com")
    func xDocumentationExample() {
        #expect(xSignature(host: "api.x.com") == "Ls93hJiZbQ3akF3HF3x1Bz8/zU4=")
        #expect(xSignature(host: "api.twitter.com") == "hCtSmYh+iHYCEqBWrE7C7hYmtUk=")
    }

    @Test("The base string of X's example is the documented one")
    func xBaseString() {
        let base = OAuth1.signatureBaseString(
            method: "post", url: URL(string: "https://api.twitter.com/1.1/statuses/update.json?include_entities=true")!,
            formParameters: Self.xBody, protocolParameters: Self.xParameters)
        #expect(
            base
                == "POST&https%3A%2F%2Fapi.twitter.com%2F1.1%2Fstatuses%2Fupdate.json&include_entities%3Dtrue%26oauth_consumer_key%3Dxvz1evFS4wEEPTGEFPHBog%26oauth_nonce%3DkYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1318622958%26oauth_token%3D370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb%26oauth_version%3D1.0%26status%3DHello%2520Ladies%2520%252B%2520Gentlemen%252C%2520a%2520signed%2520OAuth%2520request%2521"
        )
    }

    @Test("RFC 5849's photos example, without oauth_version")
    func rfc5849Example() {
        let parameters = OAuth1.ProtocolParameters(
            consumerKey: "dpf43f3p2l4k3l03", token: "nnch734d00sl2jdk", nonce: "chapoH",
            timestamp: 137_131_202, includesVersion: false)
        let base = OAuth1.signatureBaseString(
            method: "GET", url: URL(string: "http://photos.example.net/photos?file=vacation.jpg&size=original")!,
            protocolParameters: parameters)
        #expect(
            OAuth1.signature(baseString: base, consumerSecret: "kd94hf93k423kf44", tokenSecret: "pfkkdhi9sl3r4s00")
                == "MdpQcU8iPSUjWoN/UDMsK2sui9I=")
    }

    @Test("Percent-encoding follows RFC 3986")
    func percentEncoding() {
        #expect(PercentEncoding.encode("☃") == "%E2%98%83")
        #expect(PercentEncoding.encode("a b") == "a%20b")
        #expect(PercentEncoding.encode("Ladies + Gentlemen") == "Ladies%20%2B%20Gentlemen")
        #expect(PercentEncoding.encode("AZaz09-._~") == "AZaz09-._~")
        #expect(PercentEncoding.encode("!*'();:@&=+$,/?#[]") == "%21%2A%27%28%29%3B%3A%40%26%3D%2B%24%2C%2F%3F%23%5B%5D")
        #expect(PercentEncoding.decode("%E2%98%83+x", plusIsSpace: true) == "☃ x")
        #expect(PercentEncoding.decode("%E2%98") == nil)
    }

    @Test("The Authorization header carries every protocol parameter and round-trips through the parser")
    func authorizationHeader() throws {
        let header = OAuth1.authorizationHeader(
            method: "GET", url: URL(string: "https://api.x.com/2/users/me?user.fields=username")!,
            credentials: .init(consumerKey: "ck", consumerSecret: "SECRET-1", accessToken: "at", accessTokenSecret: "SECRET-2"),
            nonce: "n o", timestamp: 1)
        let fields = try #require(OAuth1.parseAuthorizationHeader(header))
        #expect(fields["oauth_consumer_key"] == "ck")
        #expect(fields["oauth_nonce"] == "n o")
        #expect(fields["oauth_signature_method"] == "HMAC-SHA1")
        #expect(fields["oauth_version"] == "1.0")
        #expect(fields["oauth_signature"]?.isEmpty == false)
        #expect(!header.contains("SECRET"))
    }
}
