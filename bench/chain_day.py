#!/usr/bin/env python3
"""How many stores one deployment serves on a chain's busiest Saturday.

Each store sends what its customers, its dispenser and its door send in the peak hour of
`Scenarios/busiest-saturday.json` (10:00–13:00: 180 line-ups, 24 bookings and 60 walk-ins an
hour, 40 % of them pairs), as requests arriving at random (Poisson), not one after another:

| request | per store and hour | from |
|---|---|---|
| a line-up, a booking (POST, signed in) | 180, 24 | the scenario's arrivals |
| a walk-in ticket from the dispenser (device API) | 60 | the scenario's arrivals |
| a cancellation | 10 | 5 % of online parties (the generated days draw 0–10 %) |
| scans at the door (device API): in, and out | 500 | two per party, 5 % not showing |
| a waiting customer's ticket status | 6,120 | every 30 s over a 15-minute wait (the ticket page asks every 10 s while shown, every 30 s hidden) |
| pages: home, a store, the wizard's first step, a ticket | 1,224 | six per online party |
| the door's board (the store's status) | 1,200 | every 3 s, as the kiosk board asks |

That is about 2.6 requests a second per store. Each store has 40 places, 20 people inside and
30 parties queued when the load starts, so the door decides near its limit. The load runs for
a stretch at each number of stores in turn, through one worker on SQLite and through two
workers on the PostgreSQL cluster, and records each request's time from sending to its last
byte, by path. A number of stores is held when no request failed (a 5xx or no answer), p99 of
every page and write is under 1 s and p99 of scans under 200 ms, and nobody was ever let in
past a store's places (sampled every two seconds and at the end). Requests are sent on
time by the load's own threads (up to 256 in flight); if they fall behind (sent more than 50 ms late at p99) the
load, not CLup, is the limit, and the step says so.

Run by `scripts/chain-day`; `--smoke` runs it tiny.
"""

import argparse
import datetime
import http.client
import json
import os
import queue
import random
import re
import secrets
import subprocess
import sys
import tempfile
import threading
import time

import bench

# Requests per store and second (the table above).
MIX = dict(lineup=180 / 3600, booking=24 / 3600, walkin=60 / 3600, cancel=10.2 / 3600, scan=500 / 3600,
           status=6120 / 3600, page=1224 / 3600, board=1200 / 3600)
PAGE_P99_MS = 1000
SCAN_P99_MS = 200
LATE_P99_MS = 50
FULL = dict(steps=(50, 100, 200, 400, 800, 1600), seconds=40, warmup=5, capacity=40, inside=20, queued=30)
SMOKE = dict(steps=(3, 6), seconds=3, warmup=1, capacity=40, inside=20, queued=30)
# Requests in flight at once at most: enough that the load keeps its schedule while answers
# take a few hundred milliseconds (Little's law: 4,000 a second at 60 ms is 240 in flight).
THREADS = 256


class Store:
    """What the load knows of one store: its devices' keys, its customers not yet in a queue,
    its parties queued (with their owners) and inside (codes)."""

    def __init__(self, store_id, door, dispenser):
        self.id = store_id
        self.door = door
        self.dispenser = dispenser
        self.fresh = []      # (session, csrf) of customers without a reservation
        self.queued = []     # (reservation id, session, csrf); session None for a walk-in
        self.inside = []     # reservation ids
        self.lock = threading.Lock()


def seed(db, count, capacity, inside, queued, now, rng, customers_per_store, prefix):
    """`count` stores open round the clock, each with a door and a dispenser, `inside` parties
    inside and `queued` line-ups waiting (owned by customers), and customers for the load."""
    numbers = bench.Numbers(db)
    day = int(now.timestamp() // 86400)
    stores = []
    db.execute("BEGIN IMMEDIATE")
    for index in range(count):
        # Within a few kilometres of where the shoppers are (CLup's default position, Milan's
        # centre), as a store's customers are: the wait for a line-up includes their walk.
        store_id = bench.add_store(db, "Chain %s%d" % (prefix, index + 1), capacity, walk_in=25,
                                   latitude=45.44 + rng.random() * 0.05, longitude=9.16 + rng.random() * 0.06)
        door = bench.add_kiosk(db, store_id, "door", "Door")
        dispenser = bench.add_kiosk(db, store_id, "dispenser", "Dispenser")
        stores.append(Store(store_id, door, dispenser))
        for _ in range(inside):
            entered = now - datetime.timedelta(minutes=rng.uniform(1, 40))
            cursor = db.execute(bench.RESERVATION, (
                store_id, None, "lineUp", 1, day, numbers.take(store_id, day), 1, 30, None, "inside",
                bench.stamp(entered - datetime.timedelta(minutes=10)), bench.stamp(entered - datetime.timedelta(minutes=2)),
                bench.stamp(entered), None, None))
            stores[-1].inside.append(cursor.lastrowid)
    db.execute("COMMIT")
    owners = bench.add_customers(db, count * queued, now, prefix + "q")
    db.execute("BEGIN IMMEDIATE")
    for index, store in enumerate(stores):
        for user_id, session, csrf in owners[index * queued:(index + 1) * queued]:
            cursor = db.execute(bench.RESERVATION, (
                store.id, user_id, "lineUp", 0, day, numbers.take(store.id, day), rng.choice((1, 1, 1, 2, 2)), 30,
                None, "waiting", bench.stamp(now), None, None, None, None))
            store.queued.append((cursor.lastrowid, session, csrf))
    db.execute("COMMIT")
    fresh = bench.add_customers(db, count * customers_per_store, now, prefix + "f")
    for index, store in enumerate(stores):
        store.fresh = [(session, csrf) for _, session, csrf in
                       fresh[index * customers_per_store:(index + 1) * customers_per_store]]
    return stores


class Load:
    """Sends the mix for `stores` at their rates for `seconds`, on `THREADS` threads each with a
    connection of its own to nginx, and records every request."""

    def __init__(self, port, stores, rng):
        self.port = port
        self.stores = stores
        self.rng = rng
        self.records = []   # (path, scheduled, sent, done, status)
        self.outcomes = {}  # (path, outcome) -> count
        self.lock = threading.Lock()

    def run(self, seconds):
        jobs = queue.Queue()
        threads = [threading.Thread(target=self.serve, args=(jobs,), daemon=True) for _ in range(THREADS)]
        for thread in threads:
            thread.start()
        kinds = list(MIX)
        weights = [MIX[kind] for kind in kinds]
        rate = sum(weights) * len(self.stores)
        started = time.perf_counter()
        at = started
        while True:
            at += self.rng.expovariate(rate)
            if at - started >= seconds:
                break
            delay = at - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            jobs.put((self.rng.choices(kinds, weights)[0], self.rng.choice(self.stores), at))
        for _ in threads:
            jobs.put(None)
        for thread in threads:
            thread.join(30)
        return rate

    def serve(self, jobs):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        while True:
            job = jobs.get()
            if job is None:
                connection.close()
                return
            kind, store, scheduled = job
            request = getattr(self, kind)(store)
            if request is None:
                continue
            method, path, headers, body, after = request
            sent = time.perf_counter()
            status, payload, location = 0, b"", ""
            # Once more on a new connection if the kept one was closed meanwhile (nginx closes
            # idle ones); a second failure is a request that got no answer.
            for _ in range(2):
                try:
                    connection.request(method, path, body=body, headers=headers)
                    response = connection.getresponse()
                    payload = response.read()
                    status = response.status
                    location = response.getheader("Location") or ""
                    break
                except (OSError, http.client.HTTPException):
                    connection.close()
                    connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
            done = time.perf_counter()
            outcome = after(status, payload, location) if status else "no answer"
            with self.lock:
                self.records.append((kind, scheduled, sent, done, status))
                key = (kind, outcome or str(status))
                self.outcomes[key] = self.outcomes.get(key, 0) + 1

    # Each request: (method, path, headers, body, what to do with the answer) or None.

    @staticmethod
    def customer(session, form=False):
        headers = {"Cookie": "clup_session=%s" % session}
        if form:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        return headers

    def reserve(self, store, kind):
        with store.lock:
            if not store.fresh:
                return None
            session, csrf = store.fresh.pop()
        people = 2 if self.rng.random() < 0.4 else 1
        body = "csrf=%s&kind=%s&minutes=30&people=%d&mode=walking&requestKey=%s" % (
            csrf, kind, people, secrets.token_urlsafe(18))
        if kind == "booking":
            now = int(time.time())
            body += "&slot=%d" % ((now + 3 * 3600 + 899) // 900 * 900 + self.rng.randint(0, 47) * 900)

        def after(status, payload, location):
            match = re.search(r"/reservations/(\d+)", location)
            if status == 303 and match and kind == "lineUp":
                with store.lock:
                    store.queued.append((int(match.group(1)), session, csrf))
            return "made" if status == 303 else None
        return "POST", "/stores/%d/reservations" % store.id, self.customer(session, form=True), body, after

    def lineup(self, store):
        return self.reserve(store, "lineUp")

    def booking(self, store):
        return self.reserve(store, "booking")

    def walkin(self, store):
        body = json.dumps(dict(people=2 if self.rng.random() < 0.4 else 1, residenceMinutes=30,
                               requestKey=secrets.token_urlsafe(16)))

        def after(status, payload, location):
            if status == 201:
                with store.lock:
                    store.queued.append((json.loads(payload)["id"], None, None))
                return "made"
            return None
        return "POST", "/api/v1/tickets", device_headers(store.dispenser), body, after

    def cancel(self, store):
        with store.lock:
            owned = [index for index, party in enumerate(store.queued) if party[1]]
            if not owned:
                return None
            reservation, session, csrf = store.queued.pop(self.rng.choice(owned))
        return ("POST", "/reservations/%d/cancel" % reservation, self.customer(session, form=True), "csrf=" + csrf,
                lambda status, payload, location: "cancelled" if status == 303 else None)

    def scan(self, store):
        with store.lock:
            leaving = store.inside and self.rng.random() < 0.5
            if leaving:
                reservation = store.inside.pop(self.rng.randrange(len(store.inside)))
            elif store.queued:
                reservation = self.rng.choice(store.queued)[0]
            else:
                return None
        body = json.dumps(dict(code=bench.ticket_token(reservation), scanId=secrets.token_urlsafe(12)))

        def after(status, payload, location):
            result = (json.loads(payload).get("result") if status == 200 else None) or str(status)
            with store.lock:
                if result == "enter":
                    store.queued = [party for party in store.queued if party[0] != reservation]
                    store.inside.append(reservation)
                elif leaving and result != "exit":
                    store.inside.append(reservation)
            return result
        return "POST", "/api/v1/scan", device_headers(store.door), body, after

    def status(self, store):
        with store.lock:
            owned = [party for party in store.queued if party[1]]
        if not owned:
            return None
        reservation, session, _ = self.rng.choice(owned)
        headers = self.customer(session)
        headers["Accept"] = "application/json"
        return "GET", "/reservations/%d/status" % reservation, headers, None, lambda s, p, l: "ok" if s == 200 else None

    def page(self, store):
        with store.lock:
            owned = [party for party in store.queued if party[1]]
            fresh = store.fresh[-1] if store.fresh else None
        choice = self.rng.randrange(4)
        if choice == 3 and owned:
            reservation, session, _ = self.rng.choice(owned)
            path = "/reservations/%d" % reservation
        else:
            if fresh is None:
                return None
            session = fresh[0]
            path = ("/?lat=45.4642&lon=9.19", "/stores/%d" % store.id, "/stores/%d/reserve" % store.id)[choice % 3]
        return "GET", path, self.customer(session), None, lambda s, p, l: "ok" if s == 200 else None

    def board(self, store):
        return ("GET", "/api/v1/stores/%d/status" % store.id, device_headers(store.door), None,
                lambda s, p, l: "ok" if s == 200 else None)


def device_headers(key):
    return {"Authorization": "Bearer " + key, "Content-Type": "application/json"}


def percentile(values, share):
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def over_capacity(inside_by_store):
    """Stores with more people inside than places: (store, inside, capacity) rows."""
    return [row for row in inside_by_store if row[1] > row[2]]


CAPACITY_SQL = ("SELECT s.id, COALESCE(SUM(r.people), 0), s.capacity FROM store s LEFT JOIN reservation r"
                " ON r.storeId = s.id AND r.status = 'inside' WHERE s.name LIKE 'Chain %' GROUP BY s.id, s.capacity")


def step(port, stores, seconds, warmup, rng, inside_now):
    """One number of stores: a warm-up, then the measured stretch; its figures."""
    Load(port, stores, rng).run(warmup)
    load = Load(port, stores, rng)
    worst = []
    stop = threading.Event()

    def sample():
        while not stop.wait(2):
            worst.extend(over_capacity(inside_now()))
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    offered = load.run(seconds)
    stop.set()
    sampler.join()
    worst.extend(over_capacity(inside_now()))
    paths = {}
    for kind in MIX:
        times = [(done - sent) * 1000 for k, _, sent, done, _ in load.records if k == kind]
        failed = sum(1 for k, _, _, _, status in load.records if k == kind and (status == 0 or status >= 500))
        paths[kind] = dict(requests=len(times), p50=percentile(times, 0.5), p99=percentile(times, 0.99), failed=failed)
    late = percentile([(sent - scheduled) * 1000 for _, scheduled, sent, _, _ in load.records], 0.99) or 0
    failed = sum(path["failed"] for path in paths.values())
    slow = [kind for kind, path in paths.items()
            if path["p99"] is not None and path["p99"] > (SCAN_P99_MS if kind == "scan" else PAGE_P99_MS)]
    outcomes = {"%s %s" % key: count for key, count in sorted(load.outcomes.items())}
    return dict(stores=len(stores), offered=offered, achieved=len(load.records) / seconds, late_p99=late,
                paths=paths, failed=failed, slow=slow, over_capacity=worst, outcomes=outcomes,
                held=not failed and not slow and not worst and late <= LATE_P99_MS,
                load_limited=late > LATE_P99_MS)


def run_setup(name, port, all_stores, p, rng, inside_now):
    print("==> %s" % name, flush=True)
    steps = []
    for count in p["steps"]:
        if count > len(all_stores):
            break
        result = step(port, all_stores[:count], p["seconds"], p["warmup"], rng, inside_now)
        steps.append(result)
        print("    %4d stores: %6.0f req/s offered, %6.0f sent; p99 scan %s ms, page %s ms; %d failed; %s" % (
            count, result["offered"], result["achieved"], fmt(result["paths"]["scan"]["p99"]),
            fmt(max(v["p99"] or 0 for k, v in result["paths"].items() if k != "scan")), result["failed"],
            "held" if result["held"] else "load behind" if result["load_limited"] else "NOT held"), flush=True)
        if not result["held"]:
            break
    held = [s["stores"] for s in steps if s["held"]]
    return dict(name=name, steps=steps, holds=max(held) if held else 0,
                limit=("the load" if steps and steps[-1]["load_limited"] else "CLup" if steps and not steps[-1]["held"]
                       else "not reached"))


def fmt(value):
    return "-" if value is None else "%.0f" % value if value >= 10 else "%.1f" % value


def markdown(result):
    lines = ["## A chain's Saturday (`scripts/chain-day`)", "",
             "Run %s on %s. Each step: %d s measured after %d s of warm-up; a store sends %.1f requests a second."
             % (result["date"], result["machine"], result["seconds"], result["warmup"], sum(MIX.values())), ""]
    for setup in result["setups"]:
        lines += ["### %s: holds **%d** stores (limit: %s)" % (setup["name"], setup["holds"], setup["limit"]), "",
                  "| stores | requests/s sent | p99 ms: scan | status | page | board | line-up | booking | walk-in"
                  " | cancel | failed | over capacity | sent late, p99 | held |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for s in setup["steps"]:
            path = s["paths"]
            lines.append("| %d | %.0f | %s |" % (s["stores"], s["achieved"], " | ".join(
                fmt(path[k]["p99"]) for k in ("scan", "status", "page", "board", "lineup", "booking", "walkin", "cancel")))
                + " %d | %d | %.0f ms | %s |" % (s["failed"], len(s["over_capacity"]), s["late_p99"],
                                               "yes" if s["held"] else "no (the load fell behind)" if s["load_limited"]
                                               else "no"))
        lines.append("")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clup", required=True)
    parser.add_argument("--results", default=os.path.join(bench.HERE, "results"))
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--cluster-url")
    parser.add_argument("--pg-bin")
    args = parser.parse_args()
    p = SMOKE if args.smoke else FULL
    rng = random.Random(2027)
    work = tempfile.mkdtemp(prefix="clup-chain-day-")
    os.chmod(work, 0o755)
    threads = 2 * (os.cpu_count() or 1)
    with open(os.path.join(work, "secret"), "w") as file:
        file.write(bench.SECRET)
    os.environ["CLUP_DATA_KEY_FILE"] = os.path.join(work, "data-key")
    subprocess.run([args.clup, "admin", "create-data-key", os.environ["CLUP_DATA_KEY_FILE"]], check=True,
                   stdout=subprocess.DEVNULL)
    database = os.path.join(work, "clup.sqlite")
    subprocess.run([args.clup, "migrate", "--database", database], check=True, stdout=subprocess.DEVNULL)
    now = datetime.datetime.utcnow()
    largest = max(p["steps"])
    # Enough customers for a store's reservations in every step, twice over (its share of the
    # arrivals is random).
    per_store = int(len(p["steps"]) * (p["seconds"] + p["warmup"]) * (MIX["lineup"] + MIX["booking"]) * 2) + 5
    print("==> loading %d stores" % largest, flush=True)
    db = bench.open_database(database)
    sqlite_stores = seed(db, largest, p["capacity"], p["inside"], p["queued"], now, rng, per_store, "s")
    cluster_stores = []
    if args.cluster_url:
        cluster_stores = seed(db, largest, p["capacity"], p["inside"], p["queued"], now, rng, per_store, "p")
        print("==> copying to the PostgreSQL cluster", flush=True)
        subprocess.run([args.clup, "copy-to-postgres", "--database", database, "--to", args.cluster_url],
                       check=True, stdout=subprocess.DEVNULL)
    db.close()

    def serve(url_arguments, name):
        return lambda sock: [args.clup, "serve", *url_arguments, "--socket", sock, "--socket-mode", "0660",
                             *(["--socket-group", bench.nginx_group()] if os.geteuid() == 0 else []),
                             "--threads", str(threads), "--public", bench.ROOT + "/Public",
                             "--secret-file", os.path.join(work, "secret"), "--mail-dir", os.path.join(work, "mail-" + name),
                             "--vapid-key-file", os.path.join(work, "vapid-key")]
    setups = []
    stack = bench.Stack(work, args.clup, serve(["--database", database], "sqlite"), "sqlite")
    try:
        reader = bench.sqlite3.connect("file:%s?mode=ro" % database, uri=True, timeout=30, check_same_thread=False)
        reader_lock = threading.Lock()

        def sqlite_inside():
            with reader_lock:
                return reader.execute(CAPACITY_SQL).fetchall()
        setups.append(run_setup("SQLite, one worker", stack.port, sqlite_stores, p, rng, sqlite_inside))
    finally:
        stack.stop()
    if args.cluster_url:
        stack = bench.Stack(work, args.clup, serve(["--database-url", args.cluster_url], "postgres"), "postgres",
                            responders=2)
        try:
            def cluster_inside():
                rows = bench.psql(args.pg_bin, args.cluster_url, CAPACITY_SQL)
                return [tuple(int(v) for v in line.split("|")) for line in rows.splitlines() if line]
            setups.append(run_setup("PostgreSQL, 3 nodes (synchronous replica), two workers", stack.port,
                                    cluster_stores, p, rng, cluster_inside))
        finally:
            stack.stop()
    result = dict(date=now.strftime("%Y-%m-%d %H:%M UTC"), machine=bench.machine(), seconds=p["seconds"],
                  warmup=p["warmup"], mix=MIX, setups=setups)
    os.makedirs(args.results, exist_ok=True)
    name = "chain-day-smoke" if args.smoke else "chain-day"
    with open(os.path.join(args.results, name + ".json"), "w") as file:
        json.dump(result, file, indent=2)
    with open(os.path.join(args.results, name + ".md"), "w") as file:
        file.write(markdown(result) + "\n")
    print(markdown(result))
    unheld = [setup["name"] for setup in setups if setup["holds"] == 0]
    if unheld:
        print("not even the first step held on: " + ", ".join(unheld), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
