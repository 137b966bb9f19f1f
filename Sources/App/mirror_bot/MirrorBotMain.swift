import MirrorBotCommands

/// The `mirror_bot` executable: logging to standard error, then the command line.
@main
struct MirrorBotMain {
    static func main() async {
        bootstrapLogging()
        await MirrorBot.runCommandLine()
    }
}
