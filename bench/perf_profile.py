#!/usr/bin/env python3
"""Where a process's CPU goes under one of the benchmark's loads: `perf record` on it, the
samples folded into stacks, a flame graph and the top costs.

`bench.py --profile` calls `record()` around a load and `report()` after; run alone,
`bench/perf_profile.py DATA NAME OUTDIR` reports on a `perf record --call-graph dwarf` file made by hand.

The report, `OUTDIR/NAME.md`, first says what share of the samples is the thread going to sleep
and waking others (the kernel's scheduler, futexes: a thread handing work to another and waiting
for it), then lists the ten functions with the most samples of their own
("self": the leaf of the stack); the ten of CLup's own functions that are the nearest of
CLup's own to the most samples ("nearest own": the runtime's retains, copies and allocations,
SQLite's work and the kernel's are charged to the CLup function that asked for them, which is
where a change can be made); the ten of CLup's own with the most samples under them
("inclusive", counted once per sample); and the share of each library. `NAME.svg` is the
flame graph (the widest stacks at the bottom; hover a frame for its name and share), and
`NAME.folded` the stacks it is drawn from, one per line, as other flame-graph tools read them.
"""

import collections
import html
import os
import re
import shutil
import subprocess
import sys
import zlib

FREQUENCY = 499


def record(pid, seconds, data):
    """Starts `perf record` on the process for `seconds`; wait() the returned process.

    Stacks are unwound from DWARF information, not frame pointers: Debian's SQLite and parts
    of Swift's runtime are built without frame pointers, which cut those stacks off at their
    leaf and left the write path's SQLite work charged to no caller."""
    return subprocess.Popen(["perf", "record", "-F", str(FREQUENCY), "--call-graph", "dwarf,16384", "-p", str(pid),
                             "-o", data, "--", "sleep", str(seconds)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


FRAME = re.compile(r"^\s*[0-9a-f]+ (.+?)(?:\+0x[0-9a-f]+)? \((.*)\)$")


def samples(data):
    """(thread, frames from the root to the leaf) per sample; a frame is (function, library)."""
    script = subprocess.run(["perf", "script", "-i", data, "-F", "comm,ip,sym,dso"], capture_output=True, text=True,
                            check=True).stdout
    thread, frames = None, []
    for line in script.splitlines() + [""]:
        if not line.strip():
            if thread is not None:
                yield thread, frames[::-1]
            thread, frames = None, []
        elif thread is None:
            thread = line.strip().rstrip(":").strip() or "?"
        else:
            match = FRAME.match(line)
            if match:
                function, library = match.group(1), os.path.basename(match.group(2))
                frames.append((function if function != "[unknown]" else "[%s]" % library, library))


def demangled(names, *options):
    """Swift's mangled names as `swift demangle` writes them, where it is here."""
    names = sorted(set(names))
    tool = shutil.which("swift")
    if not tool or not names:
        return {name: name for name in names}
    output = subprocess.run([tool, "demangle", *options], input="\n".join(names), capture_output=True,
                            text=True).stdout.splitlines()
    if len(output) != len(names):
        return {name: name for name in names}
    return dict(zip(names, output))


OWN_MODULES = re.compile(r"^(CLup\w*|FastCGI|clup)\.")
WRAPPERS = re.compile(r"^(partial apply for |merged |specialized |outlined \w+ of |reabstraction thunk helper.*? from |"
                      r"\(extension in \w+\):)")


def is_own(full):
    """Whether a fully demangled name is a function of CLup's own modules (a closure by the
    function it is in, a specialization by the function specialized)."""
    name = full
    while True:
        stripped = WRAPPERS.sub("", name)
        if stripped == name:
            break
        name = stripped
    if name.startswith("closure #") or name.startswith("implicit closure #"):
        name = name.rsplit(" in ", 1)[-1]
    return bool(OWN_MODULES.match(name))


def shorter(name):
    """Drops generic arguments' and closures' detail that makes a frame unreadable in a graph."""
    name = re.sub(r" in closure #\d+", " (closure)", name)
    name = re.sub(r"^(partial apply for |merged |outlined \w+ of )", "", name)
    return name if len(name) < 160 else name[:157] + "..."


# The kernel's functions that put a thread to sleep, switch to another, or wake one: a sample
# with one of them on its stack is time spent handing over between threads.
SWITCHING = re.compile(r"^(__?schedule|schedule_hrtimeout_range|finish_task_switch.*|futex_wait.*|futex_wake.*|"
                       r"try_to_wake_up|__x64_sys_futex|do_futex|pick_next_task.*)$")


def switch_kind(functions):
    """Why a sample with a thread switch on its stack switched: a thread handing work to another
    or waiting for one (a futex), waiting for a socket or a pipe (poll), preempted on the way
    back from the kernel (another process took the core), or something else (a file's I/O)."""
    if any("futex" in function for function in functions):
        return "futex"
    if any(function in ("__x64_sys_poll", "__x64_sys_ppoll", "__x64_sys_epoll_wait", "__x64_sys_select")
           for function in functions):
        return "poll"
    if any(function.startswith(("exit_to_user_mode", "irqentry_exit")) for function in functions):
        return "preempted"
    return "other"


def report(data, name, directory):
    """Writes NAME.folded, NAME.svg and NAME.md into `directory`; returns the Markdown."""
    stacks = list(samples(data))
    functions = [function for _, frames in stacks for function, _ in frames]
    names = {name: shorter(readable) for name, readable in demangled(functions, "--simplified").items()}
    ours = {name for name, full in demangled(functions).items() if is_own(full)}
    folded = collections.Counter()
    leaves = collections.Counter()
    nearest = collections.Counter()
    inclusive = collections.Counter()
    libraries = collections.Counter()
    switching = 0
    kinds = collections.Counter()
    for thread, frames in stacks:
        if any(SWITCHING.match(function) for function, _ in frames):
            switching += 1
            kinds[switch_kind([function for function, _ in frames])] += 1
        readable = [names[function] for function, _ in frames]
        folded[";".join([thread] + [f.replace(";", ",") for f in readable])] += 1
        if frames:
            leaves[readable[-1]] += 1
            libraries[frames[-1][1]] += 1
        own = [names[function] for function, _ in frames if function in ours]
        nearest[own[-1] if own else "(none of CLup's own on the stack: %s)" % thread] += 1
        for function in set(own):
            inclusive[function] += 1
    total = max(1, len(stacks))
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name + ".folded"), "w") as file:
        for stack, count in folded.most_common():
            file.write("%s %d\n" % (stack, count))
    with open(os.path.join(directory, name + ".svg"), "w") as file:
        file.write(flame_graph(folded, name))

    def table(counter, heading, count=10):
        rows = ["| %s | share of the worker's samples |" % heading, "|---|---|"]
        rows += ["| `%s` | %.1f %% |" % (key.replace("|", "\\|"), 100.0 * value / total)
                 for key, value in counter.most_common(count)]
        return "\n".join(rows)

    markdown = "\n\n".join([
        "### %s: %d samples at %d Hz" % (name, len(stacks), FREQUENCY),
        "Thread switches and wake-ups (the scheduler or a futex on the stack): **%.1f %%** of the samples."
        % (100.0 * switching / total)
        + " Of which: handing work between threads (a futex) %.1f %%, waiting for a socket (poll) %.1f %%,"
          " preempted by another process %.1f %%, other %.1f %%."
        % tuple(100.0 * kinds[kind] / total for kind in ("futex", "poll", "preempted", "other")),
        table(leaves, "self: the ten functions with most samples of their own"),
        table(nearest, "nearest own: the ten of CLup's functions with most samples charged to them"),
        table(inclusive, "inclusive: the ten of CLup's own with most samples under them"),
        table(libraries, "library the samples fall in", 8),
    ]) + "\n"
    with open(os.path.join(directory, name + ".md"), "w") as file:
        file.write(markdown)
    return markdown


def switching_share(markdown):
    """The share of thread switches a report gives (percent), for the summary."""
    found = re.search(r"Thread switches and wake-ups .*?\*\*([\d.]+) %\*\*", markdown)
    return float(found.group(1)) if found else None


def flame_graph(folded, title, width=1200, row=16):
    """An SVG flame graph of folded stacks: each frame as wide as its share of the samples."""
    root = {"count": 0, "children": {}}
    for stack, count in folded.items():
        node = root
        node["count"] += count
        for frame in stack.split(";"):
            node = node["children"].setdefault(frame, {"count": 0, "children": {}})
            node["count"] += count
    total = max(1, root["count"])
    boxes = []
    depth_seen = [0]

    def place(node, x, depth):
        for frame, child in sorted(node["children"].items()):
            span = child["count"] * width / total
            if span >= 0.3:
                boxes.append((x, depth, span, frame, child["count"]))
                depth_seen[0] = max(depth_seen[0], depth)
                place(child, x, depth + 1)
            x += span

    place(root, 0.0, 0)
    height = (depth_seen[0] + 3) * row
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="monospace" '
             'font-size="11">' % (width, height),
             '<text x="4" y="13">%s: %d samples</text>' % (html.escape(title), total)]
    for x, depth, span, frame, count in boxes:
        y = height - (depth + 1) * row
        hue = 10 + zlib.crc32(frame.encode()) % 50
        label = html.escape(frame)
        share = "%s (%.1f %%)" % (label, 100.0 * count / total)
        parts.append('<g><title>%s</title><rect x="%.1f" y="%d" width="%.1f" height="%d" fill="hsl(%d,80%%,60%%)" '
                     'stroke="white" stroke-width="0.5"/>' % (share, x, y, span, row - 1, hue))
        fits = int(span / 7)
        if fits >= 4:
            text = label if len(frame) <= fits else html.escape(frame[:fits - 2]) + ".."
            parts.append('<text x="%.1f" y="%d">%s</text>' % (x + 2, y + row - 4, text))
        parts.append("</g>")
    parts.append("</svg>\n")
    return "\n".join(parts)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: perf_profile.py PERF_DATA NAME OUTDIR")
    print(report(*sys.argv[1:]))
