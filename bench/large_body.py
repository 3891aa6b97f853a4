"""What junk form bodies cost the worker: CPU time of `clup serve` (from /proc) for N requests
of each kind, through the real nginx, against a stack `scripts/run` started.

    PORT=8090 CLUP_RUN_DIR=/tmp/clup-measure ./scripts/run &      # then, once it serves:
    python3 bench/large_body.py --url http://127.0.0.1:8090 --run-dir /tmp/clup-measure

Kinds, each sent from 127.0.0.1 (spared the rate limits):
  - 1 MB of `a=1&…`, no cookies: refused by nginx (413) before the worker sees it;
  - 60 KiB of `a=1&…`, no cookies: refused by the worker before reading the body (403);
  - 60 KiB of `a=1&…` with a guest token cookie: refused past 300 fields (413);
  - the sign-in page (GET), for scale.
"""

import argparse
import os
import subprocess
import time


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def send(url, body_file, cookie=None):
    arguments = ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}"]
    if body_file:
        arguments += ["-H", "Content-Type: application/x-www-form-urlencoded", "--data-binary", "@" + body_file]
    if cookie:
        arguments += ["-H", "Cookie: " + cookie]
    return subprocess.run(arguments + [url], capture_output=True, text=True).stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--run-dir", required=True)
    parser.add_argument("--requests", type=int, default=50)
    options = parser.parse_args()
    pid = int(open(os.path.join(options.run_dir, "worker.pid")).read())
    folder = options.run_dir
    bodies = {
        "1mb": ("a=1&" * 262_144),
        "60k": ("a=1&" * 15_360),
    }
    for name, text in bodies.items():
        with open(os.path.join(folder, f"body-{name}"), "w") as file:
            file.write(text)
    token = "t" * 22
    kinds = [
        ("1 MB a=1&…, no cookies", "1mb", None),
        ("60 KiB a=1&…, no cookies", "60k", None),
        ("60 KiB a=1&…, guest token cookie", "60k", "clup_csrf=" + token),
        ("the sign-in page, GET (for scale)", None, None),
    ]
    print(f"{'request':40} {'status':>6} {'worker CPU per request':>24}")
    for label, body, cookie in kinds:
        before = cpu_seconds(pid)
        statuses = {send(options.url + "/signin", body and os.path.join(folder, f"body-{body}"), cookie)
                    for _ in range(options.requests)}
        time.sleep(0.2)
        spent = (cpu_seconds(pid) - before) / options.requests
        print(f"{label:40} {'/'.join(sorted(statuses)):>6} {spent * 1000:>21.2f} ms")


if __name__ == "__main__":
    main()
