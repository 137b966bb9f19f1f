/// What the commands' help says of Mastodon, by command.
let mastodonHelp: [String: String] = [
    "doctor": """
    On Mastodon (NETWORK=mastodon, free): whose each token is, whether its scopes cover what the account needs, \
    whether the bot account has the bot flag, and the bot's instance's longest status.
    """,
    "forget": "On Mastodon each deletion is free.",
    "start": """
    Mastodon (NETWORK=mastodon): the two Mastodon instances and tokens; mentions are streamed, likes are allowed, and \
    nothing is billed.
    """,
    "setup": "On Mastodon the bot flag is set in the instance's profile settings: `mirror_bot doctor` says whether it is.",
]
