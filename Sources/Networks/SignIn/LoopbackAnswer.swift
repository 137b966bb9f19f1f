import Foundation
public import HTTPCore

extension SignInSteps {
    /// The redirect's query: the browser's request to the listener, or an address pasted on standard input (a browser
    /// on another computer cannot reach this one); nil after `limit`. Standard input is read on a thread of its own,
    /// left blocked when the browser comes first (the command ends soon after); its end (no terminal) leaves the wait
    /// to the browser.
    public static func redirect(
        from listener: LoopbackRedirect, within limit: Duration,
        accepting isAnswer: @escaping @Sendable ([String: String]) -> Bool
    ) async -> [String: String]? {
        let (answers, answer) = AsyncStream.makeStream(of: [String: String]?.self)
        let listening = Task { if let query = await listener.query(where: isAnswer) { answer.yield(query) } }
        let timer = Task {
            try? await Task.sleep(for: limit)
            answer.yield(nil)
        }
        let path = listener.path
        Thread.detachNewThread {
            while let line = readLine() {
                guard let components = URLComponents(string: line.trimmingCharacters(in: .whitespaces)), components.path == path,
                    let items = components.queryItems, !items.isEmpty
                else { continue }
                let query = Dictionary(items.map { ($0.name, $0.value ?? "") }) { $1 }
                guard isAnswer(query) else {
                    FileHandle.standardError.write(
                        Data(
                            "That address is not this sign-in's answer (another state): ignored; paste the one the browser ends on after this sign-in.\n"
                                .utf8))
                    continue
                }
                answer.yield(query)
                return
            }
        }
        defer {
            listening.cancel()
            timer.cancel()
        }
        for await first in answers { return first }
        return nil
    }
}
