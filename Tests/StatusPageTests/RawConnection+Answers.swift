import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension RawConnection {
    /// The head of the server's answer (up to its blank line), and whether the server closed the connection instead;
    /// gives up after 10 s of the monotonic clock.
    func answerHead() -> (closed: Bool, answer: String) { read(until: { $0.contains("\r\n\r\n") }) }

    /// What the server sends until it closes the connection, and whether it did within 10 s of the monotonic clock.
    func answerUntilClosed() -> (closed: Bool, answer: String) { read(until: { _ in false }) }

    /// What the server sends until `enough` says so or it closes the connection (then `closed`), for at most 10 s.
    private func read(until enough: (String) -> Bool) -> (closed: Bool, answer: String) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let deadline = DispatchTime.now().uptimeNanoseconds + 10_000_000_000
        while !enough(String(decoding: received, as: UTF8.self)) {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { return (false, String(decoding: received, as: UTF8.self)) }
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let polled = poll(&ready, 1, Int32((deadline - now) / 1_000_000) + 1)
            if polled < 0 && errno == EINTR { continue }
            guard polled > 0 else { continue }
            let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count == 0 { return (true, String(decoding: received, as: UTF8.self)) }
            if count < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
                return (true, String(decoding: received, as: UTF8.self))
            }
            received += buffer[0..<count]
        }
        return (false, String(decoding: received, as: UTF8.self))
    }
}
