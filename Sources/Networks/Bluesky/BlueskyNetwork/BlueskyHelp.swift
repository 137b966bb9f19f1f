/// What the commands' help says of Bluesky, by command.
let blueskyHelp: [String: String] = [
    "doctor": """
    On Bluesky (NETWORK=bluesky, free): each account's handle and DID, the bot's session and PDS (one login, which the \
    daemon's stored session then spares), and the bot's self-label "bot" (`mirror_bot setup bluesky` adds it).
    """,
    "forget": "On Bluesky each deletion is free.",
    "optout": "On Bluesky an account is named by its DID (did:plc:…) or its handle (bob.bsky.social).",
    "start": """
    Bluesky (NETWORK=bluesky): the bot's handle and app password and the person's handle (free; no likes unless \
    LIKES=on; its session kept in the database).
    """,
    "setup": """
    On Bluesky (NETWORK=bluesky): adds the self-label "bot" to the bot's profile, keeping every other field of it (a \
    compare-and-swap on the profile record: a profile edited meanwhile is read again). Running it again changes nothing.
    """,
]
