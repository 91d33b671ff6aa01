"""bench/suite/suite.py - the benchmark suite of issue 12: every workload of bench/workloads/, tr
side by side with Debian's perf, in one run (bench/README.md).  Run by bench/suite/run.sh and
`make bench-suite`; needs Debian's python3 (this file), perf, a built tree.

Sections (--section, comma list; default all):
  recorder   tr-rec-perf vs perf record, attached with -p to a workload started stopped, which
             then runs for WINDOW seconds (SIGINT stops the recorder), cpu-clock, -g and
             --call-graph dwarf, at each rate: samples, lost, bytes/sample, recorder CPU/sample,
             recorder peak RSS; A B A B, medians
  symbolize  on the perf recording of the recorder section's highest rate (tr-import-perf turns it
             into a tr trace with the very same samples): perf script vs tr-symbolize cold and
             warm, and tr-fold (symbolizing), -g and dwarf
  cat        text at CAT_SAMPLES samples (-g): perf script vs tr-cat of the symbolized trace,
             same recording
  memory     peak RSS of tr-symbolize, tr-fold, tr-cat and tr-flame against samples of deep; of
             every reader on hot3 at ten times the samples (flat)
Timing: wall time of each command (median of REPEATS; its rusage from wait4 in bench/suite/measure.c,
which forks it: CPU and peak RSS).
"""
import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
B = os.environ.get("B", os.path.join(ROOT, "build", "release"))
BIN = os.path.join(B, "bin")
TRP, TRCAT = os.path.join(BIN, "tr-rec-perf"), os.path.join(BIN, "tr-cat")
TRSYM, TRFOLD, TRFLAME = (os.path.join(BIN, t) for t in ("tr-symbolize", "tr-fold", "tr-flame"))
TRIMPORT = os.path.join(BIN, "tr-import-perf")
TRREPORT, TREXPORT, TRANNOTATE, TRDIFF = (os.path.join(BIN, t) for t in ("tr-report", "tr-export", "tr-annotate", "tr-diff"))
PY = "/usr/bin/python3"  # Debian's CPython, not a pyenv shim
WL = os.path.join(ROOT, "bench", "workloads")


def wl_cmd(name, mode, secs):
    """The command of workload NAME for call-graph MODE (fp or dwarf), running about SECS."""
    sfx = "fp" if mode == "fp" else "nofp"
    s = "%g" % secs
    if name == "python":
        return [PY, os.path.join(WL, "python.py"), s]
    if name == "cc":
        return ["sh", os.path.join(WL, "cc.sh"), s]
    if name == "hot3":  # rounds, not seconds: about 1.5 ms a round
        return [os.path.join(B, "workloads", "hot3-" + sfx), str(int(secs * 700) + 1)]
    return [os.path.join(B, "bench", "%s-%s" % (name, sfx)), s]


WORKLOADS = ["deep", "python", "cxx", "cc", "server", "hot3"]
MODES = {"fp": ["-g"], "dwarf": ["--call-graph", "dwarf"]}


class Run:
    """One finished command: wall seconds, CPU seconds (user+sys, with its children), peak RSS KiB."""

    def __init__(self, wall, cpu, rss, status, err):
        self.wall, self.cpu, self.rss, self.status, self.err = wall, cpu, rss, status, err


MEASURE = os.path.join(B, "bench", "measure")
MEASURED = os.path.join(tempfile.gettempdir(), "tr-suite-measured.%d" % os.getpid())


def spawn(cmd, out=subprocess.DEVNULL, env=None, stderr_path=None):
    """CMD started through bench/suite/measure.c, which reports its own wall time, CPU and peak RSS
    (Python's wait4 would give a command at least the driver's peak RSS: see measure.c)."""
    err = open(stderr_path, "w") if stderr_path else subprocess.DEVNULL
    if os.path.exists(MEASURED):
        os.unlink(MEASURED)
    p = subprocess.Popen([MEASURE, MEASURED] + cmd, stdout=out, stderr=err, env=env)
    if stderr_path:
        err.close()
    return p


def reap(p, t0, stderr_path=None):
    """wait4 for P, then what measure saw of its command (a killed measure saw nothing: then P's own
    figures)."""
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    err = open(stderr_path).read() if stderr_path else ""
    try:
        with open(MEASURED) as f:
            ns, us, kb, code = (int(x) for x in f.read().split())
        return Run(ns / 1e9, us / 1e6, kb, code if code < 128 else -(code - 128), err)
    except (OSError, ValueError):
        return Run(wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, p.returncode, err)


def run(cmd, out=subprocess.DEVNULL, env=None, tmp=None, timeout=None):
    """Run CMD; past TIMEOUT seconds it is killed and its Run has timedout set."""
    errf = os.path.join(tmp, "stderr") if tmp else None
    t0 = time.monotonic()
    p = spawn(cmd, out, env, errf)
    timer = threading.Timer(timeout, p.kill) if timeout else None
    if timer:
        timer.start()
    r = reap(p, t0, errf)
    r.timedout = bool(timer) and not timer.is_alive() and r.status == -signal.SIGKILL
    if timer:
        timer.cancel()
    return r


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt(x, nd=1):
    if x is None:
        return "-"
    if isinstance(x, int) or abs(x) >= 1000:
        return "{:,}".format(int(round(x)))
    return "%.*f" % (nd, x)


def ratio(a, b, nd=2):
    return "-" if a is None or not b else "%.*f" % (nd, a / b)


def goal(r, g):
    """ok when the ratio R (a string) is at most G."""
    return "  " if r == "-" else "ok" if float(r) <= g else "NO"


def table(title, head, rows):
    print("\n== " + title)
    w = [max(len(str(r[i])) for r in [head] + rows) for i in range(len(head))]
    for r in [head] + rows:
        print("  ".join(str(c).ljust(w[i]) if i == 0 else str(c).rjust(w[i]) for i, c in enumerate(r)))
    sys.stdout.flush()


# ---- sample counts and lost samples of a recording ---------------------------------------------
def tr_info(path):
    """(samples, lost) from tr-cat -i."""
    out = subprocess.run([TRCAT, "-i", path], capture_output=True, text=True).stdout
    n = re.search(r"^\s*sample\s+(\d+)", out, re.M)
    lost = re.search(r"(\d+) lost events", out)
    return int(n.group(1)) if n else 0, int(lost.group(1)) if lost else None


def tr_end_line(err):
    """samples and lost from tr-rec-perf's final stderr line."""
    m = re.search(r"tr-rec-perf: (\d+) samples, (\d+) lost", err)
    return (int(m.group(1)), int(m.group(2))) if m else (None, None)


def perf_info(path):
    """(samples, lost) from perf report --stats: SAMPLE and LOST_SAMPLES/LOST of the event's section
    (the same sample count as `perf script -F period | wc -l`)."""
    p = subprocess.run(["perf", "report", "--stats", "-i", path], capture_output=True, text=True)
    n = lost = 0
    per_event = False
    for line in p.stdout.splitlines():
        if line.rstrip().endswith("stats:") and not line.startswith("Aggregated"):
            per_event = True
            continue
        m = re.match(r"\s*(\w+) events:\s+(\d+)", line)
        if per_event and m:
            if m.group(1) == "SAMPLE":
                n += int(m.group(2))
            elif m.group(1) in ("LOST_SAMPLES", "LOST"):
                lost += int(m.group(2))
    chunks = re.search(r"lost (\d+) chunks", p.stderr + p.stdout)
    if chunks and not lost:
        print("  warning: %s: perf lost %s chunks, no count of samples" % (path, chunks.group(1)), file=sys.stderr)
    return n, lost


# ---- recorder ----------------------------------------------------------------------------------
def start_stopped(name, mode, secs):
    """Start workload NAME stopped (SIGSTOP before its exec): a recorder attaches to it before it
    runs, so that each attach records the same work, the first seconds of the workload, and
    whatever it forks later is followed (inherited events)."""
    wp = subprocess.Popen(["sh", "-c", 'kill -STOP $$; exec "$@"', "sh"] + wl_cmd(name, mode, secs),
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    for _ in range(500):
        with open("/proc/%d/stat" % wp.pid) as f:
            if f.read().rsplit(")", 1)[1].split()[0] == "T":
                return wp
        time.sleep(0.01)
    raise RuntimeError("workload %s did not stop" % name)


def attach(tool, mode, rate, name, a, out, tmp):
    """Start NAME stopped, attach TOOL with -p, let the workload run for a.window seconds once
    the recorder had time to start (perf record a.ready seconds: it enables its events about 0.5 s
    after it starts; tr-rec-perf, which enables them at once, 0.3), then SIGINT: the recorder's own
    rusage.  Both record the same work: the workload's first a.window seconds."""
    wp = start_stopped(name, mode, a.window + a.ready + 30)
    if tool == "tr":
        cmd = [TRP, "-e", "cpu-clock", "-F", str(rate)] + MODES[mode] + ["-p", str(wp.pid), "-o", out]
    else:
        cmd = ["perf", "record", "-e", "cpu-clock", "-F", str(rate)] + MODES[mode] + \
            ["-p", str(wp.pid), "-o", out]
    errf = os.path.join(tmp, "rec.err")
    t0 = time.monotonic()
    p = spawn(cmd, stderr_path=errf)
    try:
        time.sleep(a.ready if tool == "perf" else min(a.ready, 0.3))
        os.kill(wp.pid, signal.SIGCONT)
        time.sleep(a.window)
        p.send_signal(signal.SIGINT)
        r = reap(p, t0, errf)
    finally:
        os.killpg(wp.pid, signal.SIGKILL)
        wp.wait()
    r.size = os.path.getsize(out) if os.path.exists(out) else 0
    if tool == "tr":
        n, lost = tr_info(out)
        en, elost = tr_end_line(r.err)
        r.samples, r.lost = n, (elost if elost is not None else lost)
    else:
        r.samples, r.lost = perf_info(out)
    if r.status not in (0, 130, -2) or not r.samples:
        print("  warning: %s %s %s -F %s: exit %s, %s samples: %s" %
              (tool, name, mode, rate, r.status, r.samples, r.err.strip()[-300:]), file=sys.stderr)
    return r


def section_recorder(a, tmp, keep):
    rows = []
    for name in a.only:
        for mode in a.modes:
            for rate in a.rates:
                res = {"tr": [], "perf": []}
                for i in range(a.repeats):
                    for tool in ("tr", "perf"):  # A B A B
                        out = os.path.join(tmp, "%s.%s.%s.%d.%s" % (name, mode, rate, i,
                                                                     "tr" if tool == "tr" else "data"))
                        r = attach(tool, mode, rate, name, a, out, tmp)
                        res[tool].append(r)
                        # the symbolize section's input: the last good recording at the last rate
                        old = keep.get((name, mode, tool))
                        if rate == a.rates[-1] and r.samples and r.status in (0, 130, -2):
                            keep[(name, mode, tool)] = out
                            if old:
                                os.unlink(old)
                        else:
                            os.unlink(out)
                m, note = {}, []
                for tool in ("tr", "perf"):
                    # a failed run (no samples, or killed: perf 6.1 sometimes aborts at the end
                    # of an attach) is left out of the medians, and counted in the last column
                    rs = [r for r in res[tool] if r.samples and r.status in (0, 130, -2)]
                    if len(rs) < len(res[tool]):
                        note.append("%s failed %d/%d" % (tool, len(res[tool]) - len(rs), len(res[tool])))
                    m[tool] = dict(
                        n=med([r.samples for r in rs]), lost=med([r.lost for r in rs]),
                        bps=med([r.size / r.samples for r in rs if r.samples]),
                        cps=med([r.cpu / r.samples * 1e6 for r in rs if r.samples]),
                        rss=med([r.rss / 1024 for r in rs]))
                t, p = m["tr"], m["perf"]
                rb, rc, rr = ratio(t["bps"], p["bps"]), ratio(t["cps"], p["cps"]), ratio(t["rss"], p["rss"])
                lost_ok = "ok" if (t["lost"] or 0) <= (p["lost"] or 0) else "NO"  # never more lost than perf
                rows.append([name, mode, rate, fmt(t["n"]), fmt(p["n"]), fmt(t["lost"]), fmt(p["lost"]), lost_ok,
                             fmt(t["bps"]), fmt(p["bps"]), rb, goal(rb, 1 / 3),
                             fmt(t["cps"]), fmt(p["cps"]), rc, goal(rc, 1),
                             fmt(t["rss"]), fmt(p["rss"]), rr, goal(rr, 1), ", ".join(note)])
                progress("recorder %s %s -F %s" % (name, mode, rate))
    table("recorder: tr-rec-perf vs perf record -p PID, cpu-clock, the workload's first %g s, median of %d "
          "(A B A B); CPU and RSS are the recorder's own" % (a.window, a.repeats),
          ["workload", "mode", "-F", "smp tr", "perf", "lost tr", "perf", "(<=)",
           "B/smp tr", "perf", "tr/perf", "(<=1/3)", "us/smp tr", "perf", "tr/perf", "(<=1)",
           "RSS MB tr", "perf", "tr/perf", "(<=1)", ""], rows)


def progress(what):
    print("  %s done (%.0f s)" % (what, time.monotonic() - T0), file=sys.stderr)
    sys.stderr.flush()


# ---- symbolizer --------------------------------------------------------------------------------
class Timing:
    """median wall and CPU seconds and max RSS MiB of repeated runs; over (the timeout) when one
    was killed at the timeout: then wall is the timeout, a lower bound."""

    def __init__(self, rs, timeout):
        self.over = any(r.timedout for r in rs)
        self.wall = timeout if self.over else med([r.wall for r in rs])
        self.cpu = med([r.cpu for r in rs])
        self.rss = max(r.rss for r in rs) / 1024

    def s(self, nd=3):
        return (">%.0f" % self.wall) if self.over else "%.*f" % (nd, self.wall)

    def per(self, n):
        """microseconds per sample of N"""
        return "-" if not n else (">" if self.over else "") + fmt(self.wall / n * 1e6)


def timed(cmd, a, reps=None, env=None, prep=None, out=None, timeout=None):
    """REPS runs of CMD (PREP() before each), each killed past TIMEOUT (a.timeout); stops at the
    first killed or failed one, and once the runs took a.budget seconds together (slow cells run
    once)."""
    timeout = timeout or a.timeout
    rs = []
    for _ in range(reps or a.repeats):
        if sum(r.wall for r in rs) >= a.budget:
            break
        if prep:
            prep()
        if out:
            with open(out, "wb") as f:
                r = run(cmd, out=f, env=env, timeout=timeout)
        else:
            r = run(cmd, env=env, timeout=timeout)
        rs.append(r)
        if r.timedout or r.status != 0:
            if not r.timedout:
                print("  warning: exit %d: %s" % (r.status, " ".join(cmd)), file=sys.stderr)
            break
    return Timing(rs, timeout)


def xfaster(p, t):
    """perf/tr ("x faster"), '<' when tr's time is only a lower bound."""
    if p.over or not t.wall:
        return "-"
    x = p.wall / t.wall
    return ("<" if t.over else "") + ("%.0f" % x if x >= 10 else "%.1f" % x if x >= 1 else "%.2f" % x)


def goal_x(r, g):
    if r == "-":
        return "  "
    return "NO" if r.startswith("<") or float(r) < g else "ok"


def perf_to_tr(data, out):
    with open(out, "wb") as f:
        r = subprocess.run([TRIMPORT, "-q", data], stdout=f, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        print("  warning: tr-import-perf %s: %s" % (data, r.stderr.strip()), file=sys.stderr)
        return False
    return True


def section_symbolize(a, tmp, keep):
    rows = []
    cache = os.path.join(tmp, "cache")
    env = dict(os.environ, XDG_CACHE_HOME=cache)
    for name in a.only:
        for mode in a.modes:
            data = keep.get((name, mode, "perf"))
            if not data:
                continue
            conv = data + ".tr"
            if not perf_to_tr(data, conv):
                continue
            n = tr_info(conv)[0]
            if not n:
                print("  warning: %s has no samples" % conv, file=sys.stderr)
                continue
            p = timed(["perf", "script", "-i", data], a)
            # tr is killed once it took twice perf's time (at least 5 s): its ratio is then "<0.5"
            trt = a.timeout if p.over else min(a.timeout, max(5, 2 * p.wall))
            cold = timed([TRSYM, conv], a, env=env, prep=lambda: shutil.rmtree(cache, ignore_errors=True),
                         timeout=trt)
            warm = timed([TRSYM, conv], a, env=env, timeout=trt)  # the cache as the cold runs left it
            fold = timed([TRFOLD, conv], a, env=env, timeout=trt)
            row = [name, mode, fmt(n), p.s(), fmt(p.rss)]
            for t in (cold, warm, fold):
                x = xfaster(p, t)
                row += [t.s(), fmt(t.rss), x, goal_x(x, 10)]
            row += [cold.per(n), p.per(n)]
            rows.append(row)
            progress("symbolize %s %s" % (name, mode))
    table("symbolizer: perf script vs tr-symbolize and tr-fold (default options) on the same perf.data "
          "(the recorder section's last -F %d run, through tr-import-perf), wall s median of up to %d, max RSS MB; "
          "x = perf/tr; cold: empty XDG_CACHE_HOME; >S: killed at S s (tr: at twice perf's time, at least 5 s)"
          % (a.rates[-1], a.repeats),
          ["workload", "mode", "samples", "perf s", "MB", "tr cold s", "MB", "x", "(>=10)",
           "tr warm s", "MB", "x", "(>=10)", "tr-fold s", "MB", "x", "(>=10)", "us/smp tr cold", "perf"], rows)


# ---- recordings of a given size ----------------------------------------------------------------
def record_n(tool, name, target, a, out, tmp, est):
    """Record about TARGET samples of NAME (-g, fp build) with TOOL in command mode at the last
    rate: two copies of the workload (one per vCPU).  The duration comes from EST[0], the samples
    per second seen so far (2 x rate at first), and is redone once, longer, when it fell short by
    more than a third; never more than a.max_record seconds.  Returns the samples recorded."""
    rate = a.rates[-1]
    n = 0
    for _ in range(2):
        secs = min(a.max_record, max(0.3, target / est[0] * 1.05))
        w = " ".join("'%s'" % x for x in wl_cmd(name, "fp", secs))
        job = "%s & %s; wait" % (w, w)
        rec = [TRP, "-q"] if tool == "tr" else ["perf", "record", "-q"]
        r = run(rec + ["-e", "cpu-clock", "-F", str(rate), "-g", "-o", out, "--", "sh", "-c", job], tmp=tmp)
        if r.status != 0:
            print("  warning: %s recording %s failed: %s" % (tool, name, r.err.strip()[-300:]), file=sys.stderr)
            return 0
        n = tr_info(out)[0] if tool == "tr" else perf_info(out)[0]
        if n:
            est[0] = n / secs  # per second of the workload's run (the recorder's start and stop aside)
        if n >= target * 2 / 3 or secs >= a.max_record:
            break
    return n


# ---- text at many samples ----------------------------------------------------------------------
def section_cat(a, tmp):
    rows = []
    cache = os.path.join(tmp, "cache")
    env = dict(os.environ, XDG_CACHE_HOME=cache)
    for name in a.only:
        data, conv, sym = (os.path.join(tmp, "cat.%s.%s" % (name, x)) for x in ("data", "tr", "sym.tr"))
        n = record_n("perf", name, a.cat_samples, a, data, tmp, [2.0 * a.rates[-1]])
        if not n or not perf_to_tr(data, conv):
            continue
        s = run([TRSYM, "-o", sym, conv], env=env, timeout=a.timeout)
        if s.timedout or s.status != 0:
            rows.append([name, fmt(n), "-", "-", "-", "-", "-", "", "tr-symbolize %s" %
                         ("took over %d s" % a.timeout if s.timedout else "failed")])
        else:
            p = timed(["perf", "script", "-i", data], a, reps=a.cat_repeats)
            t = timed([TRCAT, sym], a, reps=a.cat_repeats)
            x = xfaster(p, t)
            rows.append([name, fmt(n), p.s(2), fmt(p.rss), t.s(2), fmt(t.rss), x, goal_x(x, 1), "%.1f" % s.wall])
        for f in (data, conv, sym):
            if os.path.exists(f):
                os.unlink(f)
        progress("cat %s" % name)
    table("text: perf script vs tr-cat of the symbolized trace, same perf.data (perf record -g -F %d of two "
          "copies of the workload, through tr-import-perf and tr-symbolize), wall s median of %d, max RSS MB; "
          "x = perf/tr" % (a.rates[-1], a.cat_repeats),
          ["workload", "samples", "perf script s", "MB", "tr-cat s", "MB", "x", "(>=1)", "(tr-symbolize s)"], rows)


# ---- reader memory -----------------------------------------------------------------------------
def section_memory(a, tmp):
    rows = []
    cache = os.path.join(tmp, "cache")
    env = dict(os.environ, XDG_CACHE_HOME=cache)
    est = [2.0 * a.rates[-1]]
    tr, folded = os.path.join(tmp, "mem.tr"), os.path.join(tmp, "mem.folded")
    for target in a.mem_samples:
        n = record_n("tr", "deep", target, a, tr, tmp, est)
        if not n:
            continue
        runs = []
        for cmd, out in (([TRSYM, tr], None), ([TRFOLD, tr], folded), ([TRCAT, tr], None), ([TRFLAME, folded], None)):
            runs.append(timed(cmd, a, reps=1, env=env, out=out))
        # the distinct stacks: tr-fold's lines (deep's are nearly all new, so they grow with the samples)
        with open(folded, "rb") as f:
            stacks = sum(1 for _ in f)
        row = [fmt(target), fmt(n), fmt(stacks), fmt(os.path.getsize(tr) / 1048576)]
        for t in runs:
            row += [fmt(t.rss), fmt(t.rss * 1048576 / max(stacks, 1)), t.s(2)]
        rows.append(row)
        os.unlink(tr)
        os.unlink(folded)
        progress("memory %d" % target)
    table("reader memory: deep -g (tr-rec-perf -F %d of two copies), peak RSS MB, RSS bytes per distinct "
          "stack (stacks: tr-fold's lines), wall s (1 run; the DWARF cache as the sections before left it); "
          "tr-flame reads tr-fold's output; goal: bounded by the distinct stacks, not the samples; a run "
          "killed at the timeout shows its peak RSS until then" % a.rates[-1],
          ["target", "samples", "stacks", "trace MB", "tr-symbolize MB", "B/stk", "s", "tr-fold MB", "B/stk", "s",
           "tr-cat MB", "B/stk", "s", "tr-flame MB", "B/stk", "s"], rows)


def section_memory_flat(a, tmp):
    """Every reader's peak RSS on hot3 (a few hundred distinct stacks) at about 20,000 and ten
    times as many samples: bounded by the distinct stacks, it grows by less than a sample's record
    (16 bytes) per sample added."""
    cache = os.path.join(tmp, "cache")
    env = dict(os.environ, XDG_CACHE_HOME=cache)
    readers = [("tr-symbolize", [TRSYM]), ("tr-fold", [TRFOLD]), ("tr-cat", [TRCAT]), ("tr-flame", None),
               ("tr-report", [TRREPORT]), ("tr-annotate", [TRANNOTATE]), ("tr-diff", [TRDIFF, None]),
               ("tr-export --pprof", [TREXPORT, "--pprof"]), ("tr-export --chrome", [TREXPORT, "--chrome"]),
               ("tr-export --speedscope", [TREXPORT, "--speedscope"])]
    est, cols, ns, stacks = [2.0 * a.rates[-1]], [], [], []
    tr, folded = os.path.join(tmp, "flat.tr"), os.path.join(tmp, "flat.folded")
    for target in (20000, 200000):
        n = record_n("tr", "hot3", target, a, tr, tmp, est)
        if not n:
            return
        ns.append(n)
        with open(folded, "wb") as f:
            run([TRFOLD, tr], out=f, env=env, timeout=a.timeout)
        with open(folded, "rb") as f:
            stacks.append(sum(1 for _ in f))
        col = []
        for name, cmd in readers:
            cmd = [TRFLAME, folded] if cmd is None else [tr if c is None else c for c in cmd] + [tr]
            col.append(timed(cmd, a, reps=1, env=env, out=os.devnull))
        cols.append(col)
        os.unlink(tr)
        progress("memory flat %d" % target)
    rows = []
    for i, (name, _) in enumerate(readers):
        lo, hi = cols[0][i].rss, cols[1][i].rss
        per = max(hi - lo, 0) * 1048576 / max(ns[1] - ns[0], 1)
        rows.append([name, fmt(lo), fmt(hi), "%.1f" % per, "ok" if per < 16 else "NO", cols[0][i].s(2), cols[1][i].s(2)])
    table("reader memory against samples: hot3 -g (tr-rec-perf -F %d of two copies) at %s and %s samples "
          "(%s and %s distinct stacks, tr-fold's lines), peak RSS MB, bytes more per sample added, wall s "
          "(1 run, warm cache); goal: under a sample record's 16 bytes (bounded by the stacks, not the samples)"
          % (a.rates[-1], fmt(ns[0]), fmt(ns[1]), fmt(stacks[0]), fmt(stacks[1])),
          ["reader", "MB", "MB x10", "B/smp", "(<16)", "s", "s x10"], rows)


def main():
    ap = argparse.ArgumentParser(description="tr against perf on the bench/workloads suite (bench/README.md)")
    ap.add_argument("--only", default=",".join(WORKLOADS), help="workloads, comma list (%(default)s)")
    ap.add_argument("--section", default="recorder,symbolize,cat,memory", help="sections, comma list")
    ap.add_argument("--modes", default="fp,dwarf", help="call-graph modes (fp = -g, dwarf)")
    ap.add_argument("--rates", default="999,20000",
                    help="sampling rates in Hz, comma list; 'max' is kernel.perf_event_max_sample_rate; "
                         "the last one also records the symbolize, cat and memory inputs")
    ap.add_argument("--window", type=float, default=1.0,
                    help="seconds of the workload each recorder records (after --ready)")
    ap.add_argument("--ready", type=float, default=1.0,
                    help="seconds perf record gets to start before the stopped workload continues (tr-rec-perf: 0.3)")
    ap.add_argument("--repeats", type=int, default=2, help="repeats of each measurement (median; A B A B)")
    ap.add_argument("--cat-samples", type=int, default=20000,
                    help="samples of the text section (the goal is stated at 1000000)")
    ap.add_argument("--cat-repeats", type=int, default=1)
    ap.add_argument("--mem-samples", default="10000,100000,1000000", help="sample counts of the memory section")
    ap.add_argument("--max-record", type=float, default=10, help="longest recording of the cat and memory sections, s")
    ap.add_argument("--timeout", type=float, default=15, help="a reader run killed past this, s (shown as >S)")
    ap.add_argument("--budget", type=float, default=2,
                    help="a reader measurement is not repeated once its runs took this long, s")
    ap.add_argument("--quick", action="store_true",
                    help="one repeat, fp only, 10k text samples, memory at 10k and 100k, 10 s timeout")
    ap.add_argument("--keep", action="store_true", help="keep the work directory (its path is printed)")
    a = ap.parse_args()
    if a.quick:
        a.repeats, a.modes, a.cat_samples, a.mem_samples, a.timeout = 1, "fp", 10000, "10000,100000", 10
    a.only = [w for w in a.only.split(",") if w]
    bad = [w for w in a.only if w not in WORKLOADS]
    if bad:
        ap.error("unknown workload %s (know %s)" % (",".join(bad), ",".join(WORKLOADS)))
    a.section = a.section.split(",")
    bad = [x for x in a.section if x not in ("recorder", "symbolize", "cat", "memory")]
    if bad:
        ap.error("unknown section %s (know recorder,symbolize,cat,memory)" % ",".join(bad))
    a.modes = a.modes.split(",")
    maxrate = int(open("/proc/sys/kernel/perf_event_max_sample_rate").read())
    a.rates = [maxrate if r == "max" else int(r) for r in a.rates.split(",")]
    a.mem_samples = [int(x) for x in a.mem_samples.split(",")]
    if shutil.which("perf") is None:
        sys.exit("bench-suite: perf is not installed (apt-get install linux-perf)")
    for t in (TRP, TRCAT, TRSYM, TRFOLD, TRFLAME, TRIMPORT):
        if not os.access(t, os.X_OK):
            sys.exit("bench-suite: %s is not built (make bench-suite)" % t)
    tmp = tempfile.mkdtemp(prefix="tr-suite.")
    print("tr bench suite: workloads %s; sections %s; modes %s; rates %s; kernel max rate %d; %s; %s"
          % (",".join(a.only), ",".join(a.section), ",".join(a.modes), ",".join(map(str, a.rates)), maxrate,
             subprocess.run(["perf", "--version"], capture_output=True, text=True).stdout.strip(),
             time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())))
    print("load average at start: %s" % open("/proc/loadavg").read().split()[:3])
    keep = {}
    try:
        if "recorder" in a.section or "symbolize" in a.section:
            if "recorder" not in a.section:  # symbolize alone: record its inputs with one short run
                rec = argparse.Namespace(**vars(a))
                rec.repeats, rec.rates = 1, a.rates[-1:]
                print("(symbolize alone: its inputs recorded by a one-repeat recorder run)")
                section_recorder(rec, tmp, keep)
            else:
                section_recorder(a, tmp, keep)
        if "symbolize" in a.section:
            section_symbolize(a, tmp, keep)
        if "cat" in a.section:
            section_cat(a, tmp)
        if "memory" in a.section:
            section_memory(a, tmp)
            section_memory_flat(a, tmp)
    finally:
        if a.keep:
            print("work directory kept: " + tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print("\ntotal %.0f s; load average at the end: %s" % (time.monotonic() - T0, open("/proc/loadavg").read().split()[:3]))


T0 = time.monotonic()
if __name__ == "__main__":
    main()
