/// What is wrong with the environment, as sentences that name each variable and the form it needs.
///
/// Values of secret variables are never repeated in the message.
public struct ConfigurationError: Error, Equatable, CustomStringConvertible {
    /// One thing wrong with one variable.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        /// The environment variable at fault.
        public var variable: String
        /// Whether the variable is missing (rather than malformed).
        public var isMissing: Bool
        /// The form the variable must have, as shown to the user.
        public var expected: String
        /// The offending value when it is safe to show, else nil.
        public var shownValue: String?

        /// A problem from its parts.
        public init(variable: String, isMissing: Bool, expected: String, shownValue: String? = nil) {
            self.variable = variable
            self.isMissing = isMissing
            self.expected = expected
            self.shownValue = shownValue
        }

        /// One sentence: what is wrong and what to set.
        public var description: String {
            if isMissing { return "\(variable) is not set; set it to \(expected)." }
            let value = shownValue.map { " (\"\($0)\")" } ?? ""
            return "\(variable) is malformed\(value); it must be \(expected)."
        }
    }

    /// Every problem found, in the order variables were read.
    public var problems: [Problem]

    /// An error for the given problems.
    public init(problems: [Problem]) { self.problems = problems }

    /// The same problems with no value shown: for settings whose every value is kept from the screen (`bots add`).
    public var withoutValues: ConfigurationError {
        ConfigurationError(
            problems: problems.map {
                var problem = $0
                problem.shownValue = nil
                return problem
            })
    }

    /// All problems, one per line.
    public var description: String {
        if problems.count == 1 { return "Configuration error: \(problems[0])" }
        return (["Configuration errors:"] + problems.map { "  - \($0)" }).joined(separator: "\n")
    }
}
