#!/usr/bin/env python3
"""How close CLup is to the machine's limit, measured side by side in one run.

Starts the real stack (nginx + `clup serve` + a SQLite file in WAL mode, synchronous=FULL) on
loopback with a realistic data set, and measures:

1. read path: a signed-in customer's home page under 64 connections (wrk), against a minimal
   C libfcgi responder behind the same nginx serving the same bytes;
2. guest path: a guest's home page (which nginx may serve from its one-second cache), against
   nginx serving a static file of the same size;
3. write path: line-ups and bookings per second by distinct signed-in customers (CSRF
   honoured), against SQLite's raw durable commit rate on the same disk;
4. scan path: the p99 of QR scans while the signed-in read load runs, and the CPU the
   entrance's threads and the writer's spend a scan;
5. status updates: `clup measure-board` — a read of a store's kept status, and a new ticket,
   a cancellation and an exit as the queue grows from 100 to 10,000;
6. scaling: the home page and one store's wait estimate as the queue, the history and the
   number of stores (50 → 1,000 → 100,000) grow; the statistics pages (public and manager's)
   and rebuilding the statistics as the history grows;
7. memory: the worker's peak resident size.

Prints one table and writes JSON and Markdown to the results folder. Run through
`scripts/bench` (which builds what it needs); `--smoke` runs every step tiny and fast.
"""

import argparse
import base64
import datetime
import hashlib
import hmac
import json
import os
import platform
import random
import re
import secrets
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time

import perf_profile as profiler

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SECRET = "benchmark secret, long enough to key an HMAC"

FULL = dict(stores=50, customers=5000, writers=60000, queue=(100, 300), bookings_per_day=20, history=10_000,
            read_seconds=10, write_seconds=10, scan_seconds=10, commit_seconds=5, probe_seconds=3,
            queue_sizes=(100, 1000, 10_000), history_sizes=(10_000, 1_000_000), scan_codes=8000, recent_per_hour=4,
            store_counts=(1000, 100_000), board_queues="100,1000,10000", board_repeats=30)
SMOKE = dict(stores=6, customers=50, writers=4000, queue=(5, 10), bookings_per_day=2, history=500,
             read_seconds=1, write_seconds=1, scan_seconds=1, commit_seconds=1, probe_seconds=1,
             queue_sizes=(10, 100), history_sizes=(1000, 3000), scan_codes=1000, recent_per_hour=1,
             store_counts=(60,), board_queues="10,100", board_repeats=3)


# MARK: - Helpers

def stamp(moment):
    """A datetime as GRDB stores dates: UTC, milliseconds."""
    return moment.strftime("%Y-%m-%d %H:%M:%S.") + "%03d" % (moment.microsecond // 1000)


def nginx_group():
    """The group nginx's workers run as (clup-nginx's, made by scripts/lib/common.sh, when nginx
    starts as root): the worker's socket is opened to it alone."""
    import grp
    import pwd
    try:
        return grp.getgrgid(pwd.getpwnam("clup-nginx").pw_gid).gr_name
    except KeyError:
        return "nogroup"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def ticket_token(reservation_id):
    """The QR token CLup signs (TicketToken): version, id, HMAC-SHA256 truncated to 16 bytes."""
    key = hashlib.sha256(SECRET.strip().encode()).digest()
    payload = bytes([1]) + reservation_id.to_bytes(8, "big")
    mac = hmac.new(key, payload, hashlib.sha256).digest()[:16]
    return base64.urlsafe_b64encode(payload + mac).decode().rstrip("=")


def wait_until(what, condition, seconds=20):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise SystemExit("timed out waiting until " + what)


def http_status(url):
    try:
        out = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", url], capture_output=True,
                             text=True, timeout=5)
        return int(out.stdout or 0)
    except (subprocess.TimeoutExpired, ValueError):
        return 0


WRK_LATENCY = re.compile(r"^\s+(50|99)(?:\.000)?%\s+([\d.]+)(us|ms|s)\s*$", re.M)


def wrk(url, seconds, connections, threads=2, script=None, script_args=(), headers=()):
    """Runs wrk and returns requests/s, p50 and p99 in ms, and the script's BENCH line."""
    command = ["wrk", "-t", str(threads), "-c", str(connections), "-d", "%ds" % seconds, "--latency", "--timeout", "10s"]
    for header in headers:
        command += ["-H", header]
    if script:
        command += ["-s", script]
    command.append(url)
    if script_args:
        command += ["--"] + [str(a) for a in script_args]
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}
    latency = {m.group(1): float(m.group(2)) * scale[m.group(3)] for m in WRK_LATENCY.finditer(output)}
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    extra = re.search(r"BENCH sent=(\d+) unexpected=(\d+)", output)
    requests = int(re.search(r"(\d+) requests in", output).group(1))
    return dict(rps=rate, requests=requests, p50=latency.get("50"), p99=latency.get("99"),
                non2xx3xx=int(errors.group(1)) if errors else 0,
                sent=int(extra.group(1)) if extra else None, unexpected=int(extra.group(2)) if extra else None)


def peak_rss_mb(pid):
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return None


# MARK: - The stack

class Stack:
    """nginx + FastCGI responders (one, or several behind one upstream), each on a unix
    socket, on a free loopback port."""

    def __init__(self, directory, clup, responder_command, name, public=ROOT + "/Public", responders=1):
        self.directory = os.path.join(directory, name)
        os.makedirs(self.directory)
        os.chmod(self.directory, 0o755)
        self.sockets = [os.path.join(self.directory, "fcgi.sock" if index == 0 else "fcgi-%d.sock" % (index + 1))
                        for index in range(responders)]
        self.socket = self.sockets[0]
        self.port = free_port()
        self.url = "http://127.0.0.1:%d" % self.port
        self.responders = []
        for index, sock in enumerate(self.sockets):
            log = open(os.path.join(self.directory, "responder-%d.log" % (index + 1)), "w")
            self.responders.append(subprocess.Popen(responder_command(sock), stdout=subprocess.DEVNULL, stderr=log))
            wait_until(name + "'s socket", lambda: os.path.exists(sock), 60)
        self.responder = self.responders[0]
        config = subprocess.run([clup, "nginx-config", "--template", ROOT + "/nginx/clup-local.conf.in",
                                 "--port", str(self.port), "--run-dir", self.directory,
                                 *[argument for sock in self.sockets for argument in ("--socket", sock)],
                                 "--public", public, "--nginx-dir", ROOT + "/nginx"],
                                capture_output=True, text=True, check=True).stdout
        with open(os.path.join(self.directory, "nginx.conf"), "w") as file:
            file.write(config)
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        self.nginx = subprocess.Popen([nginx, "-e", self.directory + "/nginx-error.log", "-p", self.directory,
                                       "-c", self.directory + "/nginx.conf"], stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL)
        wait_until(name + " answering", lambda: http_status(self.url + "/assets/icon.svg") == 200)

    def stop(self):
        for process in [self.nginx] + self.responders:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(10)
                except subprocess.TimeoutExpired:
                    process.kill()


# MARK: - Where the CPU goes

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
# Processes by the name the kernel keeps for them (a PostgreSQL backend is "postgres" whatever
# its title says); the workers are told apart by process id.
CPU_GROUPS = {"postgres": "postgres", "nginx": "nginx", "wrk": "wrk", "etcd": "patroni", "patroni": "patroni",
              "python3": "patroni"}


def cpu_ticks(workers):
    """CPU time (user + system, in clock ticks) of the given worker processes and of the
    groups above, read from /proc; this script itself is left out."""
    worker_pids = {process.pid for process in workers}
    totals = dict(worker=0, postgres=0, nginx=0, wrk=0, patroni=0, **{role: 0 for role in POSTGRES_ROLES})
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open("/proc/%s/stat" % entry) as file:
                stat = file.read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        ticks = int(fields[11]) + int(fields[12])
        if int(entry) in worker_pids:
            totals["worker"] += ticks
        elif name in CPU_GROUPS:
            totals[CPU_GROUPS[name]] += ticks
            if name == "postgres":
                totals[postgres_role(entry)] += ticks
    return totals


# PostgreSQL's processes by what they do, from the title each sets (`ps`'s command line).
POSTGRES_ROLES = ("pg_backends", "pg_walsenders", "pg_replay", "pg_rest")


def postgres_role(pid):
    try:
        with open("/proc/%s/cmdline" % pid, "rb") as file:
            title = file.read().decode("utf-8", "replace")
    except OSError:
        return "pg_rest"
    if "walsender" in title:
        return "pg_walsenders"
    if "walreceiver" in title or "startup" in title:
        return "pg_replay"
    if any(word in title for word in ("checkpointer", "background writer", "walwriter", "autovacuum", "archiver",
                                      "logical replication", "stats", "postgres -D", "bin/postgres")):
        return "pg_rest"
    return "pg_backends"


def thread_ticks(pid, prefix):
    """CPU time (user + system, in clock ticks) of the process's threads whose name begins
    with `prefix` (Linux keeps the first 15 characters of a thread's name)."""
    total = 0
    for task in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/stat" % (pid, task)) as file:
                stat = file.read()
        except OSError:
            continue
        if stat[stat.index("(") + 1:stat.rindex(")")].startswith(prefix[:15]):
            fields = stat[stat.rindex(")") + 2:].split()
            total += int(fields[11]) + int(fields[12])
    return total


def measured(workers, requests_made, run):
    """Runs `run()` and returns its result with `cpu_ms`: CPU milliseconds per request made
    (`requests_made(result)`), by process group."""
    before = cpu_ticks(workers)
    result = run()
    after = cpu_ticks(workers)
    made = max(1, requests_made(result))
    result["cpu_ms"] = {group: (after[group] - before[group]) * 1000.0 / CLOCK_TICKS / made for group in before}
    return result


# MARK: - The data set

def open_database(path):
    """The loader's connection. Its transactions begin IMMEDIATE: one that read first and
    wrote after would fail at once, not wait, if the worker committed in between."""
    connection = sqlite3.connect(path, timeout=30, isolation_level=None)
    connection.execute("PRAGMA foreign_keys = ON")
    connection.execute("PRAGMA busy_timeout = 30000")
    return connection


def add_store(db, name, capacity, walk_in=20, slot_capacity=None, latitude=45.4642, longitude=9.19):
    """A store open round the clock in UTC, so the benchmark runs at any hour."""
    slot_capacity = slot_capacity or max(1, (capacity - capacity * walk_in // 100) * 15 // 120)
    cursor = db.execute(
        "INSERT INTO store (name, address, phone, latitude, longitude, capacity, timeZone, walkInPercent, slotMinutes,"
        " slotCapacity, entryBeforeMinutes, entryAfterMinutes, callGraceMinutes)"
        " VALUES (?, 'Via Benchmark 1, Milano', '+39 02 0', ?, ?, ?, 'UTC', ?, 15, ?, 10, 15, 10)",
        (name, latitude, longitude, capacity, walk_in, slot_capacity))
    store_id = cursor.lastrowid
    db.executemany("INSERT INTO openingInterval (storeId, weekday, opens, closes) VALUES (?, ?, 0, 1440)",
                   [(store_id, weekday) for weekday in range(1, 8)])
    return store_id


def add_stores(db, count, rng):
    """`count` more stores across northern Italy (about 4° by 4° around Milan), hours in bulk."""
    first = db.execute("SELECT COALESCE(MAX(id), 0) FROM store").fetchone()[0] + 1
    rows = [("Outlet %d" % (first + i), 44.0 + rng.random() * 3.5, 7.5 + rng.random() * 4.5, rng.choice((40, 80, 120)))
            for i in range(count)]
    db.executemany(
        "INSERT INTO store (name, address, phone, latitude, longitude, capacity, timeZone, walkInPercent, slotMinutes,"
        " slotCapacity, entryBeforeMinutes, entryAfterMinutes, callGraceMinutes)"
        " VALUES (?, 'Via Benchmark 1', '+39 02 0', ?, ?, ?, 'UTC', 20, 15, 8, 10, 15, 10)", rows)
    ids = [row[0] for row in db.execute("SELECT id FROM store WHERE id >= ? ORDER BY id", (first,))]
    db.executemany("INSERT INTO openingInterval (storeId, weekday, opens, closes) VALUES (?, ?, 0, 1440)",
                   [(store_id, weekday) for store_id in ids for weekday in range(1, 8)])


def wait_for_worker(url, text, headers, seconds=120):
    """Waits until the page at `url` contains `text`: the worker picks up what another process
    wrote to the database within about a second, longer for a large reload."""
    def shows():
        command = ["curl", "-s", url]
        for header in headers:
            command += ["-H", header]
        return text in subprocess.run(command, capture_output=True, text=True).stdout
    wait_until("the worker shows " + text, shows, seconds)


def add_kiosk(db, store_id, role="door", label="Bench"):
    """A kiosk of the store, a door or a dispenser: its device key."""
    key = secrets.token_urlsafe(32)
    db.execute("INSERT INTO kiosk (storeId, label, keyHash, createdAt, role) VALUES (?, ?, ?, ?, ?)",
               (store_id, label, hashlib.sha256(key.encode()).hexdigest(), stamp(datetime.datetime.utcnow()), role))
    return key


class Numbers:
    """Ticket numbers, unique per store and day as the schema requires."""

    def __init__(self, db):
        self.next = {}
        for store, day, number in db.execute("SELECT storeId, day, MAX(number) FROM reservation GROUP BY 1, 2"):
            self.next[(store, day)] = number + 1

    def take(self, store, day):
        number = self.next.get((store, day), 1)
        self.next[(store, day)] = number + 1
        return number


RESERVATION = ("INSERT INTO reservation (storeId, userId, kind, walkIn, day, number, people, residenceMinutes, slotStart,"
               " status, createdAt, calledAt, enteredAt, exitedAt, endedAt) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")


def add_history(db, store_ids, count, now, rng):
    """`count` past visits over the last 90 days, spread over the stores."""
    numbers = Numbers(db)
    rows = []
    for _ in range(count):
        store = rng.choice(store_ids)
        entered = now - datetime.timedelta(days=rng.uniform(1, 90))
        day = int(entered.timestamp() // 86400)
        exited = entered + datetime.timedelta(minutes=rng.randint(10, 90))
        rows.append((store, None, "lineUp", 0, day, numbers.take(store, day), rng.choice((1, 1, 2)), 30, None, "done",
                     stamp(entered - datetime.timedelta(minutes=20)), stamp(entered - datetime.timedelta(minutes=5)),
                     stamp(entered), stamp(exited), stamp(exited)))
        if len(rows) == 50_000:
            db.executemany(RESERVATION, rows)
            rows = []
    db.executemany(RESERVATION, rows)


def add_recent_visits(db, store_id, per_hour, now, rng):
    """`per_hour` past visits in every hour of the last eight weeks at one store: every hour its
    statistics pages read has data, so their cost is compared at equal density and only the
    length of the history differs."""
    numbers = Numbers(db)
    rows = []
    for day_offset in range(1, 57):
        for hour in range(24):
            start = (now - datetime.timedelta(days=day_offset)).replace(hour=hour, minute=0, second=0, microsecond=0)
            day = int(start.timestamp() // 86400)
            for _ in range(per_hour):
                entered = start + datetime.timedelta(seconds=rng.uniform(0, 3600))
                exited = entered + datetime.timedelta(minutes=rng.randint(10, 60))
                rows.append((store_id, None, "lineUp", 0, day, numbers.take(store_id, day), 1, 30, None, "done",
                             stamp(entered - datetime.timedelta(minutes=10)), stamp(entered - datetime.timedelta(minutes=2)),
                             stamp(entered), stamp(exited), stamp(exited)))
    db.executemany(RESERVATION, rows)
    return len(rows)


def add_queue(db, store_id, count, now, rng, walk_in_share=0.2):
    numbers = Numbers(db)
    day = int(now.timestamp() // 86400)
    rows = []
    for _ in range(count):
        walk_in = 1 if rng.random() < walk_in_share else 0
        rows.append((store_id, None, "lineUp", walk_in, day, numbers.take(store_id, day), rng.choice((1, 1, 2)),
                     rng.choice((15, 30, 45, 60)), None, "waiting", stamp(now), None, None, None, None))
    db.executemany(RESERVATION, rows)


def terms_version():
    """The version of the terms of service in force (TermsOfService.version)."""
    with open(os.path.join(ROOT, "Sources", "CLupDomain", "TermsOfService.swift")) as file:
        return int(re.search(r"static let version = ([0-9]+)", file.read()).group(1))


def add_customers(db, count, now, prefix):
    """Confirmed customers who accepted the terms of service, each with a session: (user id,
    session cookie, CSRF token)."""
    created = stamp(now)
    customers = []
    terms = terms_version()
    db.execute("BEGIN IMMEDIATE")
    for index in range(count):
        cursor = db.execute(
            "INSERT INTO user (email, displayName, passwordHash, emailConfirmedAt, createdAt, termsVersion, termsAcceptedAt)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            ("%s%d@bench.example" % (prefix, index), "Customer %d" % index, "$argon2id$unused", created, created, terms,
             created))
        session, csrf = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
        db.execute("INSERT INTO session (idHash, userId, csrfToken, createdAt, lastSeenAt) VALUES (?, ?, ?, ?, ?)",
                   (hashlib.sha256(session.encode()).hexdigest(), cursor.lastrowid, csrf, created, created))
        customers.append((cursor.lastrowid, session, csrf))
    db.execute("COMMIT")
    return customers


def build_data_set(db, p, now, rng):
    db.execute("BEGIN IMMEDIATE")
    stores = [add_store(db, "Store %02d" % i, rng.choice((60, 100, 150, 200)),
                        latitude=45.40 + rng.random() * 0.12, longitude=9.10 + rng.random() * 0.18)
              for i in range(p["stores"])]
    for store in stores:
        add_queue(db, store, rng.randint(*p["queue"]), now, rng)
    # A week of bookings.
    numbers = Numbers(db)
    rows = []
    for store in stores:
        for day_offset in range(7):
            for _ in range(p["bookings_per_day"]):
                start = now + datetime.timedelta(days=day_offset, hours=3 + rng.randint(0, 16))
                start = start.replace(minute=start.minute // 15 * 15, second=0, microsecond=0)
                day = int(start.timestamp() // 86400)
                rows.append((store, None, "booking", 0, day, numbers.take(store, day), 1, 30, stamp(start), "booked",
                             stamp(now), None, None, None, None))
    db.executemany(RESERVATION, rows)
    db.execute("COMMIT")
    db.execute("BEGIN IMMEDIATE")
    add_history(db, stores, p["history"], now, rng)
    db.execute("COMMIT")
    add_customers(db, p["customers"], now, "c")
    return stores


# MARK: - The measures

def sqlite_commit_rate(directory, seconds):
    """SQLite's raw durable commit rate on this disk: BEGIN IMMEDIATE; INSERT; COMMIT, in WAL
    mode with synchronous=FULL, as CLup's database is set."""
    path = os.path.join(directory, "commits.sqlite")
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = FULL")
    db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, value TEXT NOT NULL)")
    commits = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        db.execute("BEGIN IMMEDIATE")
        db.execute("INSERT INTO t (value) VALUES (?)", ("x" * 200,))
        db.execute("COMMIT")
        commits += 1
    elapsed = time.perf_counter() - started
    db.close()
    return commits / elapsed


def write_requests(file, customers, stores, now):
    """One reservation per customer: alternately a line-up and a booking 3–15 hours ahead."""
    first_slot = (int(now.timestamp()) + 3 * 3600 + 899) // 900 * 900
    with open(file, "w") as out:
        for index, (_, session, csrf) in enumerate(customers):
            store = stores[index % len(stores)]
            key = secrets.token_urlsafe(18)
            if index % 2 == 0:
                body = "csrf=%s&kind=lineUp&minutes=30&people=1&mode=walking&requestKey=%s" % (csrf, key)
            else:
                slot = first_slot + (index // 2 % 48) * 900
                body = "csrf=%s&kind=booking&minutes=30&people=1&slot=%d&requestKey=%s" % (csrf, slot, key)
            headers = "Cookie: clup_session=%s|Content-Type: application/x-www-form-urlencoded" % session
            out.write("/stores/%d/reservations\t%s\t%s\n" % (store, headers, body))


def scan_requests(file, ids, key):
    """Each code twice: in, then out (a third pass would be 'already used')."""
    with open(file, "w") as out:
        for _ in range(2):
            for reservation_id in ids:
                out.write("/api/v1/scan\tAuthorization: Bearer %s|Content-Type: application/json\t{\"code\": \"%s\"}\n"
                          % (key, ticket_token(reservation_id)))


def probe(url, seconds, headers=()):
    """Median latency of one client asking again and again (ms)."""
    return wrk(url, seconds, connections=1, threads=1, headers=headers)["p50"]


def on_primary(url):
    """The cluster's URL (every node's address, as CLup is given it) for libpq's own tools: they
    take the first node that answers unless told to find the one that accepts writes, and
    whichever node Patroni made primary need not be the first."""
    return url + ("&" if "?" in url else "?") + "target_session_attrs=read-write"


def psql(pg_bin, url, sql):
    done = subprocess.run([os.path.join(pg_bin, "psql"), on_primary(url), "-X", "-q", "-A", "-t", "-v",
                           "ON_ERROR_STOP=1", "-c", sql], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError("psql failed on %r: %s" % (sql, done.stderr.strip()))
    return done.stdout.strip()


def postgres_commit_rate(pg_bin, url, seconds, directory, clients=16):
    """PostgreSQL's raw durable commit rate on the cluster: one INSERT per transaction from
    `clients` connections (pgbench), each commit acknowledged once the synchronous replica
    has it, as CLup's are."""
    psql(pg_bin, url, "CREATE TABLE bench_commit (id bigserial PRIMARY KEY, value text NOT NULL)")
    script = os.path.join(directory, "commit.sql")
    with open(script, "w") as file:
        file.write("INSERT INTO bench_commit (value) VALUES (repeat('x', 200));\n")
    output = subprocess.run([os.path.join(pg_bin, "pgbench"), "-n", "-c", str(clients), "-j", "2", "-T",
                             str(seconds), "-f", script, on_primary(url)], capture_output=True, text=True, check=True).stdout
    psql(pg_bin, url, "DROP TABLE bench_commit")
    return float(re.search(r"tps = ([\d.]+)", output).group(1))


def cluster_section(args, p, work, threads, home, signed_in, writers, write_store_ids, now, profiled=None):
    """Signed-in reads and durable writes on the PostgreSQL cluster, through one worker and
    then two behind one nginx, with the CPU each part of the stack spent per request; with
    `profiled`, the one worker's reads and writes again under `perf record`."""
    url = args.cluster_url
    rows = []
    ceiling = postgres_commit_rate(args.pg_bin, url, p["commit_seconds"], work)
    for count, customers in zip((1, 2), writers[:2]):
        stack = Stack(work, args.clup, lambda sock: [
            args.clup, "serve", "--database-url", url, "--socket", sock, "--socket-mode", "0660",
            *(["--socket-group", nginx_group()] if os.geteuid() == 0 else []), "--threads", str(threads),
            "--public", ROOT + "/Public", "--secret-file", os.path.join(work, "secret"),
            "--mail-dir", os.path.join(work, "mail-postgres"), "--vapid-key-file", os.path.join(work, "vapid-key")],
            "postgres-%d" % count, responders=count)
        try:
            page = subprocess.run(["curl", "-s", stack.url + home, "-H", signed_in[0]], capture_output=True).stdout
            assert b"Store " in page and b"Sign out" in page, "the signed-in home page on PostgreSQL"
            print("==> PostgreSQL, %d worker%s: read path" % (count, "s" if count > 1 else ""), flush=True)
            read = measured(stack.responders, lambda r: r["requests"],
                            lambda: wrk(stack.url + home, p["read_seconds"], 64, headers=signed_in))
            print("==> PostgreSQL, %d worker%s: write path" % (count, "s" if count > 1 else ""), flush=True)
            requests = os.path.join(work, "writes-postgres-%d.tsv" % count)
            write_requests(requests, customers, write_store_ids, now)
            before = int(psql(args.pg_bin, url, "SELECT count(*) FROM reservation"))
            started = time.perf_counter()
            writes = measured(stack.responders, lambda r: r["sent"] or 0,
                              lambda: wrk(stack.url + "/", p["write_seconds"], 16,
                                          script=os.path.join(HERE, "requests.lua"), script_args=(requests, 2, 303)))
            elapsed = time.perf_counter() - started
            made = int(psql(args.pg_bin, url, "SELECT count(*) FROM reservation")) - before
            assert writes["sent"] <= len(customers), "more requests than customers: lengthen the writer list"
            assert writes["unexpected"] == 0, "some reservations were refused on PostgreSQL: %s" % writes
            assert read["non2xx3xx"] == 0, "some pages failed on PostgreSQL"
            rows.append(dict(workers=count, read=read, write=dict(per_second=made / elapsed, made=made,
                                                                   p50=writes["p50"], p99=writes["p99"],
                                                                   cpu_ms=writes["cpu_ms"])))
            if profiled and count == 1:
                pid = stack.responder.pid
                profiled("postgres-read", lambda: wrk(stack.url + home, p["read_seconds"], 64, headers=signed_in), pid)
                requests = os.path.join(work, "writes-postgres-profiled.tsv")
                write_requests(requests, writers[2], write_store_ids, now)
                profiled("postgres-write", lambda: wrk(stack.url + "/", p["write_seconds"], 16,
                                                       script=os.path.join(HERE, "requests.lua"),
                                                       script_args=(requests, 2, 303)), pid)
        finally:
            stack.stop()
    return dict(commit_ceiling=ceiling, runs=rows)


# MARK: - Report

def machine():
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as info:
            cpu = next(line.split(":", 1)[1].strip() for line in info if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return "%s, %d cores, %s" % (cpu, os.cpu_count() or 0, platform.platform(terse=True))


def cpu_split(cpu_ms):
    return "%.2f / %.2f / %.2f ms" % (cpu_ms["worker"], cpu_ms["postgres"], cpu_ms["nginx"])


def cluster_markdown(r):
    """The cluster section: each engine's reads and writes as ratios of SQLite's on one worker
    in this same run, and the CPU each part of the stack spent per request."""
    read, write = r["read"]["clup"], r["write"]["clup"]
    lines = [
        "| engine (same data, same machine) | signed-in reads, 64 connections | ratio | durable writes,"
        " 16 connections | ratio | CPU per read: worker / PostgreSQL / nginx | CPU per write |",
        "|---|---|---|---|---|---|---|",
        "| SQLite, one worker | %.0f req/s, p99 %.1f ms | 1.00 | %.0f/s, p99 %.1f ms | 1.00 | %s | %s |"
        % (read["rps"], read["p99"], write["per_second"], write["p99"], cpu_split(read["cpu_ms"]),
           cpu_split(write["cpu_ms"])),
    ]
    for run in r["cluster"]["runs"]:
        lines.append("| PostgreSQL, 3 nodes (synchronous replica), %d worker%s | %.0f req/s, p99 %.1f ms | **%.2f** |"
                     " %.0f/s, p99 %.1f ms | **%.2f** | %s | %s |"
                     % (run["workers"], "s" if run["workers"] > 1 else "", run["read"]["rps"], run["read"]["p99"],
                        run["read"]["rps"] / read["rps"], run["write"]["per_second"], run["write"]["p99"],
                        run["write"]["per_second"] / write["per_second"], cpu_split(run["read"]["cpu_ms"]),
                        cpu_split(run["write"]["cpu_ms"])))
    lines.append("| raw PostgreSQL commits on the cluster (pgbench, 16 clients, synchronous replica) | | | %.0f/s"
                 " | %.2f | | |" % (r["cluster"]["commit_ceiling"], r["cluster"]["commit_ceiling"] / write["per_second"]))
    one = r["cluster"]["runs"][0]
    cpu = one["write"]["cpu_ms"]
    lines += ["", "PostgreSQL's CPU per write through one worker, all three nodes, by process: backends (the"
              " statements) %.2f ms, WAL senders %.2f ms, the replicas receiving and replaying %.2f ms, the rest"
              " (checkpointer, WAL writer, archiver, autovacuum) %.2f ms."
              % (cpu["pg_backends"], cpu["pg_walsenders"], cpu["pg_replay"], cpu["pg_rest"])]
    lines += ["", "Targets for one worker on the cluster: signed-in reads **%.2f** of SQLite's (≥ 0.6), durable writes"
              " **%.2f** (≥ 0.35), the worker's CPU per signed-in read **%.2f×** SQLite's (≤ 1.5×)."
              % (one["read"]["rps"] / read["rps"], one["write"]["per_second"] / write["per_second"],
                 one["read"]["cpu_ms"]["worker"] / max(read["cpu_ms"]["worker"], 1e-9))]
    return lines


def markdown(result):
    r = result
    lines = [
        "| measure | CLup | ceiling | ratio | target |",
        "|---|---|---|---|---|",
        "| read: signed-in home page, 64 connections | %.0f req/s, p50 %.1f ms, p99 %.1f ms | %.0f req/s, p50 %.1f ms,"
        " p99 %.1f ms (C libfcgi, same nginx, same bytes) | **%.2f** | ≥ 0.6 |"
        % (r["read"]["clup"]["rps"], r["read"]["clup"]["p50"], r["read"]["clup"]["p99"], r["read"]["ceiling"]["rps"],
           r["read"]["ceiling"]["p50"], r["read"]["ceiling"]["p99"], r["read"]["ratio"]),
        "| guest home page, 64 connections | %.0f req/s, p50 %.1f ms, p99 %.1f ms | %.0f req/s (nginx, a static file"
        " of the same size) | **%.2f** | ≥ 0.8 |"
        % (r["guest"]["clup"]["rps"], r["guest"]["clup"]["p50"], r["guest"]["clup"]["p99"],
           r["guest"]["static"]["rps"], r["guest"]["ratio"]),
        "| write: line-ups + bookings, 16 connections | %.0f reservations/s (p99 %.1f ms; the writer's CPU %.2f ms a"
        " reservation) | %.0f commits/s (raw SQLite, WAL, synchronous=FULL) | **%.2f** | ≥ 0.5 |"
        % (r["write"]["clup"]["per_second"], r["write"]["clup"]["p99"], r["write"]["clup"]["writer_ms"],
           r["write"]["ceiling"], r["write"]["ratio"]),
        "| scan p99 under the signed-in read load | %.1f ms (%.0f scans/s; CPU a scan: entrance %.2f ms, writer %.2f ms)"
        " | | | < 20 ms |" % (r["scan"]["p99"], r["scan"]["rps"], r["scan"]["cpu_ms"], r["scan"]["writer_ms"]),
    ]
    largest = max(r["board"], key=lambda row: row["waiting"])
    lines.append("| status update at %s waiting (new ticket / cancellation / exit) | %.2f / %.2f / %.2f ms | | | < 1 ms |"
                 % (format(largest["waiting"], ","), largest["newTicketMs"], largest["cancellationMs"],
                    largest["exitMs"]))
    lines += [
        "| worker peak RSS | %.1f MB | | | < 100 MB |" % r["memory"]["peak_rss_mb"],
        "",
        "| kept status (in the worker's code; the worker itself meanwhile busy %.0f %% of a core) | read | new ticket"
        " | cancellation | exit (scan transaction included) | of which: the standing computed afresh |"
        % (100 * r.get("board_worker_busy", 0)),
        "|---|---|---|---|---|---|",
    ]
    for row in r["board"]:
        lines.append("| %s waiting | %.2f µs | %.2f ms | %.2f ms | %.2f ms | %.2f ms |"
                     % (format(row["waiting"], ","), row["readMicroseconds"], row["newTicketMs"],
                        row["cancellationMs"], row["exitMs"], row["recomputeMs"]))
    lines += [
        "",
        "| scaling (one client, median) | signed-in home page | one store's wait estimate (device API) |",
        "|---|---|---|",
    ]
    for row in r["scaling"]:
        lines.append("| %s | %.2f ms | %.2f ms |" % (row["case"], row["home_ms"], row["estimate_ms"]))
    lines += [
        "",
        "| statistics (one client, median) | public store statistics | manager's statistics (7 days) |"
        " rebuilding every store's statistics |",
        "|---|---|---|---|",
    ]
    for row in r.get("statistics", []):
        lines.append("| %s past visits | %.2f ms | %.2f ms | %.1f s |"
                     % (format(row["visits"], ","), row["public_ms"], row["manager_ms"], row["rebuild_s"]))
    if r.get("cluster"):
        lines += [""] + cluster_markdown(r)
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clup", required=True, help="the clup executable")
    parser.add_argument("--ceiling", required=True, help="the C responder (bench/fcgi-static.c, built)")
    parser.add_argument("--results", default=os.path.join(HERE, "results"))
    parser.add_argument("--smoke", action="store_true", help="every step tiny and fast (for the test command)")
    parser.add_argument("--configuration", default="release")
    parser.add_argument("--cluster-url", help="a PostgreSQL cluster to measure too (scripts/cluster's URL)")
    parser.add_argument("--pg-bin", help="PostgreSQL's programs (psql, pgbench), with --cluster-url")
    parser.add_argument("--profile", action="store_true",
                        help="after the read, write and scan measures, run each load again under `perf record` on the "
                             "worker and write flame graphs and top costs to RESULTS/profile (bench/perf_profile.py)")
    parser.add_argument("--threads", type=int, default=2 * (os.cpu_count() or 1),
                        help="page threads of the worker and of the C ceiling (default: 2 per core, as `clup serve`)")
    parser.add_argument("--paths-only", action="store_true",
                        help="stop after the read, guest, write and scan paths (to iterate on them)")
    args = parser.parse_args()
    p = SMOKE if args.smoke else FULL
    threads = args.threads
    rng = random.Random(2026)
    work = tempfile.mkdtemp(prefix="clup-bench-")
    os.chmod(work, 0o755)
    stacks = []
    began = time.time()
    try:
        database = os.path.join(work, "clup.sqlite")
        with open(os.path.join(work, "secret"), "w") as file:
            file.write(SECRET)
        # Every clup command below seals names and addresses with this key.
        os.environ["CLUP_DATA_KEY_FILE"] = os.path.join(work, "data-key")
        subprocess.run([args.clup, "admin", "create-data-key", os.environ["CLUP_DATA_KEY_FILE"]], check=True,
                       stdout=subprocess.DEVNULL)
        subprocess.run([args.clup, "migrate", "--database", database], check=True, stdout=subprocess.DEVNULL)
        now = datetime.datetime.utcnow()
        print("==> loading the data set", flush=True)
        db = open_database(database)
        stores = build_data_set(db, p, now, rng)
        db.execute("BEGIN IMMEDIATE")
        # Stores the write and scan paths use: room for everyone, so every request is a write.
        write_store_ids = [add_store(db, "Write %d" % i, 10_000, walk_in=0, slot_capacity=10_000) for i in range(4)]
        scan_store = add_store(db, "Scan", 10_000, walk_in=0)
        scan_key = add_kiosk(db, scan_store)
        probe_store = add_store(db, "Probe", 100)
        probe_key = add_kiosk(db, probe_store)
        db.execute("COMMIT")
        writers = add_customers(db, p["writers"], now, "w")
        reader = add_customers(db, 1, now, "r")[0]
        signed_in = ("Cookie: clup_session=%s" % reader[1],)
        boss = add_customers(db, 1, now, "m")[0]
        db.execute("BEGIN IMMEDIATE")
        db.execute("UPDATE user SET role = 'admin' WHERE id = ?", (boss[0],))
        db.execute("COMMIT")
        as_manager = ("Cookie: clup_session=%s" % boss[1],)
        write_requests(os.path.join(work, "writes.tsv"), writers, write_store_ids, now)
        if args.profile:
            write_requests(os.path.join(work, "writes-profiled.tsv"), add_customers(db, p["writers"], now, "x"),
                           write_store_ids, now)
        profiles = []

        def profiled(name, run, pid=None):
            """Runs the load `run` again with the worker (`pid`, else SQLite's) under `perf record`."""
            os.makedirs(os.path.join(args.results, "profile"), exist_ok=True)
            data = os.path.join(args.results, "profile", name + ".perf")
            recording = profiler.record(pid or clup.responder.pid, max(1, p["read_seconds"] - 1), data)
            time.sleep(0.5)
            run()
            recording.wait()
            profiles.append(profiler.report(data, name, os.path.join(args.results, "profile")))
        if args.cluster_url:
            # The cluster's workers start from the same data, with customers of their own for
            # the write path (one reservation each, as here).
            cluster_writers = [add_customers(db, p["writers"] // 2, now, "p%d" % n) for n in (1, 2)]
            if args.profile:
                cluster_writers.append(add_customers(db, p["writers"] // 2, now, "px"))
            print("==> copying the data set to the PostgreSQL cluster", flush=True)
            subprocess.run([args.clup, "copy-to-postgres", "--database", database, "--to", args.cluster_url],
                           check=True, stdout=subprocess.DEVNULL)
        counts = dict(db.execute("SELECT status, COUNT(*) FROM reservation GROUP BY status").fetchall())
        data_set = dict(stores=len(stores) + len(write_store_ids) + 2, customers=p["customers"] + p["writers"],
                        reservations=counts)

        clup = Stack(work, args.clup, lambda sock: [
            args.clup, "serve", "--database", database, "--socket", sock, "--socket-mode", "0660",
            *(["--socket-group", nginx_group()] if os.geteuid() == 0 else []), "--threads", str(threads), "--public", ROOT + "/Public",
            "--secret-file", os.path.join(work, "secret"), "--mail-dir", os.path.join(work, "mail"),
            "--vapid-key-file", os.path.join(work, "vapid-key")], "clup")
        stacks.append(clup)
        home = "/?lat=45.4642&lon=9.19"

        def fetch(path, headers=()):
            command = ["curl", "-s", clup.url + path]
            for header in headers:
                command += ["-H", header]
            return subprocess.run(command, capture_output=True, check=True).stdout

        page = fetch(home, signed_in)
        assert b"Store " in page and b"Sign out" in page, "the signed-in home page did not list the stores"
        guest_page = fetch(home)
        assert b"Store " in guest_page and b"Sign out" not in guest_page, "the guest home page is not a guest's"
        static = os.path.join(work, "static")
        shutil.copytree(ROOT + "/Public/assets", os.path.join(static, "assets"))
        with open(os.path.join(static, "assets", "guest.html"), "wb") as file:
            file.write(guest_page)
        with open(os.path.join(work, "page.html"), "wb") as file:
            file.write(page)
        ceiling = Stack(work, args.clup, lambda sock: [args.ceiling, sock, os.path.join(work, "page.html"),
                                                        str(threads)], "ceiling", public=static)
        stacks.append(ceiling)
        assert len(subprocess.run(["curl", "-s", ceiling.url + home], capture_output=True).stdout) == len(page)
        assert len(subprocess.run(["curl", "-s", ceiling.url + "/assets/guest.html"],
                                  capture_output=True).stdout) == len(guest_page)

        print("==> read path (signed in)", flush=True)
        read_clup = measured(clup.responders, lambda r: r["requests"],
                             lambda: wrk(clup.url + home, p["read_seconds"], 64, headers=signed_in))
        read_ceiling = wrk(ceiling.url + home, p["read_seconds"], 64, headers=signed_in)
        if args.profile:
            profiled("read", lambda: wrk(clup.url + home, p["read_seconds"], 64, headers=signed_in))

        print("==> guest path", flush=True)
        guest_clup = wrk(clup.url + home, p["read_seconds"], 64)
        guest_static = wrk(ceiling.url + "/assets/guest.html", p["read_seconds"], 64)

        print("==> write path", flush=True)
        commit_rate = sqlite_commit_rate(work, p["commit_seconds"])
        before = db.execute("SELECT COUNT(*) FROM reservation").fetchone()[0]
        started = time.perf_counter()
        writer_before = thread_ticks(clup.responder.pid, "clup-writer")
        writes = measured(clup.responders, lambda r: r["sent"] or 0,
                          lambda: wrk(clup.url + "/", p["write_seconds"], 16, script=os.path.join(HERE, "requests.lua"),
                                      script_args=(os.path.join(work, "writes.tsv"), 2, 303)))
        elapsed = time.perf_counter() - started
        made = db.execute("SELECT COUNT(*) FROM reservation").fetchone()[0] - before
        # The group-commit writer's share: every write waits for it, one at a time.
        writes["writer_ms"] = ((thread_ticks(clup.responder.pid, "clup-writer") - writer_before) * 1000.0
                               / CLOCK_TICKS / max(1, made))
        assert writes["sent"] <= len(writers), "more requests than customers: lengthen the writer list"
        if args.profile:
            profiled("write", lambda: wrk(clup.url + "/", p["write_seconds"], 16,
                                          script=os.path.join(HERE, "requests.lua"),
                                          script_args=(os.path.join(work, "writes-profiled.tsv"), 2, 303)))
        # The write stores' new reservations are ended, so the next measures see the base data set.
        db.execute("UPDATE reservation SET status = 'cancelled', endedAt = ? WHERE storeId IN (%s) AND status IN"
                   " ('waiting', 'called', 'booked')" % ",".join("?" * len(write_store_ids)),
                   [stamp(now)] + write_store_ids)
        # Codes called to the entrance just now, to scan in and out (a set for each run: a
        # code scanned in and out is used up).
        def scan_codes(name):
            day = int(time.time() // 86400)
            first = db.execute("SELECT COALESCE(MAX(number), 0) FROM reservation WHERE storeId = ?",
                               (scan_store,)).fetchone()[0]
            db.execute("BEGIN IMMEDIATE")
            db.executemany(RESERVATION, [(scan_store, None, "lineUp", 0, day, first + n, 1, 30, None, "called",
                                          stamp(datetime.datetime.utcnow()), stamp(datetime.datetime.utcnow()),
                                          None, None, None) for n in range(1, p["scan_codes"] + 1)])
            db.execute("COMMIT")
            ids = [row[0] for row in db.execute("SELECT id FROM reservation WHERE storeId = ? AND number > ?"
                                                " ORDER BY id", (scan_store, first))]
            scan_requests(os.path.join(work, name), ids, scan_key)
            time.sleep(2)  # the worker picks up the codes written from here
            return ids

        def scans_under_load(name):
            load = subprocess.Popen(["wrk", "-t", "2", "-c", "64", "-d", "%ds" % (p["scan_seconds"] + 2), "-H",
                                     signed_in[0], clup.url + home], stdout=subprocess.DEVNULL)
            time.sleep(1)
            # The entrance's threads and the writer's only: the page threads serve the read load
            # meanwhile (and write nothing).
            carriers = ("entrance-", "clup-writer")
            before = [thread_ticks(clup.responder.pid, prefix) for prefix in carriers]
            result = wrk(clup.url + "/", p["scan_seconds"], 4, threads=1, script=os.path.join(HERE, "requests.lua"),
                         script_args=(os.path.join(work, name), 1, 200))
            result["cpu_ms"], result["writer_ms"] = [
                (thread_ticks(clup.responder.pid, prefix) - ticks) * 1000.0 / CLOCK_TICKS / max(1, result["sent"] or 0)
                for prefix, ticks in zip(carriers, before)]
            load.wait()
            return result

        def scans_ended():
            db.execute("UPDATE reservation SET status = 'expired', endedAt = ? WHERE storeId = ? AND status IN"
                       " ('called', 'inside')", (stamp(now), scan_store))

        scan_ids = scan_codes("scans.tsv")
        print("==> scan path under the read load", flush=True)
        scans = scans_under_load("scans.tsv")
        assert scans["sent"] <= 2 * len(scan_ids), "more scans than codes: add codes"
        scans_ended()
        if args.profile:
            scan_codes("scans-profiled.tsv")
            profiled("scan", lambda: scans_under_load("scans-profiled.tsv"))
            scans_ended()

        if args.paths_only:
            print("\nread %.0f/s (ratio %.2f) · guest ratio %.2f · write %.0f/s (ratio %.2f, %s, writer %.2f ms)"
                  " · scan p50 %.1f ms, p99 %.1f ms, %.0f/s (CPU a scan: entrance %.2f ms, writer %.2f ms)\n"
                  % (read_clup["rps"], read_clup["rps"] / read_ceiling["rps"], guest_clup["rps"] / guest_static["rps"],
                     made / elapsed, made / elapsed / commit_rate, writes["cpu_ms"], writes["writer_ms"], scans["p50"], scans["p99"],
                     scans["rps"], scans["cpu_ms"], scans["writer_ms"]))
            print("\n".join(profiles))
            return 0

        cluster = None
        if args.cluster_url:
            cluster = cluster_section(args, p, work, threads, home, signed_in, cluster_writers, write_store_ids, now,
                                      profiled if args.profile else None)

        print("==> status updates", flush=True)
        # Its own process, on its own in-memory database; the worker is measured meanwhile, since
        # whatever it does then (its queue timer over the data set) shares the two cores.
        idle_before, idle_started = cpu_ticks([clup.responder])["worker"], time.time()
        board = json.loads(subprocess.run([args.clup, "measure-board", "--waiting", p["board_queues"],
                                           "--repeats", str(p["board_repeats"])],
                                          capture_output=True, text=True, check=True).stdout)
        board_worker_busy = ((cpu_ticks([clup.responder])["worker"] - idle_before) / CLOCK_TICKS
                             / max(0.001, time.time() - idle_started))

        print("==> scaling", flush=True)
        scaling = []
        estimate_url = clup.url + "/api/v1/stores/%d/status" % probe_store
        auth = ("Authorization: Bearer " + probe_key,)
        total_stores = db.execute("SELECT COUNT(*) FROM store").fetchone()[0]
        queued = 0
        for size in p["queue_sizes"]:
            db.execute("BEGIN IMMEDIATE")
            add_queue(db, probe_store, size - queued, now, rng)
            db.execute("COMMIT")
            queued = size
            time.sleep(2)
            scaling.append(dict(case="%s waiting at one store" % format(size, ","),
                                home_ms=probe(clup.url + home, p["probe_seconds"], signed_in),
                                estimate_ms=probe(estimate_url, p["probe_seconds"], auth)))
        db.execute("BEGIN IMMEDIATE")
        db.execute("DELETE FROM reservation WHERE storeId = ? AND status = 'waiting'", (probe_store,))
        add_queue(db, probe_store, p["queue_sizes"][0], now, rng)
        db.execute("COMMIT")
        db.execute("BEGIN IMMEDIATE")
        add_recent_visits(db, probe_store, p["recent_per_hour"], now, rng)
        db.execute("COMMIT")
        history = db.execute("SELECT COUNT(*) FROM reservation WHERE status = 'done'").fetchone()[0]
        statistics = []
        for size in p["history_sizes"]:
            if size > history:
                db.execute("BEGIN IMMEDIATE")
                add_history(db, stores + [probe_store], size - history, now, rng)
                db.execute("COMMIT")
                history = size
            # The history was written straight to the table: the kept statistics are rebuilt
            # from it, as `clup admin rebuild-stats` does after an import.
            started = time.time()
            subprocess.run([args.clup, "admin", "rebuild-stats", "--database", database], check=True,
                           capture_output=True)
            rebuild_s = time.time() - started
            time.sleep(2)
            scaling.append(dict(case="%s past visits (queue %d)" % (format(history, ","), p["queue_sizes"][0]),
                                home_ms=probe(clup.url + home, p["probe_seconds"], signed_in),
                                estimate_ms=probe(estimate_url, p["probe_seconds"], auth)))
            statistics.append(dict(
                visits=history, rebuild_s=rebuild_s,
                public_ms=probe(clup.url + "/stores/%d/stats" % probe_store, p["probe_seconds"], signed_in),
                manager_ms=probe(clup.url + "/manage/stores/%d/stats" % probe_store, p["probe_seconds"], as_manager)))
        scaling.append(dict(case="%d stores" % total_stores,
                            home_ms=probe(clup.url + home, p["probe_seconds"], signed_in),
                            estimate_ms=probe(estimate_url, p["probe_seconds"], auth)))
        for count in p["store_counts"]:
            db.execute("BEGIN IMMEDIATE")
            add_stores(db, count - total_stores, rng)
            db.execute("COMMIT")
            total_stores = count
            wait_for_worker(clup.url + home, format(count, ",") + " stores", signed_in)
            scaling.append(dict(case="%s stores" % format(count, ","),
                                home_ms=probe(clup.url + home, p["probe_seconds"], signed_in),
                                estimate_ms=probe(estimate_url, p["probe_seconds"], auth)))

        rss = peak_rss_mb(clup.responder.pid)
        result = dict(
            date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            machine=machine(), configuration=args.configuration, smoke=args.smoke, worker_threads=threads,
            data_set=data_set,
            read=dict(clup=read_clup, ceiling=read_ceiling, ratio=read_clup["rps"] / read_ceiling["rps"],
                      page_bytes=len(page)),
            guest=dict(clup=guest_clup, static=guest_static, ratio=guest_clup["rps"] / guest_static["rps"],
                       page_bytes=len(guest_page)),
            write=dict(clup=dict(per_second=made / elapsed, made=made, sent=writes["sent"],
                                 not_303=writes["unexpected"], p50=writes["p50"], p99=writes["p99"],
                                 cpu_ms=writes["cpu_ms"], writer_ms=writes["writer_ms"]),
                       ceiling=commit_rate, ratio=(made / elapsed) / commit_rate),
            scan=dict(p50=scans["p50"], p99=scans["p99"], rps=scans["rps"], sent=scans["sent"],
                      not_200=scans["unexpected"], cpu_ms=scans["cpu_ms"], writer_ms=scans["writer_ms"]),
            cluster=cluster, board=board, board_worker_busy=board_worker_busy, scaling=scaling,
            statistics=statistics, memory=dict(peak_rss_mb=rss),
            seconds=round(time.time() - began, 1))
        assert writes["unexpected"] == 0, "some reservations were refused: %s" % writes
        assert scans["unexpected"] == 0, "some scans failed: %s" % scans
        assert read_clup["non2xx3xx"] == 0 and guest_clup["non2xx3xx"] == 0, "some pages failed"
    finally:
        for stack in stacks:
            stack.stop()
        shutil.rmtree(work, ignore_errors=True)

    table = markdown(result) + "".join("\n\n" + profile for profile in profiles)
    print()
    print(table)
    print()
    print("%s · %s · %s build · %.0f s" % (result["date"], result["machine"], result["configuration"],
                                           result["seconds"]))
    os.makedirs(args.results, exist_ok=True)
    name = "smoke" if args.smoke else "latest"
    with open(os.path.join(args.results, name + ".json"), "w") as file:
        json.dump(result, file, indent=2)
    with open(os.path.join(args.results, name + ".md"), "w") as file:
        file.write("# CLup benchmark — %s\n\n%s · %s build · %d worker threads · data: %s\n\n%s\n"
                   % (result["date"], result["machine"], result["configuration"], threads,
                      json.dumps(result["data_set"]), table))


if __name__ == "__main__":
    sys.exit(main())
