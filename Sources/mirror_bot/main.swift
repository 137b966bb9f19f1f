import MirrorBotCommands
await MirrorBot.main()
