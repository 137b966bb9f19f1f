/// What the commands' help says of Misskey, by command.
let misskeyHelp: [String: String] = [
    "doctor": """
    On Misskey (NETWORK=misskey, free): whose each token is and the permissions it needs, whether the bot account is \
    flagged as a bot and says how to reach who runs it, and the bot's instance's longest note.
    """,
    "forget": "On Misskey each deletion is free.",
    "optout": """
    On Misskey an account is named by its id as the instance writes it (9xu1001, a1b2c3d4e5: letters and digits) or \
    its handle (bob, bob@example.social); a handle made of lowercase letters and digits alone takes an @ in front.
    """,
    "start": """
    Misskey (NETWORK=misskey): the two Misskey instances and tokens (notes posted home, likes as MISSKEY_LIKE_REACTION \
    reactions, mentions streamed, free).
    """,
    "setup": "On Misskey the bot flag is set in the account's own settings: `mirror_bot doctor` says whether it is.",
]
