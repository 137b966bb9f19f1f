import Foundation
public import SocialNetwork

extension SignInSteps {
    /// How many times a sign-in asks on the terminal before it gives up.
    public static let terminalTries = 3

    /// Asks on the terminal until the network accepts, at most `terminalTries` times: each time writes `prompt` to
    /// standard error, reads a line, and hands it to `finish`; a refusal is shown after `refusedLabel` and asked again
    /// (a code pasted short, or an approval not yet given, can be tried again). Throws the last refusal's sentence, or
    /// `noAnswer` when standard input ended before any answer.
    public static func askOnTerminal(
        prompt: String, refusedLabel: String, noAnswer: String, finish: (String) async throws -> AuthorizedAccount
    ) async throws -> AuthorizedAccount {
        var lastRefusal: String?
        for _ in 0..<terminalTries {
            FileHandle.standardError.write(Data(prompt.utf8))
            guard let typed = readLine() else { break }
            do {
                return try await finish(typed)
            } catch let refusal as AuthorizationRefused {
                lastRefusal = refusal.description
                FileHandle.standardError.write(Data("\(refusedLabel): \(refusal.description)\n".utf8))
            }
        }
        throw AuthorizationRefused(lastRefusal ?? noAnswer)
    }
}
