"""script/bench-fleet's measurements: adds and trains the bots with mirror_bot's own commands, runs `mirror_bot fleet`
with one bot (the baseline) and then with all of them, and reports memory, CPU, start-up and slot lateness.
Configured by the environment script/bench-fleet sets (BIN, BOTS, SPEED, DAY_START, the fakes' URLs)."""
import base64, concurrent.futures, json, os, re, socket, subprocess, sys, tempfile, time, urllib.request
from datetime import datetime, timedelta

BIN, BOTS, SPEED = os.environ["BIN"], int(os.environ["BOTS"]), float(os.environ["SPEED"])
DAY_START = datetime.fromisoformat(os.environ["DAY_START"])
URLS = {"mastodon": os.environ["MASTODON_URL"], "misskey": os.environ["MISSKEY_URL"], "bluesky": os.environ["BLUESKY_URL"]}
PASSWORD = "bench-fleet status"
TICKS = os.sysconf("SC_CLK_TCK")


def log(text):
    print(f"bench-fleet: {text}", file=sys.stderr, flush=True)


def settings(network, index):
    url = URLS[network]
    lines = ["TZ=Asia/Tokyo", "MISSED_SLOT_GRACE=60", f"NETWORK={network}"]
    if network == "mastodon":
        lines += [f"HUMAN_MASTODON_URL={url}", "HUMAN_MASTODON_TOKEN=1001-demo-human", f"BOT_MASTODON_URL={url}", f"BOT_MASTODON_TOKEN=bench-bot-{index}"]
    elif network == "misskey":
        lines += [f"HUMAN_MISSKEY_URL={url}", "HUMAN_MISSKEY_TOKEN=1001-demo-human", f"BOT_MISSKEY_URL={url}", f"BOT_MISSKEY_TOKEN=bench-bot-{index}"]
    else:
        lines += [f"BLUESKY_SERVICE_URL={url}", "HUMAN_BLUESKY_HANDLE=hanako.bsky.example", "HUMAN_BLUESKY_APP_PASSWORD=demo-person-app-password",
                  f"BOT_BLUESKY_HANDLE=bench-bot-{index}.bsky.example", f"BOT_BLUESKY_APP_PASSWORD=bench-bot-{index}"]
    return "\n".join(lines) + "\n"


def mirror_bot(*arguments):
    result = subprocess.run([BIN, *arguments], stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"mirror_bot {' '.join(arguments)} failed ({result.returncode}): {result.stderr[-2000:]}")
    return result.stdout


SETUP_SECONDS = {}


def timed(step, *arguments):
    began = time.monotonic()
    mirror_bot(*arguments)
    SETUP_SECONDS.setdefault(step, []).append(time.monotonic() - began)


def add_only(bot):
    name, network, index = bot
    with tempfile.NamedTemporaryFile("w", suffix=".env", delete=False) as file:
        file.write(settings(network, index))
    timed("bots add", "bots", "add", name, "--env-file", file.name)
    os.unlink(file.name)


def add_and_train(bot):
    name, network, _ = bot
    add_only(bot)
    timed(f"train scheduler ({network})", "bots", "exec", name, "--", "train", "scheduler")
    if network != "bluesky":  # Bluesky: likes off at the defaults, nothing to learn them from
        timed(f"train classifier ({network})", "bots", "exec", name, "--", "train", "classifier", "--yes")


def set_clocks(start):
    for url in URLS.values():
        request = urllib.request.Request(url + "/admin/clock", data=json.dumps({"now": start.isoformat(), "speed": SPEED}).encode(), method="POST")
        urllib.request.urlopen(request, timeout=10).read()


def get(port, path, timeout=60):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}")
    request.add_header("Authorization", "Basic " + base64.b64encode(f"me:{PASSWORD}".encode()).decode())
    return urllib.request.urlopen(request, timeout=timeout).read().decode()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def rss_mib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def lateness_buckets(metrics):
    """The slot-lateness histogram summed over the bots: {upper bound: cumulative count}."""
    buckets = {}
    for match in re.finditer(r'^mirror_bot_slot_lateness_seconds_bucket\{([^}]*)\} (\S+)$', metrics, re.M):
        bound = float(re.search(r'le="([^"]+)"', match.group(1)).group(1).replace("+Inf", "inf"))
        buckets[bound] = buckets.get(bound, 0) + float(match.group(2))
    return buckets


def quantile(before, after, q):
    bounds = sorted(after)
    counts = [after[b] - before.get(b, 0) for b in bounds]
    total = counts[-1] if counts else 0
    if total == 0:
        return None, 0
    for bound, count in zip(bounds, counts):
        if count >= q * total:
            return bound, int(total)
    return bounds[-1], int(total)


def run_fleet(expected, start, label, hour=True):
    """Runs `mirror_bot fleet` until `expected` bots run, then (with `hour`) a simulated hour; returns its figures."""
    port = free_port()
    set_clocks(start)
    environment = dict(os.environ, PORT=str(port), STATUS_PASSWORD=PASSWORD, LOG_LEVEL="notice")
    output = open(f"fleet-{label}.log", "w")
    began = time.monotonic()
    fleet = subprocess.Popen([BIN, "fleet", "--speed", str(SPEED), "--start-time", start.isoformat()], stdin=subprocess.DEVNULL,
                             stdout=output, stderr=subprocess.STDOUT, env=environment)
    try:
        running, last_change = 0, time.monotonic()
        # Until every bot runs, or none more has started for a minute (the fakes, on the same cores, fall behind).
        while running < expected and time.monotonic() - last_change < 60:
            time.sleep(2)
            if fleet.poll() is not None:
                sys.exit(f"the fleet stopped ({fleet.returncode}): " + open(f"fleet-{label}.log").read()[-3000:])
            # Running: the bot's services have started (its first line after the network answered who it is).
            now_running = open(f"fleet-{label}.log").read().count("[Daemon] running; SIGTERM")
            if now_running != running:
                running, last_change = now_running, time.monotonic()
        started_in = last_change - began
        log(f"{label}: {running} of {expected} bots running {started_in:.0f} s after the process started; RSS {rss_mib(fleet.pid):.0f} MiB")
        # Slots of the hour before the start are caught up in the first bot minutes: the hour measured begins after them.
        time.sleep(600 / SPEED)
        metrics_before = get(port, "/metrics")
        cpu_before, real_before = cpu_seconds(fleet.pid), time.monotonic()
        seconds = (3600 if hour else 1200) / SPEED
        samples = []
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            time.sleep(min(5, max(0, deadline - time.monotonic())))
            samples.append(rss_mib(fleet.pid))
        cpu = cpu_seconds(fleet.pid) - cpu_before
        real = time.monotonic() - real_before
        metrics_after = get(port, "/metrics")
        asked = time.monotonic()
        listed = json.loads(get(port, "/api/v1/bots", timeout=600))["bots"]
        log(f"{label}: the fleet's list (/api/v1/bots) answered in {time.monotonic() - asked:.1f} s")
        figures = {
            "bots": expected, "running": running, "started_in": started_in, "rss": samples[-1], "rss_peak": max(samples), "cpu": cpu, "real": real,
            "running_here": sum(1 for bot in listed if bot["state"] == "running here"),
            "paused": [f'{bot["name"]}: {bot.get("pause_reason")}' for bot in listed if bot["state"] == "paused"],
            "posted": sum(float(m) for m in re.findall(r'^mirror_bot_posts_total\{[^}]*\} (\S+)$', metrics_after, re.M)),
            "lateness": [quantile(lateness_buckets(metrics_before), lateness_buckets(metrics_after), q) for q in (0.5, 0.99)],
        }
        return figures
    finally:
        fleet.terminate()
        try:
            fleet.wait(timeout=120)
        except subprocess.TimeoutExpired:
            fleet.kill()


def set_up(bots, trained):
    """Adds `bots`: the first of each network (or the one in `trained`, already added and trained) trained with
    `bots exec NAME -- train`; the others added with `bots add` and given a copy of their network's first bot's data."""
    log("training the first bot of each network with `bots exec NAME -- train`")
    templates = dict(trained)
    for bot in bots:
        if bot[1] not in templates:
            add_and_train(bot)
            templates[bot[1]] = bot[0]
    others = [bot for bot in bots if bot[0] not in templates.values()]
    log(f"adding {len(others)} more bots with `bots add`, four at a time")
    began = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(add_only, others))
    log(f"added in {time.monotonic() - began:.0f} s; mean per command: "
        + ", ".join(f"{step} {sum(times) / len(times):.2f} s" for step, times in sorted(SETUP_SECONDS.items())))
    # Training each of them would fetch the same person's posts again (seconds per bot against the fakes: an hour and
    # more for a thousand): each gets a copy of its network's first bot's archive, training examples and counts.
    began = time.monotonic()
    ids = dict(line.split("|") for line in subprocess.run(["psql", "-At", os.environ["DATABASE_URL"], "-c", "SELECT name, id FROM fleet_bots"],
                                                            capture_output=True, text=True, check=True).stdout.split())
    copy = []
    for name, network, _ in others:
        source, target = f"bot_{ids[templates[network]]}", f"bot_{ids[name]}"
        copy += [f"INSERT INTO {target}.{table} OVERRIDING SYSTEM VALUE SELECT * FROM {source}.{table};"
                 for table in ("tweets", "training_examples")]
        copy += [f"SELECT setval(pg_get_serial_sequence('{target}.{table}', '{column}'), (SELECT max({column}) FROM {target}.{table}));"
                 for table, column in (("tweets", "id"), ("training_examples", "seq"))]
        copy.append(f"INSERT INTO {target}.archive_settings SELECT * FROM {source}.archive_settings ON CONFLICT DO NOTHING;")
        copy.append(f"INSERT INTO {target}.bot_state SELECT * FROM {source}.bot_state WHERE name NOT LIKE 'bluesky.session.%' ON CONFLICT DO NOTHING;")
    subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", os.environ["DATABASE_URL"]], input="\n".join(copy), text=True, check=True, capture_output=True)
    copy_keys = "local n = 0 for _, key in ipairs(redis.call('KEYS', ARGV[1] .. '*')) do " \
                "redis.call('COPY', key, ARGV[2] .. string.sub(key, #ARGV[1] + 1), 'REPLACE') n = n + 1 end return n"
    keys = 0
    for name, network, _ in others:
        keys += int(subprocess.run(["redis-cli", "-u", os.environ["REDIS_URL"], "EVAL", copy_keys, "0", templates[network] + ":", name + ":"],
                                   capture_output=True, text=True, check=True).stdout.strip() or 0)
    log(f"copied the trained data to {len(others)} bots in {time.monotonic() - began:.0f} s ({keys:,} Redis keys)")


def psql(sql):
    return subprocess.run(["psql", "-At", os.environ["DATABASE_URL"], "-c", sql], capture_output=True, text=True, check=True).stdout


def posted_twice():
    """Whether any slot was posted twice: every post (not a reply) that a bot account made on the fakes must be one slot
    its plan records as posted, so the two counts are equal. Also the posts whose text one bot made twice, each with how
    many of the person's tweets have that text (the generated persona's lines come from templates: two slots may copy
    two tweets of the same text)."""
    posts, same_text = 0, []
    for url in URLS.values():
        state = json.loads(urllib.request.urlopen(url + "/admin/state", timeout=60).read())
        seen = set()
        for post in state["posted"]:
            if post.get("in_reply_to_post_id"):
                continue
            posts += 1
            key = (post["author_id"], post["text"])
            if key in seen:
                same_text.append(key)
            seen.add(key)
    schemas = psql("SELECT 'bot_' || id FROM fleet_bots").split()
    slots = 0
    for start in range(0, len(schemas), 200):
        counts = " UNION ALL ".join(f"SELECT count(*) AS n FROM {schema}.plan_slots WHERE state = 'posted'" for schema in schemas[start:start + 200])
        slots += int(psql(f"SELECT sum(n) FROM ({counts}) AS each_bot").strip() or 0)
    # For each such text: the slots of any bot that posted it, with the tweet each copied (two tweets of one text, or one
    # tweet twice), and how many of the person's tweets have it.
    found = []
    for _, text in same_text:
        rows = []
        for start in range(0, len(schemas), 200):
            union = " UNION ALL ".join(f"SELECT '{schema}' AS bot, p.minute, p.source_tweet_id FROM {schema}.plan_slots p "
                                       f"JOIN {schema}.tweets t ON t.tweet_id = p.source_tweet_id WHERE p.state = 'posted' AND t.text = $${text}$$"
                                       for schema in schemas[start:start + 200])
            rows += [line.split("|") for line in psql(union).split()]
        by_bot = {}
        for bot, minute, source in rows:
            by_bot.setdefault(bot, []).append((int(minute), source))
        twice = {bot: slots for bot, slots in by_bot.items() if len(slots) > 1}
        archived = int(psql(f"SELECT count(DISTINCT tweet_id) FROM {schemas[0]}.tweets WHERE text = $${text}$$").strip() or 0)
        found.append((text, archived, twice))
    return posts, slots, found


def one_process():
    bots = [(f"{NETWORKS[i % 3]}-{i // 3 + 1}", NETWORKS[i % 3], i // 3 + 1) for i in range(BOTS)]
    log(f"baseline: one bot ({bots[0][0]}), added and trained")
    add_and_train(bots[0])
    baseline = run_fleet(1, DAY_START, "baseline", hour=False)
    set_up(bots[1:], {bots[0][1]: bots[0][0]})
    fleet = run_fleet(BOTS, DAY_START + timedelta(hours=6), "fleet", hour=True)

    per_bot = (fleet["rss"] - baseline["rss"]) / max(1, BOTS - 1)
    bot_days = BOTS * (fleet["real"] * SPEED / 86_400)
    counts = {network: sum(1 for bot in bots if bot[1] == network) for network in NETWORKS}
    print(f"fleet of {BOTS} bots ({counts['mastodon']} Mastodon, {counts['misskey']} Misskey, {counts['bluesky']} Bluesky), "
          f"a simulated hour at {SPEED:g}x, release build:")
    print(f"  start-up: {fleet['running']} of {BOTS} running {fleet['started_in']:.0f} s after the process started (one bot: {baseline['started_in']:.0f} s)")
    print(f"  resident memory: {fleet['rss']:.0f} MiB (peak {fleet['rss_peak']:.0f}) against {baseline['rss']:.0f} MiB for one bot: "
          f"{per_bot * 1024:.0f} KiB per bot above the baseline (goal <= 1 MiB), "
          f"{(fleet['rss'] - baseline['rss']) / max(1, fleet['running'] - 1) * 1024:.0f} KiB per running bot")
    print(f"  CPU: {fleet['cpu']:.1f} s over {fleet['real']:.0f} s ({fleet['cpu'] / fleet['real'] * 100:.0f}% of a core): "
          f"{fleet['cpu'] / bot_days:.2f} CPU-seconds per bot-day (one bot alone: {baseline['cpu'] / (baseline['real'] * SPEED / 86_400):.2f})")
    for label, figures in (("one bot", baseline), ("fleet", fleet)):
        (p50, count), (p99, _) = figures["lateness"]
        if count:
            print(f"  slot lateness ({label}, {count} slots posted in the hour): p50 <= {p50:g} s, p99 <= {p99:g} s of bot time "
                  f"(<= {p50 / SPEED:.2f} s and <= {p99 / SPEED:.2f} s of real time at {SPEED:g}x)")
        else:
            print(f"  slot lateness ({label}): no slot posted in the hour")
    print(f"  running here at the end: {fleet['running_here']} of {BOTS}; paused: {len(fleet['paused'])} {fleet['paused'][:3]}")


def failover():
    """Three processes share BOTS bots; one is SIGKILLed mid-day: how long until each of its bots runs again elsewhere,
    and whether any slot was posted twice."""
    bots = [(f"{NETWORKS[i % 3]}-{i // 3 + 1}", NETWORKS[i % 3], i // 3 + 1) for i in range(BOTS)]
    set_up(bots, {})
    start = DAY_START
    set_clocks(start)
    processes = []
    for number in range(3):
        port = free_port()
        environment = dict(os.environ, PORT=str(port), STATUS_PASSWORD=PASSWORD, LOG_LEVEL="notice")
        output = open(f"failover-{number}.log", "w")
        processes.append((subprocess.Popen([BIN, "fleet", "--speed", str(SPEED), "--start-time", start.isoformat()], stdin=subprocess.DEVNULL,
                                           stdout=output, stderr=subprocess.STDOUT, env=environment), port))
    try:
        def listing(port):
            return json.loads(get(port, "/api/v1/bots"))
        # Settled: every bot running, each process holding its share.
        began = time.monotonic()
        while True:
            time.sleep(2)
            lists = [listing(port) for _, port in processes]
            here = [sum(1 for bot in listed["bots"] if bot["state"] == "running here") for listed in lists]
            if sum(here) == BOTS and max(here) - min(here) <= 1:
                break
            if time.monotonic() - began > 1800:
                sys.exit(f"not settled after 30 minutes: {here}")
        log(f"three processes run {here} bots, {time.monotonic() - began:.0f} s after they started")
        time.sleep(1800 / SPEED)  # half an hour of the bots' day
        victim, victim_port = processes[0]
        victims = {bot["name"] for bot in listing(victim_port)["bots"] if bot["state"] == "running here"}
        victim.kill()
        killed = time.monotonic()
        log(f"SIGKILLed the process running {len(victims)} bots")
        back = {}
        while len(back) < len(victims):
            time.sleep(0.5)
            for _, port in processes[1:]:
                for bot in listing(port)["bots"]:
                    if bot["name"] in victims and bot["state"] == "running here" and bot["name"] not in back:
                        back[bot["name"]] = time.monotonic() - killed
            if time.monotonic() - killed > 600:
                break
        times = sorted(back.values())
        time.sleep(1800 / SPEED)  # half an hour more
        posts, slots, same_text = posted_twice()
        print(f"failover: {BOTS} bots on three processes ({here}), an hour of their day at {SPEED:g}x, leases of 20 s renewed every 5 s (the defaults):")
        print(f"  one process SIGKILLed with {len(victims)} bots: {len(back)} running again on the other two, "
              f"the first after {times[0]:.1f} s, half after {times[len(times) // 2]:.1f} s, all after {times[-1]:.1f} s (goal: within 45 s)")
        print(f"  posts on the fakes (replies aside): {posts}; slots the bots' plans record as posted: {slots}; "
              f"a slot posted twice: {max(0, posts - slots)}")
        print(f"  the same text posted twice by one bot: {len(same_text)}")
        for text, archived, twice in same_text:
            print(f"    {text}: {archived} of the person's tweets; posted at {twice}")
    finally:
        for process, _ in processes:
            if process.poll() is None:
                process.terminate()
        for process, _ in processes:
            try:
                process.wait(timeout=120)
            except subprocess.TimeoutExpired:
                process.kill()


NETWORKS = ["mastodon", "misskey", "bluesky"]
# The fleet processes' logs go in the folder it is run in (script/bench-fleet's work folder, which BENCH_LOGS keeps).
failover() if os.environ.get("FAILOVER") else one_process()
