public import Foundation

/// The `Link` header of a paged answer (RFC 8288): `<https://…?max_id=7>; rel="next", <https://…?min_id=9>; rel="prev"`.
public struct LinkHeader: Sendable, Equatable {
    /// The older page.
    public var next: URL?
    /// The newer page.
    public var prev: URL?

    /// The links of `value`; unknown relations and malformed parts are ignored.
    public init(_ value: String?) {
        guard let value else { return }
        for part in value.split(separator: ",") {
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let target = pieces.first, target.hasPrefix("<"), target.hasSuffix(">"),
                let url = URL(string: String(target.dropFirst().dropLast()))
            else { continue }
            for parameter in pieces.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard pair.count == 2, pair[0].lowercased() == "rel" else { continue }
                for relation in pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")).split(separator: " ") {
                    if relation == "next" { next = url } else if relation == "prev" { prev = url }
                }
            }
        }
    }
}
