#!/usr/bin/env python3
"""Walks the front door's path as a person's browser would (DEMO=web DEMO_WALK=1 script/demo; script/test runs it):
sign in as the person and as the bot through the fake instance's own sign-in page (user name and password), make the
mirror, start it, and wait for the bot's first post on the instance. Prints a line per step; exits 1 naming the step
that failed. Usage: door-walk.py DOOR_URL INSTANCE_URL PASSWORD PERSON BOT [SECONDS]"""
import http.cookiejar
import json
import re
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


def sign_in(page, username, extra, step):
    _, _, html = send(door_browser, door + page)
    status, location, html = send(
        door_browser, door + "/sign-in", dict(csrf=csrf(html, step), network="mastodon", server=instance, **extra))
    if status != 303 or not location:
        fail(step, f"the door answered {status}: {html[:300]}")
    # The instance's own page: its form, filled in as a person does.
    status, _, html = send(instance_browser, location)
    if status != 200:
        fail(step, f"the instance's sign-in page answered {status}")
    fields = {name: value.replace("&amp;", "&") for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', html)}
    action = re.search(r'<form[^>]*action="([^"]+)"', html)
    fields.update(username=username, password=password)
    status, location, html = send(instance_browser, urllib.parse.urljoin(instance, action.group(1) if action else ""), fields)
    if status not in (302, 303) or not location:
        fail(step, f"the instance did not approve ({status}): {html[:300]}")
    status, location, html = send(door_browser, location)
    if status != 303 or location != "/me":
        fail(step, f"the door's callback answered {status}: {html[:300]}")
    print(f"door walk: {step}: signed in as @{username}")


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
deadline = time.monotonic() + limit
while time.monotonic() < deadline:
    _, _, state = send(instance_browser, instance + "/admin/state")
    posts = [post for post in json.loads(state).get("posted", []) if post.get("in_reply_to_post_id") is None]
    if posts:
        print(f"door walk: the bot posted: {posts[0]['text']!r} at {posts[0]['created_at']} (the instance's clock)")
        _, _, html = send(door_browser, door + "/me")
        print("door walk: the person's page says: " + ("running" if "Running:" in html else "started, waiting for a process"))
        sys.exit(0)
    time.sleep(1)
fail("waiting for the first post", f"no post by the bot within {limit:.0f} s")
