/// Decodes the HTML character references X puts in post text (`&amp;`, `&lt;`, `&gt;`, and the occasional
/// `&quot;`, `&#39;`, `&#12354;`, `&#x3042;`). Unknown or malformed references are kept as they are.
enum HTMLEntities {
    private static let named: [Substring: Unicode.Scalar] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{00A0}",
    ]

    static func decode(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "&")) else { return text }
        var result = String.UnicodeScalarView()
        let scalars = text.unicodeScalars
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let scalar = scalars[index]
            if scalar == "&", let semicolon = scalars[index...].prefix(12).firstIndex(of: ";") {
                let name = Substring(scalars[scalars.index(after: index)..<semicolon])
                if let decoded = decodeReference(name) {
                    result.append(decoded)
                    index = scalars.index(after: semicolon)
                    continue
                }
            }
            result.append(scalar)
            index = scalars.index(after: index)
        }
        return String(result)
    }

    private static func decodeReference(_ name: Substring) -> Unicode.Scalar? {
        if let scalar = named[name] { return scalar }
        guard name.hasPrefix("#") else { return nil }
        let digits = name.dropFirst()
        let value = digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
        return value.flatMap(Unicode.Scalar.init)
    }
}
