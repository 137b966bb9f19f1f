#!/usr/bin/env python3
"""Writes a synthetic X archive export (a zip with data/tweets.js, data/tweets-part1.js, ... and data/like.js) of
N tweets and M likes, as X writes it, for the import benchmark. Deterministic for the same arguments.

    script/generate-export.py --tweets 100000 --likes 20000 --out export.zip
"""
import argparse
import json
import random
import zipfile

WORDS = ["ラーメン", "寿司", "猫", "写真", "会議", "電車", "天気", "野球", "株価", "映画", "読書", "新宿", "渋谷", "池袋", "横浜", "品川"]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]


def text(rng, index):
    return "".join(rng.choice(WORDS) + rng.choice(["が", "の", "で", "と", "、"]) for _ in range(rng.randint(3, 9))) + f" &amp; #{index}"


def tweet(rng, index):
    entry = {
        "edit_info": {"initial": {"editTweetIds": [str(10**17 + index)], "editableUntil": "2023-01-01T00:00:00.000Z", "editsRemaining": "5", "isEditEligible": True}},
        "retweeted": False, "source": "<a href=\"https://mobile.twitter.com\" rel=\"nofollow\">Twitter Web App</a>",
        "entities": {"hashtags": [], "symbols": [], "user_mentions": [], "urls": []},
        "display_text_range": ["0", "80"], "favorite_count": str(rng.randint(0, 9)), "id_str": str(10**17 + index),
        "truncated": False, "retweet_count": "0", "id": str(10**17 + index), "favorited": False,
        "created_at": f"{rng.choice(DAYS)} {rng.choice(MONTHS)} {rng.randint(10, 28)} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:07 +0000 {2012 + index % 12}",
        "full_text": text(rng, index), "lang": "ja",
    }
    if index % 6 == 0:
        entry["in_reply_to_user_id_str"] = entry["in_reply_to_user_id"] = "42"
        entry["in_reply_to_screen_name"] = "friend"
    return {"tweet": entry}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tweets", type=int, default=100_000)
    parser.add_argument("--likes", type=int, default=20_000)
    parser.add_argument("--per-file", type=int, default=50_000)
    parser.add_argument("--out", required=True)
    arguments = parser.parse_args()
    rng = random.Random(2026)
    with zipfile.ZipFile(arguments.out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for part, start in enumerate(range(0, arguments.tweets, arguments.per_file)):
            name = "data/tweets.js" if part == 0 else f"data/tweets-part{part}.js"
            with archive.open(name, "w") as file:
                file.write(f"window.YTD.tweets.part{part} = [\n".encode())
                for index in range(start, min(start + arguments.per_file, arguments.tweets)):
                    if index > start:
                        file.write(b",\n")
                    file.write(json.dumps(tweet(rng, index), ensure_ascii=False, indent=2).encode())
                file.write(b"\n]")
        with archive.open("data/like.js", "w") as file:
            file.write(b"window.YTD.like.part0 = [\n")
            for index in range(arguments.likes):
                if index:
                    file.write(b",\n")
                like = {"like": {"tweetId": str(9 * 10**17 + index), "fullText": text(rng, index), "expandedUrl": f"https://twitter.com/i/web/status/{9 * 10**17 + index}"}}
                file.write(json.dumps(like, ensure_ascii=False, indent=2).encode())
            file.write(b"\n]")
        archive.writestr("data/account.js", "window.YTD.account.part0 = []")


if __name__ == "__main__":
    main()
