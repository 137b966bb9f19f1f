#!/usr/bin/env python3
"""Walks the front door's path as a person's browser would (DEMO=web DEMO_WALK=1 script/demo; script/test runs it):
sign in as the person and as the bot through the fake instance's own sign-in page (user name and password), make the
mirror, start it, wait for the bot's first post on the instance, then upload an archive of the person's
(DOOR_WALK_UPLOAD_MB megabytes, 8 by default: three posts of theirs after that many megabytes of the JSON's own leading
spaces) and see the preview; with WALK_BLUESKY (the fake Bluesky's address), a second person signs in there with
atproto OAuth (the door a confidential client) as hanako.bsky.example and her bot. Prints a line per step, with the upload's time and the web process's peak memory (WEB_PID); exits 1 naming
the step that failed. Usage: door-walk.py DOOR_URL INSTANCE_URL PASSWORD PERSON BOT [SECONDS]"""
import http.cookiejar
import json
import os
import re
import tempfile
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

door, instance, password, person, bot = sys.argv[1:6]
limit = float(sys.argv[6]) if len(sys.argv) > 6 else 120


class NoRedirect(urllib.request.HTTPRedirectHandler):
    """Redirects are followed by hand: each one is a step to check."""

    def redirect_request(self, *args, **kwargs):
        return None


def browser():
    return urllib.request.build_opener(NoRedirect, urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))


def fail(step, detail):
    print(f"door walk: {step} failed: {detail}", file=sys.stderr)
    sys.exit(1)


def send(opener, url, form=None):
    data = urllib.parse.urlencode(form).encode() if form is not None else None
    try:
        with opener.open(urllib.request.Request(url, data=data), timeout=30) as answer:
            return answer.status, answer.headers.get("Location"), answer.read().decode()
    except urllib.error.HTTPError as answer:
        return answer.code, answer.headers.get("Location"), answer.read().decode()


def csrf(html, step):
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    return found.group(1) if found else fail(step, "no CSRF token on the page")


door_browser, instance_browser = browser(), browser()


def sign_in_through(door_side, page_side, page, network, server, extra, who, credentials, step):
    """A sign-in as a person's browser goes through it: the door's form (`network`, `server`), the network's own page
    (its form filled in: its hidden fields kept, `credentials` typed), and the door's callback."""
    _, _, html = send(door_side, door + page)
    status, location, html = send(door_side, door + "/sign-in", dict(csrf=csrf(html, step), network=network, server=server, **extra))
    if status != 303 or not location:
        fail(step, f"the door answered {status}: {html[:300]}")
    status, _, html = send(page_side, location)
    if status != 200:
        fail(step, f"the network's sign-in page answered {status}: {html[:300]}")
    fields = {name: value.replace("&amp;", "&") for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', html)}
    action = re.search(r'<form[^>]*action="([^"]+)"', html)
    fields.update(credentials)
    status, location, html = send(page_side, urllib.parse.urljoin(location, action.group(1) if action else ""), fields)
    if status not in (302, 303) or not location:
        fail(step, f"the network did not approve ({status}): {html[:300]}")
    status, location, html = send(door_side, location)
    if status != 303 or location != "/me":
        fail(step, f"the door's callback answered {status}: {html[:300]}")
    print(f"door walk: {step}: signed in as @{who}")


def sign_in(page, username, extra, step):
    sign_in_through(door_browser, instance_browser, page, "mastodon", instance, extra, username,
                    dict(username=username, password=password), step)


sign_in("/", person, {}, "the person's sign-in")
sign_in("/me", bot, {"account": "bot"}, "the bot's sign-in")
_, _, html = send(door_browser, door + "/me")
token = csrf(html, "the person's page")
status, _, html = send(door_browser, door + "/mirror", dict(csrf=token, tz="Asia/Tokyo", style="copy", likes="on", agree="yes"))
if status != 303:
    fail("making the mirror", f"{status}: {html[:300]}")
_, _, html = send(door_browser, door + "/me")
if "not started yet" not in html:
    fail("making the mirror", "the page does not say it is paused, not started yet")
print("door walk: the mirror is made, paused until started")
status, _, html = send(door_browser, door + "/mirror/start", dict(csrf=token))
if status != 303:
    fail("starting the mirror", f"{status}: {html[:300]}")
print("door walk: started")


def peak_kib(pid):
    """The process's peak resident memory (VmHWM), in KiB; None where it cannot be read."""
    try:
        with open(f"/proc/{pid}/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    except (OSError, StopIteration, ValueError):
        return None


def upload_and_preview():
    """Her archive from the browser, then her preview."""
    # Her archive from the browser: a Mastodon outbox.json of three posts of hers, after megabytes of leading spaces.
    megabytes = int(os.environ.get("DOOR_WALK_UPLOAD_MB", "8"))
    actor = f"{instance.rstrip('/')}/users/{person}"
    public = "https://www.w3.org/ns/activitystreams#Public"

    def published(days_ago):
        return time.strftime("%Y-%m-%dT09:00:00Z", time.gmtime(time.time() - days_ago * 86_400))

    items = [
        {"id": f"{actor}/statuses/{130_000_000_000_000_000 + n}/activity", "type": "Create", "actor": actor,
         "published": published(n), "to": [public], "cc": [],
         "object": {"id": f"{actor}/statuses/{130_000_000_000_000_000 + n}", "type": "Note", "summary": None, "inReplyTo": None,
                    "published": published(n), "attributedTo": actor, "to": [public], "cc": [], "sensitive": False,
                    "content": f"<p>アーカイブから {n}</p>", "attachment": [], "tag": []}}
        for n in (1, 2, 3)]
    outbox = json.dumps({"@context": "https://www.w3.org/ns/activitystreams", "id": "outbox.json", "type": "OrderedCollection",
                         "totalItems": len(items), "orderedItems": items}).encode()
    boundary = "----door-walk-upload"
    with tempfile.TemporaryFile() as body:
        body.write(f'--{boundary}\r\nContent-Disposition: form-data; name="csrf"\r\n\r\n{token}\r\n'.encode())
        body.write(f'--{boundary}\r\nContent-Disposition: form-data; name="archive"; filename="outbox.json"\r\n'
                   'Content-Type: application/json\r\n\r\n'.encode())
        spaces = b" " * (1 << 20)
        for _ in range(megabytes):
            body.write(spaces)
        body.write(outbox + f"\r\n--{boundary}--\r\n".encode())
        length = body.tell()
        body.seek(0)
        web_pid = os.environ.get("WEB_PID")
        before = peak_kib(web_pid) if web_pid else None
        request = urllib.request.Request(door + "/mirror/archive", data=body, method="POST")
        request.add_header("Content-Type", f"multipart/form-data; boundary={boundary}")
        request.add_header("Content-Length", str(length))
        started = time.monotonic()
        try:
            with door_browser.open(request, timeout=120) as answer:
                status, html = answer.status, answer.read().decode()
        except urllib.error.HTTPError as answer:
            status, html = answer.code, answer.read().decode()
        took = time.monotonic() - started
        after = peak_kib(web_pid) if web_pid else None
    if status != 200 or 'id="imported"' not in html:
        fail("uploading her archive", f"{status}: {html[:300]}")
    summary = re.search(r'id="imported">([^<]*)<', html)
    memory = f"; the web process's peak memory {before / 1024:.1f} MiB before, {after / 1024:.1f} MiB after" if before and after else ""
    print(f"door walk: her archive uploaded ({length / (1 << 20):.1f} MiB in {took:.2f} s{memory}): {summary.group(1) if summary else ''}")
    status, _, html = send(door_browser, door + "/mirror/preview")
    samples = re.search(r'id="samples">(.*?)</ol>', html, re.S)
    if status != 200 or not samples:
        fail("the preview", f"{status}: {html[:300]}")
    first = re.search(r"<li><time>([^<]*)</time> <q>([^<]*)</q>", samples.group(1))
    print(f"door walk: the preview shows {samples.group(1).count('<li>')} posts as they would go out"
          + (f", the first at {first.group(1)}: {first.group(2)!r}" if first else ""))


def bluesky_sign_ins():
    """Another person's browser on the fake Bluesky: their handle at the door, the fake's own page (which has read the
    door's client metadata), back at the door; then their bot's account the same way."""
    person_browser, page_browser = browser(), browser()
    for page, handle, extra, step in [
        ("/", "hanako.bsky.example", {}, "the Bluesky person's sign-in"),
        ("/me", "hanako-mirror.bsky.example", {"account": "bot"}, "the Bluesky bot's sign-in"),
    ]:
        sign_in_through(person_browser, page_browser, page, "bluesky", handle, extra, handle,
                        dict(identifier=handle, password=handle + "-password", decision="accept"), step)


def operator_page():
    """The operator signs in on their page (WALK_OPERATOR_PASSWORD): the mirror made at the door is listed, running, and
    the sign-in is the audit log's newest line."""
    operator = browser()
    _, _, html = send(operator, door + "/operator")
    status, _, html = send(operator, door + "/operator/sign-in",
                           {"csrf": csrf(html, "the operator's page"), "password": os.environ["WALK_OPERATOR_PASSWORD"]})
    if status != 303:
        fail("the operator's sign-in", f"{status}: {html[:300]}")
    _, _, html = send(operator, door + "/operator")
    bots = re.findall(r'<tr data-bot="(door-[0-9a-f]+)"><td>[^<]*</td><td>([^<]*)</td><td>([^<]*)</td>', html)
    newest = re.search(r'id="audit-log" class="lately"><li><time>[^<]*</time> ([^<]*)</li>', html)
    if not bots or not newest:
        fail("the operator's page", html[:600])
    print(f"door walk: the operator's page lists {len(bots)} mirror(s): " + ", ".join(f"{name} ({network}, {state})" for name, network, state in bots)
          + f"; the audit log's newest line: {newest.group(1).replace('&#39;', chr(39))}")


deadline = time.monotonic() + limit
while time.monotonic() < deadline:
    _, _, state = send(instance_browser, instance + "/admin/state")
    posts = [post for post in json.loads(state).get("posted", []) if post.get("in_reply_to_post_id") is None]
    if posts:
        print(f"door walk: the bot posted: {posts[0]['text']!r} at {posts[0]['created_at']} (the instance's clock)")
        _, _, html = send(door_browser, door + "/me")
        print("door walk: the person's page says: " + ("running" if "Running:" in html else "started, waiting for a process"))
        upload_and_preview()
        if os.environ.get("WALK_BLUESKY"):
            bluesky_sign_ins()
        if os.environ.get("WALK_OPERATOR_PASSWORD"):
            operator_page()
        sys.exit(0)
    time.sleep(1)
fail("waiting for the first post", f"no post by the bot within {limit:.0f} s")
