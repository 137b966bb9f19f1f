/// What the commands' help says of X, by command.
let xHelp: [String: String] = [
    "doctor": """
    On X: what was spent today against X_DAILY_BUDGET; checking each account reads its user once, which X bills $0.010 \
    for; the bot's bio, read in that same call, must say the account is automated and name the person (X's automation \
    rules), or doctor says what to write.
    """,
    "forget": """
    On X each deletion is one request, billed (by mirror_bot's count, conservatively) as "Interaction: Delete", $0.010.
    """,
    "forget-me": "On X each deletion of --delete-posts is billed $0.010.",
    "optout": "On X an account is named by the id the bot sees, since mentions come without handles.",
    "start": """
    X (NETWORK=x, the default): the eight X credentials. It spends at most X_DAILY_BUDGET (default $1.00) a UTC day by \
    its own count of X's bill, shedding learning, then liking, then replies before the scheduled posts; it does not \
    like unless LIKES=on (X's self-serve access has no likes), and posts no tweet with a link unless POST_LINKS=true. \
    The scheduled posts are remixes of the person's posts near that minute, not copies (X's rules forbid the same \
    content on two accounts; POST_STYLE=copy|remix, REMIX_MAX_OVERLAP).
    """,
    "setup": "On X the bot's automated label is set in X's own settings: `mirror_bot doctor` says where.",
    "train scheduler": """
    On X reading costs money ($0.001 for each of the person's own posts, $0.010 for their user), and X returns at most \
    the newest 3,200 posts.
    """,
    "train classifier": "On X, LIKES=auto does not like (X's self-serve access has no likes).",
]
