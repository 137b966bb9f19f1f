import ArgumentParser
import Tokenizer

/// `mirror_bot tokenize TEXT`: shows the words the favorite filter would learn from a text.
struct TokenizeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokenize",
        abstract: "Prints the nouns the favorite filter learns from a text, one per line.",
        discussion: "Reads the texts given as arguments, or standard input line by line when none is given."
    )

    @Argument(help: "Texts to tokenize (post text, HTML entities and all).")
    var texts: [String] = []

    func run() async throws {
        let tokenizer = try PostTokenizer()
        if texts.isEmpty {
            while let line = readLine() { print(try tokenizer.nouns(in: line).joined(separator: " ")) }
        } else {
            for text in texts { print(try tokenizer.nouns(in: text).joined(separator: "\n")) }
        }
    }
}
