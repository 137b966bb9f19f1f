/// The parts of a `scheme://user:password@host:port/path?query` URL, percent-decoded.
///
/// Foundation's `URL` is not used: it rejects some passwords Heroku generates and differs between platforms.
struct URLParts {
    var scheme: String
    var user: String?
    var password: String?
    var host: String
    var port: Int?
    var path: String?
    var query: [String: String]

    init?(_ text: String) {
        guard let schemeEnd = text.range(of: "://") else { return nil }
        scheme = text[..<schemeEnd.lowerBound].lowercased()
        var rest = Substring(text[schemeEnd.upperBound...])

        query = [:]
        if let questionMark = rest.firstIndex(of: "?") {
            for pair in rest[rest.index(after: questionMark)...].split(separator: "&") {
                let keyValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard let key = Self.percentDecoded(keyValue[0]) else { return nil }
                query[key] = keyValue.count > 1 ? Self.percentDecoded(keyValue[1]) : ""
            }
            rest = rest[..<questionMark]
        }
        // The user information ends at the last `@`: passwords may contain `@` when not encoded.
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = userInfo.firstIndex(of: ":") {
                user = Self.percentDecoded(userInfo[..<colon])
                password = Self.percentDecoded(userInfo[userInfo.index(after: colon)...])
            } else {
                user = Self.percentDecoded(userInfo)
            }
        }
        let authority: Substring
        if let slash = rest.firstIndex(of: "/") {
            authority = rest[..<slash]
            path = Self.percentDecoded(rest[rest.index(after: slash)...])
        } else {
            authority = rest
        }
        if authority.hasPrefix("[") {  // [::1]:5432
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") {
                guard let number = Int(after.dropFirst()), (1...65535).contains(number) else { return nil }
                port = number
            } else if !after.isEmpty {
                return nil
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            guard let number = Int(authority[authority.index(after: colon)...]), (1...65535).contains(number) else { return nil }
            port = number
        } else {
            host = String(authority)
        }
        guard !host.isEmpty, !scheme.isEmpty else { return nil }
    }

    static func percentDecoded(_ text: Substring) -> String? {
        guard text.contains("%") else { return String(text) }
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next(), let low = iterator.next(),
                    let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
                else { return nil }
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
