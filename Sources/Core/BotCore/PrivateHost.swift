import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether an address a visitor typed, or one a remote document named, is on this machine or a private network, where
/// a service on the internet must never be made to send requests: `localhost` and the names only a local resolver
/// answers, the loopback, private, link-local and shared IPv4 ranges (in every form the resolver reads: `127.1`,
/// `2130706433`), and their IPv6 kin (`::1`, `fc00::/7`, `fe80::/10`, `::ffff:10.0.0.1`). A public name that resolves
/// to a private address is not caught.
public enum PrivateHost {
    /// Whether `server` (a host, or an address with a scheme) names such a host.
    public static func named(in server: String) -> Bool {
        let typed = server.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let host = URL(string: typed.contains("://") ? typed : "https://" + typed)?.host()?.lowercased() else { return false }
        let name = host.hasSuffix(".") ? String(host.dropLast()) : host
        if name == "localhost" || [".localhost", ".local", ".internal", ".lan", ".home.arpa"].contains(where: name.hasSuffix) { return true }
        var v4 = in_addr()
        if inet_aton(name, &v4) != 0 { return isPrivate(v4: UInt32(bigEndian: v4.s_addr)) }
        var v6 = in6_addr()
        let address = name.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        guard address.contains(":"), inet_pton(AF_INET6, address, &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] <= 1 { return true }  // :: and ::1
        if bytes[0] & 0xfe == 0xfc || (bytes[0] == 0xfe && bytes[1] & 0xc0 == 0x80) { return true }  // fc00::/7, fe80::/10
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {  // ::ffff:a.b.c.d
            return isPrivate(v4: bytes[12..<16].reduce(0) { $0 << 8 | UInt32($1) })
        }
        return false
    }

    /// Whether an IPv4 address (host order) is this machine's, a private network's, link-local or shared.
    public static func isPrivate(v4 address: UInt32) -> Bool {
        let (a, b) = (address >> 24, (address >> 16) & 0xff)
        switch (a, b) {
        case (0, _), (10, _), (127, _), (169, 254), (192, 168): return true
        case (172, 16...31), (100, 64...127): return true
        default: return false
        }
    }
}
