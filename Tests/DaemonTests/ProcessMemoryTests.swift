import Testing

@testable import Daemon

@Suite("Process memory figures")
struct ProcessMemoryTests {
    @Test("VmRSS, VmHWM, RssAnon and RssFile are read from a /proc status text, in bytes")
    func parsesStatus() throws {
        let status =
            "Name:\tmirror_bot\nVmPeak:\t  900000 kB\nVmHWM:\t   30720 kB\nVmRSS:\t   20480 kB\nRssAnon:\t   12288 kB\nRssFile:\t    7168 kB\nRssShmem:\t 1024 kB\nThreads:\t8\n"
        let memory = try #require(ProcessMemory.parse(status))
        #expect(memory.resident == 20 * 1_048_576)
        #expect(memory.peak == 30 * 1_048_576)
        #expect(memory.anonymous == 12 * 1_048_576 && memory.files == 7 * 1_048_576)
        #expect(memory.description == "20.0 MiB resident: 12.0 MiB allocated, 7.0 MiB mapped files (peak 30.0 MiB)")
        #expect(ProcessMemory.parse("Name:\tx\n") == nil)
    }

    @Test("This process's own figures are there on Linux, the peak at least the resident")
    func currentProcess() throws {
        let memory = try #require(ProcessMemory.current())
        #expect(memory.resident > 0 && memory.peak >= memory.resident)
    }
}
