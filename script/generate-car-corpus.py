#!/usr/bin/env python3
"""Writes the CAR fuzz target's seeds (Tests/FuzzTests/Corpus/car/): small Bluesky repository exports as a PDS writes
them (CAR v1, DAG-CBOR blocks named by CIDv1 of their SHA-256, the commit first, a Merkle search tree whose entries
share their keys' prefixes), independently of the Swift reader and of the fake's writer. Deterministic: run it again
and the files are the same."""
import hashlib, os, struct

def head(major, value):
    if value < 24: return bytes([major << 5 | value])
    if value < 0x100: return bytes([major << 5 | 24, value])
    if value < 0x10000: return bytes([major << 5 | 25]) + struct.pack(">H", value)
    if value < 0x100000000: return bytes([major << 5 | 26]) + struct.pack(">I", value)
    return bytes([major << 5 | 27]) + struct.pack(">Q", value)

class Link:
    def __init__(self, cid): self.cid = cid

def cbor(value):
    if value is None: return b"\xf6"
    if value is True: return b"\xf5"
    if value is False: return b"\xf4"
    if isinstance(value, int): return head(0, value) if value >= 0 else head(1, -1 - value)
    if isinstance(value, float): return b"\xfb" + struct.pack(">d", value)
    if isinstance(value, bytes): return head(2, len(value)) + value
    if isinstance(value, str): return head(3, len(value.encode())) + value.encode()
    if isinstance(value, list): return head(4, len(value)) + b"".join(cbor(v) for v in value)
    if isinstance(value, Link): return b"\xd8\x2a" + cbor(b"\x00" + value.cid)
    keys = sorted(value, key=lambda k: (len(k.encode()), k.encode()))  # DAG-CBOR's order
    return head(5, len(keys)) + b"".join(cbor(k) + cbor(value[k]) for k in keys)

def varint(n):
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n: return bytes(out)

def car(did, records, fanout, repeats=1, tamper=None):
    blocks = []
    def add(value):
        data = cbor(value)
        cid = bytes([1, 0x71, 0x12, 0x20]) + hashlib.sha256(data).digest()
        blocks.append((cid, data))
        return cid
    records = sorted(records, key=lambda r: r[0].encode())
    values = [add(v) for _, v in records]
    keys = [k.encode() for k, _ in records]
    def node(lo, hi):
        if lo >= hi: return None
        count = hi - lo
        pivots = list(range(lo, hi)) if count <= fanout else [lo + i * count // (fanout + 1) for i in range(1, fanout + 1)]
        entries, previous = [], b""
        for index, pivot in enumerate(pivots):
            nxt = pivots[index + 1] if index + 1 < len(pivots) else hi
            shared = 0
            while shared < min(len(previous), len(keys[pivot])) and previous[shared] == keys[pivot][shared]: shared += 1
            right = node(pivot + 1, nxt)
            entries.append({"p": shared, "k": keys[pivot][shared:], "v": Link(values[pivot]), "t": Link(right) if right else None})
            if index == 0:  # the same key and record again (a crafted file: a block named many times over)
                entries += [{"p": len(keys[pivot]), "k": b"", "v": Link(values[pivot]), "t": None}] * (repeats - 1)
            previous = keys[pivot]
        left = node(lo, pivots[0])
        return add({"l": Link(left) if left else None, "e": entries})
    data = node(0, len(records)) or add({"l": None, "e": []})
    commit = add({"did": did, "version": 3, "data": Link(data), "rev": "3lbhbgd2gqk2c", "prev": None, "sig": bytes(64)})
    header = cbor({"version": 1, "roots": [Link(commit)]})
    out = varint(len(header)) + header
    if tamper:  # a block's bytes changed after it was named (its CID left as it was)
        index = next(i for i, (_, block) in enumerate(blocks) if tamper[0] in block)
        blocks[index] = (blocks[index][0], blocks[index][1].replace(tamper[0], tamper[1]))
    for cid, block in [blocks[-1]] + blocks[:-1]:
        out += varint(len(cid) + len(block)) + cid + block
    return out

def post(text, created, **extra):
    return dict({"$type": "app.bsky.feed.post", "text": text, "createdAt": created}, **extra)

did = "did:plc:ewvi7nxzyoun6zhxrhs64oiz"
parent = {"uri": "at://did:plc:abc/app.bsky.feed.post/3jzfcijpj2z2a", "cid": "bafyreiabc"}
posts = [
    ("app.bsky.feed.post/3kgmr4plxuc2a", post("hello from the export", "2024-01-02T03:04:05.000Z")),
    ("app.bsky.feed.post/3kgmr4plxuc2b", post("a reply with a link example.com/a…", "2024-01-02T04:00:00Z",
        reply={"root": parent, "parent": parent},
        facets=[{"index": {"byteStart": 15, "byteEnd": 33},
                 "features": [{"$type": "app.bsky.richtext.facet#link", "uri": "https://example.com/a/long/path"}]}])),
    ("app.bsky.feed.post/3kgmr4plxuc2c", post("labelled 猫", "2024-01-03T00:00:00+09:00",
        labels={"$type": "com.atproto.label.defs#selfLabels", "values": [{"val": "!warn"}]}, langs=["ja"])),
    ("app.bsky.feed.post/3kgmr4plxuc2d", post("quoting", "2024-01-04T00:00:00Z",
        embed={"$type": "app.bsky.embed.record", "record": parent})),
    ("app.bsky.feed.repost/3kgmr4plxuc2e", {"$type": "app.bsky.feed.repost", "subject": parent, "createdAt": "2024-01-05T00:00:00Z"}),
    ("app.bsky.feed.like/3kgmr4plxuc2f", {"$type": "app.bsky.feed.like", "subject": parent, "createdAt": "2024-01-05T00:00:00Z"}),
    ("app.bsky.actor.profile/self", {"$type": "app.bsky.actor.profile", "displayName": "A person", "description": "#nobot"}),
]
folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "FuzzTests", "Corpus", "car")
os.makedirs(folder, exist_ok=True)
seeds = {
    "posts.car": car(did, posts, fanout=2),
    "one-post.car": car(did, posts[:1], fanout=4),
    "empty.car": car(did, [], fanout=4),
    "odd-posts.car": car("did:web:example.com", [
        ("app.bsky.feed.post/3kgmr4plxuc3a", post("  ", "2024-01-02T03:04:05Z")),
        ("app.bsky.feed.post/3kgmr4plxuc3b", post("no date", "yesterday")),
        ("app.bsky.feed.post/3kgmr4plxuc3c", post("a float and a big number", "2024-01-02T03:04:05Z", weight=1.5, count=2**40)),
        ("app.bsky.feed.post/self", post("not a TID", "2024-01-02T03:04:05Z")),
    ], fanout=4),
    # Inputs that found something, kept once fixed: a record changed under its CID (read as the person's post before
    # blocks were checked against their hashes), a key starting with a slash (read as a post), one big post named by an
    # entry repeated 40 times (each repeat read in full: a file could make its reader handle far more than it held).
    "found-tampered.car": car(did, posts[:2], fanout=4, tamper=(b"hello from the export", b"HELLO FROM THE EXPORT")),
    "found-slash-key.car": car(did, [("/app.bsky.feed.post/3kgmr4plxuc2a", posts[0][1])], fanout=4),
    # And a post dated 1969 (kept with that date, when the importer promises the years 1970 to 9999).
    "found-1969.car": car(did, [("app.bsky.feed.post/3kgmr4plxuc2a", post("from before", "1969-12-31T23:59:59Z"))], fanout=4),
    "found-repeated-entry.car": car(did, [("app.bsky.feed.post/3kgmr4plxuc2a", post("猫" * 1000, "2024-01-02T03:04:05Z"))], fanout=4, repeats=40),
}
for name, data in seeds.items():
    with open(os.path.join(folder, name), "wb") as f: f.write(data)
    print(name, len(data))
