"""The door through an outage, in real Chromium: a door kiosk scans online; the worker stops
answering for two minutes (and, separately, nginx does); the kiosk goes on letting people in
and out under the entrance rules, refusing what it must, and shows OFFLINE with the scans
waiting; a second door kiosk of the store lets nobody in while offline (one code, at most one
ENTER); when CLup answers again every queued scan is applied once, at the time it happened, and
a ticket cancelled meanwhile is reported as a conflict, not applied. A dispenser prints a
walk-in ticket offline from its spares, the door lets it in, and CLup records both once. Then
bad input: a queued scan edited in IndexedDB and another store's scan slipped into the queue
are refused on catch-up with their reasons; a kiosk revoked while offline keeps its scans and
sends nothing. Last, three doors of another store — two kiosks and a scripted hardware scanner on
the device API — all let people in offline, chosen by staff on the door console: with 6 free
places they let in 6 between them and no more, and a code let in at two of them is counted once
inside and reported once to staff.

Run by `scripts/test` after check_pages.py, with the same tools. Starts CLup as `scripts/run`
does (check_pages.Stack) and stops it at the end.

    .build/browser-tools/bin/python Tests/Browser/check_door_offline.py [--keep]
"""

import datetime
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zoneinfo

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

sys.path.insert(0, os.path.dirname(__file__))
from check_pages import PASSWORD, Stack, keyboard_reservation, open_around_now, sign_in, submit_and_wait, wait_for  # noqa: E402

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def session_processes(stack, name):
    """Process ids of `name` (its command's first word's base name) started by the stack."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            if os.getsid(int(pid)) != stack.process.pid:
                continue
            command = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
        except (OSError, ProcessLookupError):
            continue
        if command and os.path.basename(command[0].decode()) == name or (name == "nginx" and command[0].startswith(b"nginx:")):
            found.append(int(pid))
    return found


FROZEN = set()


def freeze(pids, frozen):
    (FROZEN.update if frozen else FROZEN.difference_update)(pids)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGSTOP if frozen else signal.SIGCONT)
        except ProcessLookupError:  # restarted meanwhile by scripts/run's supervision
            pass


def browser():
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--lang=en-GB"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options)
    driver.set_script_timeout(30)
    return driver


def enrol(driver, base, key):
    driver.get(base + "/kiosk")
    driver.find_element(By.NAME, "key").send_keys(key + Keys.ENTER)
    wait_for(driver, lambda: driver.find_elements(By.CSS_SELECTOR, ".kiosk-choices"))
    driver.get(base + "/kiosk/scanner")
    # The kept state is in IndexedDB once the page has read it; the service worker keeps the
    # page itself from its next load.
    wait_for(driver, lambda: kept_state(driver) is not None, seconds=15)
    wait_for(driver, lambda: kept_copy(driver, "/kiosk/scanner"), seconds=15)
    # A door that lets people in offline holds its share of the free places once it has renewed.
    wait_for(driver, lambda: has_lease(kept_state(driver)), seconds=15)


def has_lease(state):
    return bool(state) and "lease" in state and (not state.get("admitsOffline") or bool(state["lease"]))


def kept_copy(driver, path):
    """Whether the service worker keeps a copy of the page at `path`."""
    return driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        caches.open("clup-kept-v1").then(c => c.match(arguments[0])).then(hit => done(!!hit), () => done(false));""",
                                       path)


def spare_count(driver):
    """How many spare tickets the dispenser page keeps for printing offline."""
    return driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        // Not opened before the page has made it: an open would make it empty.
        indexedDB.databases().then(all => {
          if (!all.some(d => d.name === "clup-dispenser")) return done(-1);
          const request = indexedDB.open("clup-dispenser");
          request.onsuccess = () => {
          const db = request.result;
          if (!db.objectStoreNames.contains("spares")) return done(-1);
          db.transaction("spares").objectStore("spares").count().onsuccess = e => done(e.target.result);
          };
          request.onerror = () => done(-1);
        });""")


def kept_state(driver):
    return driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const request = indexedDB.open("clup-door", 1);
        request.onsuccess = () => {
          const db = request.result;
          if (!db.objectStoreNames.contains("state")) return done(null);
          const get = db.transaction("state").objectStore("state").get("current");
          get.onsuccess = () => done(get.result || null);
          get.onerror = () => done(null);
        };
        request.onerror = () => done(null);""")


LAST_SCAN = {}


def scan(driver, code):
    """Scans `code` as a hand scanner types it; returns the headline, message and banner shown.
    The page counts the same code twice within 3 s once (a shaky hand): a code scanned again
    waits that long, as a person coming back would."""
    previous = LAST_SCAN.get(id(driver))
    if previous and previous[0] == code:
        time.sleep(max(0, 3.2 - (time.time() - previous[1])))
    LAST_SCAN[id(driver)] = (code, time.time())
    field = driver.find_element(By.ID, "code")
    driver.execute_script("document.querySelector('[data-scan-result]').className = 'scan-result';"
                          "document.querySelector('[data-field=headline]').textContent = '…';")
    field.send_keys(code + Keys.ENTER)
    # (The screen goes back to "Ready" a few seconds after each scan: not an answer.)
    try:
        wait_for(driver, lambda: driver.find_element(By.CSS_SELECTOR, "[data-field=headline]").text not in ("…", "Ready"),
                 seconds=20)
    except SystemExit:
        for entry in driver.get_log("browser"):
            print("  browser:", entry.get("message"))
        raise
    time.sleep(0.2)
    banner = driver.find_element(By.CSS_SELECTOR, "[data-offline]")
    shown = (driver.find_element(By.CSS_SELECTOR, "[data-field=headline]").text,
             driver.find_element(By.CSS_SELECTOR, "[data-field=message]").text,
             banner.text if banner.is_displayed() else "")
    return shown


class Expectations:
    """What a run found wrong, each check printed as it is made."""

    def __init__(self):
        self.problems = []

    def __call__(self, condition, what):
        if not condition:
            self.problems.append(what)
        print(("  ok   " if condition else "  FAIL ") + what)


def round_the_clock_store(stack, name, capacity, walk_in_percent, *settings):
    """Registers a store open round the clock with the given places (and other `edit-store`
    settings); returns its id."""
    output = stack.clup("admin", "register-store", "--name", name, "--address", "Via Uno 1, Milano",
                        "--latitude", "45.46", "--longitude", "9.19", "--capacity", str(capacity))
    store = re.search(r"registered store (\d+)", output).group(1)
    stack.clup("admin", "edit-store", "--store", store, "--walk-in-percent", str(walk_in_percent), *settings)
    # Each day from an hour before now to a minute before that the next day: not "00:00-23:59",
    # which refuses a ticket that would still be inside at midnight when the check runs late.
    opens = datetime.datetime.now(zoneinfo.ZoneInfo("Europe/Rome")) - datetime.timedelta(hours=1)
    closes = opens - datetime.timedelta(minutes=1)
    stack.clup("admin", "set-hours", "--store", store, *[f"--{day}={opens:%H:%M}-{closes:%H:%M}" for day in WEEKDAYS])
    return store


def reload_keeping(driver, base, ticket):
    """Reloads the scanner until its kept state holds `ticket`."""
    driver.get(base + "/kiosk/scanner")
    wait_for(driver, lambda: any(t["id"] == ticket["id"] for t in (kept_state(driver) or {}).get("tickets", [])),
             seconds=40)


def issue(base, key):
    """A walk-in ticket through the device API. A store just registered is refused as closed
    until the worker has seen the hours another process set (within a second or so)."""
    deadline = time.time() + 10
    while True:
        request = urllib.request.Request(base + "/api/v1/tickets", method="POST",
                                         data=json.dumps({"people": 1, "residenceMinutes": 30}).encode(),
                                         headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return json.loads(answer.read())
        except urllib.error.HTTPError as error:
            body = json.loads(error.read())
            if error.code != 409 or time.time() > deadline or body.get("code") != "closed":
                raise
            time.sleep(0.2)


class HardwareScanner:
    """A QR scanner on the device API, scripted as its description tells a vendor to build one:
    it keeps the door's state and lease, renews the lease while CLup answers, decides entries
    itself within its lease while it does not, and sends what it did once CLup answers again."""

    def __init__(self, base, key):
        self.base, self.key = base, key
        self.state, self.lease, self.queue = None, None, []

    def call(self, method, path, body=None, timeout=10):
        request = urllib.request.Request(self.base + path, method=method,
                                         data=None if body is None else json.dumps(body).encode(),
                                         headers={"Authorization": "Bearer " + self.key, "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return json.loads(answer.read())

    def keep_up(self):
        self.state = self.call("GET", "/api/v1/door/state")
        held = self.lease["version"] if self.lease else None
        self.lease = self.call("POST", "/api/v1/door/lease", {"heldVersion": held})

    def scan_offline(self, code, people=1):
        """ENTER or REFUSED, decided here: CLup is not answering."""
        expires = datetime.datetime.fromisoformat(self.lease["expiresAt"].replace("Z", "+00:00"))
        if not self.state["admitsOffline"] or people > self.lease["places"] or datetime.datetime.now(datetime.UTC) > expires:
            return "REFUSED"
        self.lease["places"] -= people
        self.queue.append({"code": code, "scanId": "hw" + os.urandom(12).hex(),
                           "scannedAt": datetime.datetime.now(datetime.UTC).isoformat().replace("+00:00", "Z"),
                           "offlineResult": "enter"})
        return "ENTER"

    def catch_up(self):
        results = [self.call("POST", "/api/v1/scan", scan)["result"] for scan in self.queue]
        self.queue = []
        return results


def several_doors(stack, expect, drivers, outage):
    """Three doors of one store let people in offline: two kiosks and a hardware scanner."""
    print("three doors offline:")
    store = round_the_clock_store(stack, "Tre Porte", 6, 50)
    doors = {}
    for label in ("North", "South", "Loading bay"):
        enrolled = stack.clup("admin", "enrol-kiosk", "--store", store, "--label", label, "--role", "door")
        doors[label] = re.search(r"device key[^:]*: (\S+)", enrolled).group(1)
    stack.clup("admin", "set-staff-pin", "--store", store, stdin="482913\n")
    north, south = browser(), browser()
    drivers += [north, south]
    enrol(north, stack.base, doors["North"])
    enrol(south, stack.base, doors["South"])
    # Staff at the south door let it and the loading bay's scanner admit offline too.
    south.get(stack.base + "/kiosk/staff")
    south.find_element(By.NAME, "staff").send_keys("Gianni")
    south.find_element(By.NAME, "pin").send_keys("482913")
    south.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
    wait_for(south, lambda: "/kiosk/door" in south.current_url, seconds=15)
    for label in ("South", "Loading bay"):
        row = [item for item in south.find_elements(By.CSS_SELECTOR, "#doors li") if label in item.text][0]
        submit_and_wait(south, row.find_element(By.CSS_SELECTOR, "button"))
        said = south.find_element(By.TAG_NAME, "main").text
        expect(f"{label} lets people in while offline." in said, f"the console says {label} now admits offline")
    panel = south.find_element(By.ID, "doors").text
    expect(panel.count("lets people in while offline") == 3, f"the console shows the three doors admitting ({panel})")
    south.save_screenshot(os.path.join(stack.folder, "door-console-doors.png"))
    south.set_window_size(390, 844)
    south.execute_script("document.getElementById('doors').scrollIntoView()")
    south.save_screenshot(os.path.join(stack.folder, "door-console-doors-phone.png"))
    south.set_window_size(1280, 900)

    # A dispenser's spare tickets, printed while CLup could not be reached: let in when there is
    # room. Each door reads the block, and holds its lease: 2 of the 6 free places each.
    scanner = HardwareScanner(stack.base, doors["Loading bay"])
    spares = [t["codes"]["1"] for t in scanner.call("POST", "/api/v1/ticket-block")["tickets"]]
    for door in (north, south):
        door.get(stack.base + "/kiosk/scanner")
        wait_for(door, lambda: (kept_state(door) or {}).get("offlineBlocks") and (kept_state(door).get("lease") or {}).get("places") == 2,
                 seconds=40)
    scanner.keep_up()
    expect(scanner.state["admitsOffline"] and scanner.lease["places"] == 2,
           f"the scanner reads the state and holds 2 places too ({scanner.lease})")

    resume = outage("worker")
    try:
        at_north = [scan(north, spares[i])[0] for i in (0, 1, 2)]
        at_south = [scan(south, spares[i])[0] for i in (0, 3, 4)]
        at_scanner = [scanner.scan_offline(spares[i]) for i in (5, 6, 7)]
        message = scan(north, spares[8])[1]
    finally:
        resume()
    expect(at_north == ["ENTER", "ENTER", "REFUSED"], f"the north door lets in 2, then refuses: {at_north}")
    expect(at_south == ["ENTER", "ENTER", "REFUSED"], f"the south door lets in 2 (one a code north let in): {at_south}")
    expect(at_scanner == ["ENTER", "ENTER", "REFUSED"], f"the scanner lets in 2: {at_scanner}")
    expect("share of the free places" in message, f"the door says why ({message})")
    let_in = (at_north + at_south + at_scanner).count("ENTER")
    expect(let_in == 6, f"6 free places, {let_in} let in")
    north.save_screenshot(os.path.join(stack.folder, "door-lease-used.png"))

    for door in (north, south):
        wait_for(door, lambda: not door.find_element(By.CSS_SELECTOR, "[data-offline]").is_displayed(), seconds=60)
    expect(scanner.catch_up() == ["enter", "enter"], "the scanner's entries are applied")
    notes = south.find_element(By.CSS_SELECTOR, "[data-offline-notes]").text
    expect("1 scans made offline were not accepted" in notes, f"the south door says its entry of north's code was not ({notes})")
    with sqlite3.connect(os.path.join(stack.folder, "clup.sqlite"), timeout=10) as db:
        inside = db.execute("SELECT COALESCE(SUM(people), 0) FROM reservation WHERE storeId = ? AND status = 'inside'",
                            (store,)).fetchone()[0]
        conflicts = db.execute("SELECT reason, outcome FROM doorAction WHERE storeId = ? AND action = 'offlineConflict'",
                               (store,)).fetchall()
    expect(inside == 5, f"the code let in twice counts once inside: {inside}")
    expect(conflicts == [("alreadyInside", "enter")], f"and is reported to staff once: {conflicts}")
    south.get(stack.base + "/kiosk/door")
    log = south.find_element(By.TAG_NAME, "main").text
    expect("let in while offline; CLup: already inside" in log, "the door console shows it")


def main():
    keep = "--keep" in sys.argv
    stack = Stack()
    expect = Expectations()
    problems = expect.problems
    drivers = []

    try:
        # A store of 6 open round the clock, half its places for walk-ins; a main door kiosk
        # (letting people in offline, as the first door enrolled) and a side door.
        store = round_the_clock_store(stack, "Porta Offline", 6, 50)
        enrolled = stack.clup("admin", "enrol-kiosk", "--store", store, "--label", "Main door", "--role", "door")
        main_key = re.search(r"device key[^:]*: (\S+)", enrolled).group(1)
        main_kiosk = re.search(r"kiosk (\d+) enrolled", enrolled).group(1)
        side_enrolled = stack.clup("admin", "enrol-kiosk", "--store", store, "--label", "Side door", "--role", "door")
        side_key = re.search(r"device key[^:]*: (\S+)", side_enrolled).group(1)
        side_kiosk = re.search(r"kiosk (\d+) enrolled", side_enrolled).group(1)
        # Walk-ins A, B and D are called at once (three walk-in places); C waits.
        a, b, d, c = (issue(stack.base, main_key) for _ in range(4))
        print(f"tickets: A {a['number']} {a['status']}, B {b['number']} {b['status']}, "
              f"D {d['number']} {d['status']}, C {c['number']} {c['status']}")
        forged = a["code"][:40] + ("A" if a["code"][40] != "A" else "B") + a["code"][41:]

        # A customer lines up at store 1 (open around now) and keeps their ticket's page open.
        open_around_now(stack, "1")
        stack.clup("admin", "create-user", "--email", "ada@example.org", "--name", "Ada", "--role", "customer",
                   "--password-stdin", stdin=PASSWORD + "\n")
        shopper = browser()
        drivers.append(shopper)
        sign_in(shopper, stack.base, "ada@example.org", "en")

        def open_now():  # the worker sees the hours another process set within a second or so
            shopper.get(stack.base + "/stores/1")
            return "Open until" in shopper.find_element(By.TAG_NAME, "main").text
        wait_for(shopper, open_now, seconds=10)
        keyboard_reservation(shopper, stack.base)
        ticket_path = re.search(r"/reservations/\d+", shopper.current_url).group(0)
        wait_for(shopper, lambda: kept_copy(shopper, ticket_path), seconds=15)

        main_door, side_door = browser(), browser()
        drivers += [main_door, side_door]
        enrol(main_door, stack.base, main_key)
        enrol(side_door, stack.base, side_key)
        expect(kept_state(main_door)["admitsOffline"] is True and kept_state(side_door)["admitsOffline"] is False,
               "the main door admits offline, the side door does not")
        # The page's copy of the entrance rules gives every verdict of the shared table, as the
        # server's does (EntranceCasesTests).
        table = json.load(open(os.path.join(os.path.dirname(__file__), "..", "Shared", "entrance-cases.json")))["cases"]
        verdicts = main_door.execute_script("""
            const now = Date.parse("2026-11-18T09:00:00Z");
            return arguments[0].map(c => {
              const ticket = {people: c.people, printedOffline: !!c.printedOffline,
                              calledAt: c.calledMinutesAgo === undefined ? null : new Date(now - c.calledMinutesAgo * 60000).toISOString(),
                              slotStart: c.slotInMinutes === undefined ? null : new Date(now + c.slotInMinutes * 60000).toISOString()};
              const state = {admitsOffline: true, lease: {places: 99, expiresAt: "2999-01-01T00:00:00Z"},
                             peopleInside: c.inside, capacity: c.capacity,
                             callGraceMinutes: c.graceMinutes ?? 10, entryBeforeMinutes: c.beforeMinutes ?? 10,
                             entryAfterMinutes: c.afterMinutes ?? 15};
              const verdict = window.clupDoorRules(c.status, ticket, state, now);
              return verdict.result === "refused" ? verdict.reason : verdict.result;
            });""", table)
        wrong = [f"{case['name']}: {got}" for case, got in zip(table, verdicts) if got != case["expect"]]
        expect(not wrong, f"the page's rules give the {len(table)} verdicts of the shared table {wrong or ''}")

        print("online:")
        expect(scan(main_door, a["code"])[0] == "ENTER", "A enters online")

        def outage(kind):
            """Stops the worker (or nginx) from answering; returns a function that restarts it. The
            worker's supervision in scripts/run is stopped with it, or it would replace the worker
            within seconds: the outage is then as long as the test makes it."""
            names = ("clup", "bash") if kind == "worker" else ("nginx",)
            pids = [pid for name in names for pid in session_processes(stack, name)]
            if not pids:
                raise SystemExit(f"no {kind} process found")
            freeze(pids, True)
            return lambda: freeze(pids, False)

        # The worker stops answering; meanwhile ticket B is cancelled (by whoever: CLup will see
        # it when it answers again, and the kiosk cannot).
        print("the worker stops answering:")
        resume = outage("worker")
        started = time.time()
        with sqlite3.connect(os.path.join(stack.folder, "clup.sqlite"), timeout=10) as db:
            db.execute("UPDATE reservation SET status = 'cancelled', endedAt = strftime('%Y-%m-%d %H:%M:%f', 'now') "
                       "WHERE id = ?", (b["id"],))
        before_exit = time.time()
        headline, _, banner = scan(main_door, a["code"])
        after_exit = time.time()
        expect(headline == "EXIT" and banner.startswith("OFFLINE — 1 "), f"A exits offline ({headline}; {banner})")
        before_entry = time.time()
        headline, message, banner = scan(main_door, d["code"])
        after_entry = time.time()
        expect(headline == "ENTER" and banner.startswith("OFFLINE — 2 "), f"D enters offline ({headline}: {message})")
        main_door.save_screenshot(os.path.join(stack.folder, "door-offline.png"))
        # The kiosk is restarted meanwhile: its page opens from the service worker's copy, says
        # so, and goes on deciding from what it kept.
        main_door.get(stack.base + "/kiosk/scanner")
        notice = main_door.find_elements(By.CSS_SELECTOR, ".offline-copy")
        banner = main_door.find_element(By.CSS_SELECTOR, "[data-offline]")
        try:
            wait_for(main_door, lambda: banner.text.startswith("OFFLINE — 2 "), seconds=5)
        except SystemExit:
            pass
        expect(bool(notice) and "Offline" in notice[0].text and banner.text.startswith("OFFLINE — 2 "),
               f"the scanner reloaded offline opens from its kept copy, with its queue ({banner.text})")
        headline, message, _ = scan(main_door, c["code"])
        expect(headline == "REFUSED" and "not been called" in message, f"C, not called, is refused ({message})")
        headline, message, _ = scan(main_door, forged)
        expect(headline == "REFUSED" and "altered" in message, f"a forged code is refused ({message})")
        headline, message, _ = scan(main_door, b["code"])
        expect(headline == "ENTER", f"B, cancelled where the kiosk cannot see, is let in ({headline})")
        headline, message, _ = scan(side_door, d["code"])
        expect(headline == "REFUSED" and "Main door" in message,
               f"the side door does not let D in a second time ({message})")
        # The customer's ticket page, reloaded: the kept copy, its QR code, and a word that it
        # may be out of date.
        shopper.get(stack.base + ticket_path)
        copy = shopper.find_elements(By.CSS_SELECTOR, ".offline-copy")
        expect(bool(copy) and "may be out of date" in copy[0].text and shopper.find_elements(By.CSS_SELECTOR, "svg path"),
               "a customer's ticket reloaded offline shows its kept copy and QR code, marked as such")
        shopper.save_screenshot(os.path.join(stack.folder, "ticket-offline.png"))
        # Two minutes without CLup: the door goes on refusing C as it should.
        refusals = 0
        while time.time() - started < 110:
            time.sleep(12)
            refusals += scan(main_door, c["code"])[0] == "REFUSED"
        expect(refusals >= 5, f"C is refused all through the outage ({refusals} times)")
        expect(scan(main_door, d["code"])[0] == "EXIT", "D leaves offline")
        offline_for = time.time() - started
        expect(scan(main_door, d["code"])[0] == "REFUSED", "D's code again, offline: refused")
        resume()

        print("CLup answers again:")
        caught_up = time.time()
        wait_for(main_door, lambda: not main_door.find_element(By.CSS_SELECTOR, "[data-offline]").is_displayed(),
                 seconds=60)
        catch_up = time.time() - caught_up
        notes = main_door.find_element(By.CSS_SELECTOR, "[data-offline-notes]").text
        expect("1 scans made offline were not accepted" in notes, f"the conflict is shown at the door ({notes})")
        with sqlite3.connect(os.path.join(stack.folder, "clup.sqlite"), timeout=10) as db:
            def row(ticket):
                return db.execute("SELECT status, strftime('%s', enteredAt) + substr(enteredAt, 20) * 1, "
                                  "strftime('%s', exitedAt) + substr(exitedAt, 20) * 1 FROM reservation WHERE id = ?",
                                  (ticket["id"],)).fetchone()
            status_a, _, exited_a = row(a)
            status_d, entered_d, exited_d = row(d)
            expect(status_a == "done" and before_exit - 1 <= exited_a <= after_exit + 1,
                   "A's exit is recorded at the time it happened")
            expect(status_d == "done" and before_entry - 1 <= entered_d <= after_entry + 1 and exited_d > entered_d,
                   "D's visit is recorded as it happened")
            expect(row(b)[0] == "cancelled", "B stays cancelled")
            conflicts = db.execute("SELECT number, reason, outcome FROM doorAction WHERE action = 'offlineConflict'").fetchall()
            expect(conflicts == [(b["number"], "cancelled", "enter")], f"the conflict is logged for staff: {conflicts}")
            receipts = db.execute("SELECT COUNT(*) FROM scanReceipt").fetchone()[0]
            expect(receipts == 5, f"each scan sent once: {receipts} receipts (A in online; A out, D in, B, D out offline)")
        status = json.loads(urllib.request.urlopen(urllib.request.Request(
            f"{stack.base}/api/v1/stores/{store}/status", headers={"Authorization": "Bearer " + main_key}),
            timeout=10).read())
        expect(status["peopleInside"] == 0, f"the count inside is what happened at the door: {status['peopleInside']}")
        expect(scan(main_door, d["code"])[0] == "REFUSED", "online again, D's used code is refused")

        # nginx stops answering: the same, through a frozen nginx.
        print("nginx stops answering:")
        e = issue(stack.base, main_key)
        reload_keeping(main_door, stack.base, e)
        resume = outage("nginx")
        headline, _, banner = scan(main_door, e["code"])
        expect(headline == "ENTER" and banner.startswith("OFFLINE — 1 "), f"E enters while nginx is down ({banner})")
        resume()
        wait_for(main_door, lambda: not main_door.find_element(By.CSS_SELECTOR, "[data-offline]").is_displayed(),
                 seconds=60)
        with sqlite3.connect(os.path.join(stack.folder, "clup.sqlite"), timeout=10) as db:
            expect(db.execute("SELECT status FROM reservation WHERE id = ?", (e["id"],)).fetchone()[0] == "inside",
                   "E's entry reached CLup once nginx answered")
        main_door.set_window_size(390, 844)
        main_door.save_screenshot(os.path.join(stack.folder, "door-phone.png"))
        main_door.set_window_size(1280, 900)

        # A dispenser prints a walk-in ticket while CLup cannot be reached, from the spare
        # tickets it kept; the door lets its holder in, since there is room; once CLup answers,
        # the ticket and the entry are both recorded, once.
        print("a ticket printed offline:")
        dispenser_key = re.search(r"device key[^:]*: (\S+)", stack.clup(
            "admin", "enrol-kiosk", "--store", store, "--label", "Dispenser", "--role", "dispenser")).group(1)
        dispenser = browser()
        drivers.append(dispenser)
        dispenser.get(stack.base + "/kiosk")
        dispenser.find_element(By.NAME, "key").send_keys(dispenser_key + Keys.ENTER)
        wait_for(dispenser, lambda: dispenser.find_elements(By.CSS_SELECTOR, "form[data-dispenser]"), seconds=15)
        wait_for(dispenser, lambda: kept_copy(dispenser, "/kiosk/dispenser"), seconds=15)
        wait_for(dispenser, lambda: spare_count(dispenser) == 10, seconds=15)
        request = urllib.request.Request(stack.base + "/api/v1/ticket-block", method="POST",
                                         headers={"Authorization": "Bearer " + dispenser_key})
        block = json.loads(urllib.request.urlopen(request, timeout=10).read())
        first_spare = block["tickets"][0]
        # The door learns of the block with its next state. The side door is taken out of
        # service: the main door, the store's only one, holds every free place for offline.
        stack.clup("admin", "revoke-kiosk", "--id", side_kiosk)
        main_door.get(stack.base + "/kiosk/scanner")
        wait_for(main_door, lambda: (kept_state(main_door) or {}).get("offlineBlocks"), seconds=40)
        wait_for(main_door, lambda: ((kept_state(main_door) or {}).get("lease") or {}).get("places") == 5, seconds=40)
        resume = outage("worker")
        for index in range(3):
            if index:
                # Back to the dispenser, from the service worker's kept copy.
                dispenser.get(stack.base + "/kiosk/dispenser")
                wait_for(dispenser, lambda: dispenser.find_elements(By.CSS_SELECTOR, "form[data-dispenser]"), seconds=15)
            dispenser.find_element(By.CSS_SELECTOR, "input[name=people][value='2'] + span").click()
            dispenser.find_element(By.CSS_SELECTOR, "form[data-dispenser] button[type=submit]").click()
            wait_for(dispenser, lambda: dispenser.find_elements(By.CSS_SELECTOR, ".receipt-number"), seconds=15)
            if not index:
                receipt = " ".join(dispenser.find_element(By.CSS_SELECTOR, ".receipt").text.lower().split())
                expect(f"ticket {first_spare['number']}" in receipt and "could not be reached" in receipt
                       and dispenser.find_elements(By.CSS_SELECTOR, ".receipt svg path"),
                       f"the dispenser prints spare ticket {first_spare['number']} offline, with its QR code")
                dispenser.save_screenshot(os.path.join(stack.folder, "dispenser-offline.png"))
        banner = dispenser.find_element(By.CSS_SELECTOR, "[data-offline]").text
        expect(banner.startswith("OFFLINE — 3 tickets printed here"), f"and says they wait to be sent ({banner})")
        # One inside already (E): two parties of two go in, the third finds the store full.
        spares = block["tickets"][:3]
        for spare, verdict in zip(spares, ("ENTER", "ENTER", "REFUSED")):
            headline, message, _ = scan(main_door, spare["codes"]["2"])
            expect(headline == verdict and (verdict == "ENTER" or "full" in message),
                   f"ticket {spare['number']} printed offline at the door: {headline} ({message})")
        resume()
        wait_for(dispenser, lambda: not dispenser.find_element(By.CSS_SELECTOR, "[data-offline]").is_displayed(),
                 seconds=60)
        wait_for(main_door, lambda: not main_door.find_element(By.CSS_SELECTOR, "[data-offline]").is_displayed(),
                 seconds=60)
        with sqlite3.connect(os.path.join(stack.folder, "clup.sqlite"), timeout=10) as db:
            made = [db.execute("SELECT status, number, people, walkIn FROM reservation WHERE id = ?",
                               (spare["id"],)).fetchone() for spare in spares]
            expect([row[1:] for row in made] == [(spare["number"], 2, 1) for spare in spares]
                   and [row[0] for row in made[:2]] == ["inside", "inside"] and made[2][0] in ("waiting", "called"),
                   f"CLup has the three tickets, their parties and the two entries, once: {made}")
            # The requests the dispenser gave up on reached the worker when it answered again,
            # late: they issued nothing.
            issued = db.execute("SELECT COUNT(*) FROM reservation WHERE storeId = ? AND number > ?",
                                (store, block["tickets"][-1]["number"])).fetchone()[0]
            expect(issued == 0, f"no second ticket for the same press: {issued}")
        expect(spare_count(dispenser) == 7, "the dispenser reads its spares again: three fewer")
        # They leave; the third, called in its turn, goes in and out online.
        expect([scan(main_door, spare["codes"]["2"])[0] for spare in spares[:2]] == ["EXIT", "EXIT"],
               "the two parties leave, online")
        expect([scan(main_door, spares[2]["codes"]["2"])[0] for _ in range(2)] == ["ENTER", "EXIT"],
               "the third goes in and out, online")

        # Bad input on catch-up: a queued scan edited in IndexedDB (another ticket's code,
        # altered), and a scan from another store's kiosk slipped into the queue. Both reach
        # CLup, are refused with their reasons on the door console, and change nothing; the
        # genuine scan queued with them is applied.
        print("a tampered queue:")
        f, g = issue(stack.base, main_key), issue(stack.base, main_key)
        other_key = re.search(r"device key[^:]*: (\S+)", stack.clup(
            "admin", "enrol-kiosk", "--store", "1", "--label", "Elsewhere", "--role", "door")).group(1)
        elsewhere = issue(stack.base, other_key)
        reload_keeping(main_door, stack.base, f)
        resume = outage("worker")
        headline, _, banner = scan(main_door, f["code"])
        expect(headline == "ENTER" and banner.startswith("OFFLINE — 1 "), f"F enters offline ({banner})")
        forged_g = g["code"][:100] + ("A" if g["code"][100] != "A" else "B") + g["code"][101:]
        edited = main_door.execute_async_script("""
            const [forged, stranger, done] = arguments;
            const request = indexedDB.open("clup-door", 1);
            request.onsuccess = () => {
              const tx = request.result.transaction("queue", "readwrite");
              const queue = tx.objectStore("queue");
              const at = new Date().toISOString();
              queue.add({code: forged, scanId: "editedInIndexedDB01", scannedAt: at, offlineResult: "enter"});
              queue.add({code: stranger, scanId: "replayedFromElsewhere1", scannedAt: at, offlineResult: "enter"});
              tx.oncomplete = () => done(true);
              tx.onerror = () => done(false);
            };
            request.onerror = () => done(false);""", forged_g, elsewhere["code"])
        expect(edited, "the queue is edited in IndexedDB")
        main_door.get(stack.base + "/kiosk/scanner")
        banner = main_door.find_element(By.CSS_SELECTOR, "[data-offline]")
        try:
            wait_for(main_door, lambda: banner.text.startswith("OFFLINE — 3 "), seconds=5)
        except SystemExit:
            pass
        expect(banner.text.startswith("OFFLINE — 3 "), f"the kiosk counts the edited queue ({banner.text})")
        resume()
        wait_for(main_door, lambda: not main_door.find_element(By.CSS_SELECTOR, "[data-offline]").is_displayed(),
                 seconds=60)
        notes = main_door.find_element(By.CSS_SELECTOR, "[data-offline-notes]").text
        expect("2 scans made offline were not accepted" in notes, f"the door says two were not accepted ({notes})")
        with sqlite3.connect(os.path.join(stack.folder, "clup.sqlite"), timeout=10) as db:
            conflicts = db.execute("SELECT reason, outcome, kioskId FROM doorAction WHERE action = 'offlineConflict' "
                                   "AND reason != 'cancelled' ORDER BY id").fetchall()
            expect(conflicts == [("unknownCode", "enter", int(main_kiosk)), ("otherStore", "enter", int(main_kiosk))],
                   f"each is on the door console with its reason: {conflicts}")
            states = [db.execute("SELECT status FROM reservation WHERE id = ?", (t["id"],)).fetchone()[0]
                      for t in (f, g, elsewhere)]
            expect(states[0] == "inside" and states[1] in ("waiting", "called") and states[2] in ("waiting", "called"),
                   f"F's genuine scan is applied; G and the other store's ticket are not let in: {states}")

        # The kiosk's key is revoked while it is offline (the shop's link down, as Chromium's
        # network emulation makes it: nothing it sends leaves the browser): what it queued is
        # kept on it, not sent, and it says so.
        print("a kiosk revoked while offline:")
        wait_for(main_door, lambda: any(t["id"] == f["id"] and t["state"] == "inside"
                                        for t in (kept_state(main_door) or {}).get("tickets", [])), seconds=40)
        main_door.set_network_conditions(offline=True, latency=0, download_throughput=-1, upload_throughput=-1)
        headline, _, banner = scan(main_door, f["code"])
        expect(headline == "EXIT" and banner.startswith("OFFLINE — 1 "), f"F leaves offline ({banner})")
        stack.clup("admin", "revoke-kiosk", "--id", main_kiosk)
        time.sleep(2)  # the worker reads other processes' writes within a second
        main_door.delete_network_conditions()
        wait_for(main_door, lambda: "no longer works" in main_door.find_element(
            By.CSS_SELECTOR, "[data-offline-notes]").text, seconds=60)
        notes = main_door.find_element(By.CSS_SELECTOR, "[data-offline-notes]").text
        expect("1 scans made offline are kept here" in notes, f"the revoked kiosk keeps its scan and says so ({notes})")
        kept = main_door.execute_async_script("""
            const done = arguments[arguments.length - 1];
            const request = indexedDB.open("clup-door", 1);
            request.onsuccess = () => {
              request.result.transaction("queue").objectStore("queue").count().onsuccess = e => done(e.target.result);
            };""")
        expect(kept == 1, f"the scan is still in the kiosk's queue: {kept}")
        with sqlite3.connect(os.path.join(stack.folder, "clup.sqlite"), timeout=10) as db:
            expect(db.execute("SELECT status FROM reservation WHERE id = ?", (f["id"],)).fetchone()[0] == "inside",
                   "a revoked kiosk's scan is not applied")

        several_doors(stack, expect, drivers, outage)
    finally:
        freeze(list(FROZEN), False)
        for driver in drivers:
            driver.quit()
        stack.stop(keep)

    print(f"door offline: worker stopped {offline_for:.0f} s, {8 + refusals} scans decided at the door; caught up in "
          f"{catch_up:.1f} s; {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
