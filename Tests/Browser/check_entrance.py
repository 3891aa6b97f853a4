"""The entrance in the field, in real Chromium.

The door goes by CLup's clock: one door kiosk, its clock right, then 5 minutes fast, then 5
minutes slow (the page's `Date` shifted before any of its scripts run), admits and refuses
exactly alike, online and offline, and its offline entries are recorded at the time they
happened; a fast or slow clock is said to staff at the door. A scan the kiosk sends more than
a day late is not applied but kept in the door log with its reason.

The calling board speaks: it updates in place, its live region says "Now calling N" in the
accessibility tree as a number is called, and with sound on it calls speech synthesis, again
on "Say it again"; the last calls are listed.

The dispenser by keyboard alone: + for larger text, 0 to read aloud, 2 for a party of two,
Tab and Enter to print; the printed ticket says its number aloud and stays on screen on
request; the next customer starts afresh.

Kiosks watched: a dispenser opened once at the start and then switched off has been silent for
over 2 minutes by the end: its manager's page flags it, and so does /metrics.

Run by `scripts/test` after check_door_offline.py, with the same tools. Starts CLup as
`scripts/run` does (check_pages.Stack) and stops it at the end.

    .build/browser-tools/bin/python Tests/Browser/check_entrance.py [--keep]
"""

import datetime
import os
import re
import sqlite3
import sys
import time
import urllib.request

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

sys.path.insert(0, os.path.dirname(__file__))
from check_door_offline import (Expectations, browser, enrol, issue, kept_state, round_the_clock_store,  # noqa: E402
                                scan)
from check_pages import PASSWORD, Stack, sign_in, wait_for  # noqa: E402

# A page's clock moved by `skew` milliseconds: `Date.now()` and `new Date()` as a tablet whose
# clock is off would give them.
SKEWED_DATE = """
(() => {
  const skew = %d;
  const RealDate = Date;
  class SkewedDate extends RealDate {
    constructor(...args) { if (args.length === 0) super(RealDate.now() + skew); else super(...args); }
    static now() { return RealDate.now() + skew; }
  }
  window.Date = SkewedDate;
})();
"""

GRACE_MINUTES = 10

# Speech synthesis as the page calls it, recorded (a headless browser has no voice).
RECORDED_SPEECH = """
window.__spoken = [];
if (window.speechSynthesis) {
  window.speechSynthesis.speak = u => window.__spoken.push({text: u.text, lang: u.lang});
  window.speechSynthesis.cancel = () => {};
}
"""


def live_regions(driver):
    """The text of every live region in Chromium's accessibility tree, by its politeness."""
    tree = driver.execute_cdp_cmd("Accessibility.getFullAXTree", {})["nodes"]
    nodes = {node["nodeId"]: node for node in tree}

    def text(node):
        own = node.get("name", {}).get("value", "") if node.get("role", {}).get("value") in ("StaticText", "text") else ""
        return own + "".join(text(nodes[child]) for child in node.get("childIds", []) if child in nodes)
    found = []
    for node in tree:
        live = [p["value"]["value"] for p in node.get("properties", []) if p["name"] == "live"]
        atomic = [p for p in node.get("properties", []) if p["name"] == "atomic"]
        if live and atomic:  # the region's own node, not its descendants (which inherit `live`)
            found.append((live[0], text(node)))
    return found


def speaking_dispenser(stack, store, label, drivers):
    """A browser enrolled as a new dispenser kiosk of `store`, its speech recorded, on the
    dispenser's screen."""
    key = re.search(r"device key[^:]*: (\S+)", stack.clup(
        "admin", "enrol-kiosk", "--store", store, "--label", label, "--role", "dispenser")).group(1)
    kiosk = browser()
    drivers.append(kiosk)
    kiosk.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORDED_SPEECH})
    kiosk.get(stack.base + "/kiosk")
    kiosk.find_element(By.NAME, "key").send_keys(key + "\n")
    wait_for(kiosk, lambda: kiosk.find_elements(By.CSS_SELECTOR, "form[data-dispenser]"), seconds=15)
    return kiosk


def check_dispenser(stack, expect, store, drivers):
    """The dispenser by keyboard alone, with larger text and reading aloud, as a customer with
    low vision would use it; the printed ticket says its number and stays on request."""
    kiosk = speaking_dispenser(stack, store, "Accessible dispenser", drivers)
    keys = ActionChains(kiosk)

    def spoken():
        return [said["text"] for said in kiosk.execute_script("return window.__spoken")]
    keys.send_keys("+").perform()
    expect(kiosk.execute_script("return document.documentElement.classList.contains('large-text')")
           and kiosk.find_element(By.CSS_SELECTOR, "[data-large-text]").get_attribute("aria-pressed") == "true",
           "+ turns larger text on")
    kiosk.save_screenshot(os.path.join(stack.folder, "dispenser-large-text.png"))
    ActionChains(kiosk).send_keys("0").perform()
    expect(any(words.startswith("Take a ticket") for words in spoken()), f"0 reads the screen aloud: {spoken()}")
    ActionChains(kiosk).send_keys("2").perform()
    focused = kiosk.switch_to.active_element
    expect(focused.get_attribute("name") == "people" and focused.get_attribute("value") == "2" and focused.is_selected(),
           "2 chooses a party of two")
    expect(any("Two of us" in words for words in spoken()), f"and says so: {spoken()[-1:]}")
    # Tab to the print button and press Enter: no pointer anywhere.
    for _ in range(20):
        ActionChains(kiosk).send_keys(Keys.TAB).perform()
        active = kiosk.switch_to.active_element
        if active.tag_name == "button" and "huge" in (active.get_attribute("class") or ""):
            break
    ActionChains(kiosk).send_keys(Keys.ENTER).perform()
    wait_for(kiosk, lambda: "/kiosk/tickets/" in kiosk.current_url, seconds=15)
    number = kiosk.find_element(By.CSS_SELECTOR, ".receipt-number").text.split()[-1]
    wait_for(kiosk, lambda: any(f"Your number is {number}." in words for words in spoken()), seconds=5)
    expect(any(f"Your number is {number}." in words for words in spoken()), f"the ticket says its number aloud: {spoken()[-1:]}")
    expect(kiosk.execute_script("return document.documentElement.classList.contains('large-text')"),
           "in larger text still")
    for _ in range(20):
        ActionChains(kiosk).send_keys(Keys.TAB).perform()
        if "more time" in kiosk.switch_to.active_element.text:
            break
    ActionChains(kiosk).send_keys(Keys.ENTER).perform()
    time.sleep(26)  # past the 20 seconds the ticket is shown for
    expect("/kiosk/tickets/" in kiosk.current_url, "“I need more time” keeps the ticket on screen")
    kiosk.find_element(By.CSS_SELECTOR, ".kiosk-next a").send_keys(Keys.ENTER)
    wait_for(kiosk, lambda: kiosk.current_url.endswith("/kiosk/dispenser"), seconds=10)
    expect(not kiosk.execute_script("return document.documentElement.classList.contains('large-text')"),
           "the next customer starts with the screen as it was")
    kiosk.quit()
    drivers.remove(kiosk)


def check_board(stack, expect, store, key, drivers):
    """The calling board on a screen of its own (a kiosk enrolled for it): a number called at
    the door's store is announced in place."""
    board = speaking_dispenser(stack, store, "Board", drivers)
    board.get(stack.base + "/kiosk/board")
    board.execute_script("window.clupSamePage = true")
    sound = board.find_element(By.CSS_SELECTOR, "[data-board-sound]")
    sound.click()
    expect(sound.get_attribute("aria-pressed") == "true", "the board's sound is turned on by its button")
    ticket = issue(stack.base, key)
    called = f"Now calling {ticket['number']}"
    try:
        wait_for(board, lambda: any(called == words for _, words in live_regions(board)), seconds=15)
    except SystemExit:
        pass
    regions = live_regions(board)
    expect(("assertive", called) in regions, f"the accessibility tree's live region says {called!r}: {regions}")
    expect(board.execute_script("return window.clupSamePage === true"), "without reloading the page")
    try:  # after the chime
        wait_for(board, lambda: board.execute_script("return window.__spoken.length") > 0, seconds=5)
    except SystemExit:
        pass
    spoken = board.execute_script("return window.__spoken")
    expect({"text": called, "lang": "en"} in spoken, f"and speech synthesis says it in the page's language: {spoken}")
    board.find_element(By.CSS_SELECTOR, "[data-board-repeat]").click()
    wait_for(board, lambda: len(board.execute_script("return window.__spoken")) == len(spoken) + 1, seconds=5)
    expect(board.execute_script("return window.__spoken")[-1]["text"] == called, "“Say it again” says it again")
    history = board.find_element(By.CSS_SELECTOR, "[data-board-history]").text
    expect(str(ticket["number"]) in history, f"the last calls are listed: {history!r}")
    first = board.find_element(By.CSS_SELECTOR, ".board-called li").text
    expect(first == str(ticket["number"]), f"the latest call leads the board: {first}")
    for name, size in (("desktop", (1280, 900)), ("phone", (390, 844))):
        board.set_window_size(*size)
        board.save_screenshot(os.path.join(stack.folder, f"board-{name}.png"))
    if board.execute_script("return document.fullscreenEnabled"):
        board.find_element(By.CSS_SELECTOR, "[data-board-fullscreen]").click()
        wait_for(board, lambda: board.execute_script("return !!document.fullscreenElement"), seconds=5)
        board.save_screenshot(os.path.join(stack.folder, "board-fullscreen.png"))
        expect(True, "the board goes full screen for a TV")
    board.quit()
    drivers.remove(board)


def set_clock(driver, skew_minutes, installed):
    """Moves the kiosk's clock by `skew_minutes` from its next page load on."""
    if installed:
        driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": installed})
    return driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                                  {"source": SKEWED_DATE % (skew_minutes * 60000)})["identifier"]


def main():
    keep = "--keep" in sys.argv
    stack = Stack()
    expect = Expectations()
    drivers = []
    database = os.path.join(stack.folder, "clup.sqlite")

    def backdate_call(ticket, minutes):
        """Says ticket was called `minutes` ago, as if the kiosk had watched it all along."""
        called = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=minutes)
        with sqlite3.connect(database, timeout=10) as db:
            db.execute("UPDATE reservation SET calledAt = ? WHERE id = ?",
                       (called.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3], ticket["id"]))
        return called.timestamp()

    def entered_at(ticket):
        with sqlite3.connect(database, timeout=10) as db:
            return db.execute("SELECT status, strftime('%s', enteredAt) + substr(enteredAt, 20) * 1 FROM reservation "
                              "WHERE id = ?", (ticket["id"],)).fetchone()

    try:
        store = round_the_clock_store(stack, "Porta Orologio", 40, 90, "--call-grace-minutes", str(GRACE_MINUTES))
        key = re.search(r"device key[^:]*: (\S+)", stack.clup(
            "admin", "enrol-kiosk", "--store", store, "--label", "Main door", "--role", "door")).group(1)
        # A dispenser opened once, then switched off: silent from then on.
        enrolled = stack.clup("admin", "enrol-kiosk", "--store", store, "--label", "Dispenser", "--role", "dispenser")
        dispenser_key = re.search(r"device key[^:]*: (\S+)", enrolled).group(1)
        dispenser_id = re.search(r"kiosk (\d+) enrolled", enrolled).group(1)
        dispenser = browser()
        dispenser.get(stack.base + "/kiosk")
        dispenser.find_element(By.NAME, "key").send_keys(dispenser_key + "\n")
        wait_for(dispenser, lambda: dispenser.find_elements(By.CSS_SELECTOR, "form[data-dispenser]"), seconds=15)
        dispenser.quit()
        switched_off = time.time()

        door = browser()
        drivers.append(door)
        enrol(door, stack.base, key)
        installed = None
        for skew, name in ((0, "right"), (5, "5 minutes fast"), (-5, "5 minutes slow")):
            print(f"the kiosk's clock {name}:")
            installed = set_clock(door, skew, installed)
            # B is called now; A was called 9.4 minutes ago and C 7 (of a 10-minute grace).
            a, b, c = (issue(stack.base, key) for _ in range(3))
            a_called = backdate_call(a, 9.4)
            c_called = backdate_call(c, 7)
            door.get(stack.base + "/kiosk/scanner")

            def knows_calls():
                tickets = {t["id"]: t for t in (kept_state(door) or {}).get("tickets", [])}
                return all(t["id"] in tickets for t in (a, b, c)) and \
                    abs(datetime.datetime.fromisoformat(tickets[a["id"]]["calledAt"]).timestamp() - a_called) < 1
            wait_for(door, knows_calls, seconds=40)
            offset = door.execute_script("return Number(localStorage.getItem('clup-clock-offset'))")
            expect(abs(offset + skew * 60000) < 2000, f"the kiosk learns its clock is off by {-offset / 60000:.2f} min")
            notes = door.find_element(By.CSS_SELECTOR, "[data-offline-notes]")
            expected = {0: "", 5: "5 min fast", -5: "5 min slow"}[skew]

            def said():
                return notes.text if notes.is_displayed() else ""
            try:
                wait_for(door, lambda: expected in said() if expected else "clock" not in said(), seconds=5)
            except SystemExit:
                pass
            expect(expected in said() if expected else "clock" not in said(), f"staff at the door are told: {said()!r}")
            if skew:
                door.save_screenshot(os.path.join(stack.folder, f"door-clock{skew:+d}.png"))

            # Online: CLup decides, at its own time.
            d = issue(stack.base, key)
            expect([scan(door, d["code"])[0] for _ in range(2)] == ["ENTER", "EXIT"], "online, D goes in and out")

            # Offline (the shop's link down): the kiosk decides by CLup's time.
            door.set_network_conditions(offline=True, latency=0, download_throughput=-1, upload_throughput=-1)
            before_b = time.time()
            headline, _, banner = scan(door, b["code"])
            after_b = time.time()
            expect(headline == "ENTER" and banner.startswith("OFFLINE"), f"offline, B (called just now) enters: {headline}")
            before_c = time.time()
            headline, message, _ = scan(door, c["code"])
            after_c = time.time()
            expect(headline == "ENTER", f"offline, C (called 7 minutes ago) enters: {headline} ({message})")
            # A's grace ends 10 minutes after its call: scanned just after that, it is refused.
            time.sleep(max(0, a_called + GRACE_MINUTES * 60 + 3 - time.time()))
            headline, message, _ = scan(door, a["code"])
            expect(headline == "REFUSED" and "expired" in message.lower(),
                   f"offline, A (its 10 minutes over) is refused: {headline} ({message})")
            door.delete_network_conditions()
            wait_for(door, lambda: not door.find_element(By.CSS_SELECTOR, "[data-offline]").is_displayed(), seconds=60)
            status_b, at_b = entered_at(b)
            status_c, at_c = entered_at(c)
            expect(status_b == "inside" and before_b - 1 <= at_b <= after_b + 1,
                   f"B's offline entry is recorded when it happened ({at_b - before_b:+.1f} s)")
            expect(status_c == "inside" and before_c - 1 <= at_c <= after_c + 1 and at_c > c_called,
                   f"C's offline entry is recorded when it happened ({at_c - before_c:+.1f} s)")
            with sqlite3.connect(database, timeout=10) as db:
                conflicts = db.execute("SELECT number, reason FROM doorAction WHERE action = 'offlineConflict'").fetchall()
            expect(not conflicts, f"CLup accepts every scan the kiosk made offline: {conflicts}")
            expect([scan(door, t["code"])[0] for t in (b, c)] == ["EXIT", "EXIT"], "online again, B and C leave")

        # A scan sent more than a day after it was made (a kiosk left offline over a weekend):
        # not applied, kept in the door log with its reason, and said at the door.
        print("a scan sent too late:")
        e = issue(stack.base, key)
        door.get(stack.base + "/kiosk/scanner")
        wait_for(door, lambda: any(t["id"] == e["id"] for t in (kept_state(door) or {}).get("tickets", [])), seconds=40)
        door.set_network_conditions(offline=True, latency=0, download_throughput=-1, upload_throughput=-1)
        expect(scan(door, e["code"])[0] == "ENTER", "offline, E enters")
        aged = door.execute_async_script("""
            const done = arguments[arguments.length - 1];
            const request = indexedDB.open("clup-door", 1);
            request.onsuccess = () => {
              const tx = request.result.transaction("queue", "readwrite");
              const queue = tx.objectStore("queue");
              queue.openCursor().onsuccess = event => {
                const cursor = event.target.result;
                if (!cursor) return;
                const item = cursor.value;
                item.scannedAt = new Date(Date.now() - 2 * 86400000).toISOString();
                cursor.update(item);
                cursor.continue();
              };
              tx.oncomplete = () => done(true);
              tx.onerror = () => done(false);
            };
            request.onerror = () => done(false);""")
        expect(aged, "the queued scan is dated two days ago")
        door.delete_network_conditions()
        wait_for(door, lambda: not door.find_element(By.CSS_SELECTOR, "[data-offline]").is_displayed(), seconds=60)
        notes = door.find_element(By.CSS_SELECTOR, "[data-offline-notes]").text
        expect("1 scans made offline were not accepted" in notes, f"the door says it was not accepted ({notes})")
        with sqlite3.connect(database, timeout=10) as db:
            logged = db.execute("SELECT number, reason, outcome FROM doorAction WHERE action = 'offlineConflict'").fetchall()
            status = db.execute("SELECT status FROM reservation WHERE id = ?", (e["id"],)).fetchone()[0]
        expect(logged == [(e["number"], "scanTooOld", "enter")], f"the door log keeps it with its reason: {logged}")
        expect(status == "called", f"and it was not applied: E is {status}")
        # Staff read it on the door console.
        stack.clup("admin", "set-staff-pin", "--store", store, stdin="482913\n")
        door.get(stack.base + "/kiosk/staff")
        door.find_element(By.NAME, "staff").send_keys("Gianni")
        door.find_element(By.NAME, "pin").send_keys("482913")
        door.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
        wait_for(door, lambda: "/kiosk/door" in door.current_url, seconds=15)
        log = door.find_element(By.TAG_NAME, "main").text
        expect("sent more than a day after the scan" in log, "the door console shows the reason")

        print("the calling board:")
        check_board(stack, expect, store, key, drivers)
        print("the dispenser by keyboard, larger and aloud:")
        check_dispenser(stack, expect, store, drivers)

        # The dispenser switched off at the start: silent on its manager's page and in /metrics.
        print("a kiosk switched off:")
        time.sleep(max(0, switched_off + 125 - time.time()))
        stack.clup("admin", "create-user", "--email", "boss@example.org", "--name", "Boss", "--role", "manager",
                   "--password-stdin", stdin=PASSWORD + "\n")
        stack.clup("admin", "assign-store", "--store", store, "--email", "boss@example.org")
        manager = browser()
        drivers.append(manager)
        sign_in(manager, stack.base, "boss@example.org", "en")
        manager.get(f"{stack.base}/manage/stores/{store}")
        rows = {row.find_element(By.TAG_NAME, "td").text: row for row in
                manager.find_elements(By.CSS_SELECTOR, "table.hours tbody tr") if row.find_elements(By.TAG_NAME, "td")}
        silent = rows.get(dispenser_id)
        expect(silent is not None and "silent" in silent.get_attribute("class") and "Silent for" in silent.text,
               f"the manager's page flags the dispenser: {silent.text if silent else None!r}")
        main_door = [row for kiosk, row in rows.items() if kiosk != dispenser_id]
        expect(main_door and "silent" not in main_door[0].get_attribute("class") and "Clock 5 min slow" in main_door[0].text,
               f"and not the door, whose clock is 5 minutes slow: {main_door[0].text if main_door else None!r}")
        for name, size in (("desktop", (1280, 900)), ("phone", (390, 844))):
            manager.set_window_size(*size)
            manager.execute_script("document.querySelector('table.hours').scrollIntoView()")
            manager.save_screenshot(os.path.join(stack.folder, f"kiosks-watched-{name}.png"))
        metrics = urllib.request.urlopen(stack.base + "/metrics", timeout=10).read().decode()
        line = f'clup_kiosk_silent{{store="{store}",kiosk="{dispenser_id}",role="dispenser"}} 1'
        expect(line in metrics, f"/metrics says so: {line}")
    finally:
        for driver in drivers:
            driver.quit()
        stack.stop(keep)

    print(f"the entrance: {len(expect.problems)} problems")
    return 1 if expect.problems else 0


if __name__ == "__main__":
    sys.exit(main())
