#!/usr/bin/env python3
"""test-doc-examples.py ORTI-PROFD MAKE-EXAMPLE-DB PROGRAM — every command example of
README.md, docs/*.md and the --help texts, run against the example store (make-example-db:
sessions 1-5, task Task0, budgets, events; PROGRAM is the ELF its PC-sampled sessions name).

An example is a line of a code block (or of a --help text) that starts with `orti-profd `.
Its synopsis is expanded: `[…]` groups are left out once and put in one at a time, `a|b|c`
gives one run per alternative (so every documented format, option and flag is run), `…` is
dropped. The user's files and places become the test's: --orti/--elf the rig's demo ORTI and
ELF (examples that need them are skipped, said so, when they are not built), --db the example
store (a fresh copy for each run, each session labelled build-ID for --label; a postgresql://
--db a closed port), a target (--openocd, --swo, push's --to) a closed port,
--http `none` (serve: a free port, stopped once it answers), placeholders (ID, N, A, B, FILE,
PCT, HZ) the store's sessions and files, and values that name the user's own objects
(--idle-value IdleTask, --add Task_10ms=…) the store's or the demo ORTI's. The docs drifted when a run exits 2 (bad input: an option,
a format, a column or a table that no longer exists — the exit-status policy of README "Exit
status"), is killed, or hangs; 0, 1 (a target that is not there, a negative verdict) and 3 are
what an example may do here, and 2 from a shared store that is not there (the closed port:
"cannot connect to", after every option was taken). Every failing example is printed with its source and stderr."""
import os
import re
import shlex
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import urllib.request

exe, make_db, program = (os.path.abspath(a) for a in sys.argv[1:4])
src = os.environ.get("ORTI_SOURCE_DIR") or os.path.join(os.path.dirname(__file__), "..", "..")
build = os.environ.get("ORTI_BUILD_DIR", "")
rig_orti = os.path.join(src, "tests", "rig", "firmware", "demo.ort")
rig_elf = os.path.join(build, "tests", "rig", "firmware", "demo.elf")
rig_trace_elf = os.path.join(build, "tests", "rig", "firmware", "demo-trace-long.elf")
rig_orti2 = os.path.join(src, "tests", "rig", "firmware", "demo-2core.ort")   # both cores,
rig_elf2 = os.path.join(build, "tests", "rig", "firmware", "demo-2core.elf")  # one ELF
have_rig = all(os.path.exists(p) for p in (rig_orti, rig_elf, rig_trace_elf, rig_orti2, rig_elf2))


def closed_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def markdown_examples(path):
    """(where, text) of each example in the code blocks of @path (indented or fenced)."""
    out = []
    lines = open(path, encoding="utf-8").read().split("\n")
    fenced = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("```"):
            fenced = not fenced
            i += 1
            continue
        code = fenced or line.startswith("    ") or line.startswith("\t")
        text = line.strip()
        if text.startswith("$ "):
            text = text[2:]
        start = i
        if code and text.startswith("orti-profd "):
            while text.endswith("\\") and i + 1 < len(lines):
                i += 1
                text = text[:-1] + " " + lines[i].strip()
            for part in re.split(r"\s+/\s+(?=orti-profd )", text):
                out.append((f"{os.path.relpath(path, src)}:{start + 1}", part))
        i += 1
    return out


def help_examples():
    """(where, text) of each line of the --help texts that is a command example."""
    top = subprocess.run([exe, "--help"], capture_output=True, text=True).stdout
    commands = sorted(set(re.findall(r"^\s+orti-profd ([a-z][a-z-]+)", top, re.M)) |
                      set(re.findall(r"^\s{2,}([a-z][a-z-]+)\s{2,}", top, re.M)))
    out = []
    for cmd in [None] + commands:
        args = [exe, "--help"] if cmd is None else [exe, cmd, "--help"]
        text = subprocess.run(args, capture_output=True, text=True)
        lines = (text.stdout + text.stderr).split("\n")
        for n, line in enumerate(lines):
            t = line.strip()
            k = n
            while t.endswith("\\") and k + 1 < len(lines):
                k += 1
                t = t[:-1] + " " + lines[k].strip()
            if t.startswith("$ "):
                t = t[2:]
            m = re.search(r"(?:^|e\.g\.\s+|Example:\s+)(orti-profd [^\n]+)", t)
            if m and not t.startswith("orti-profd COMMAND"):
                out.append((f"orti-profd {cmd or ''} --help:{n + 1}".replace("  ", " "),
                            m.group(1).rstrip(".")))
    return out


def parse(text):
    """The example as items: ('req', [alternatives]) or ('opt', [[tokens] per alternative])."""
    text = re.sub(r"\s#\s.*$", "", text)           # a trailing comment
    text = text.replace("…", " ").replace("...", " ")
    try:
        toks = shlex.split(text)[1:]                # without orti-profd
    except ValueError:                              # a lone backslash, an open quote
        toks = text.split()[1:]
    items, group = [], None
    for t in toks:
        if group is None and t.startswith("["):
            group = []
            t = t[1:]
        if group is not None:
            end = t.endswith("]")
            if end:
                t = t[:-1]
            if t:
                group.append(t)
            if end:
                # [--json|--csv]: alternatives of one flag; [-o FILE]: one option with a value
                if len(group) == 1 and "|" in group[0]:
                    items.append(("opt", [[a] for a in group[0].split("|")]))
                else:
                    alts = [[]]
                    for g in group:
                        if "|" in g and " " not in g and not g.startswith("-"):
                            alts = [a + [x] for a in alts for x in g.split("|")]
                        else:
                            alts = [a + [g] for a in alts]
                    items.append(("opt", alts))
                group = None
            continue
        if "|" in t and " " not in t and not t.startswith("'"):
            items.append(("req", t.split("|")))
        else:
            items.append(("req", [t]))
    return items


def variants(items):
    """Argument lists: the required tokens alone (each alternative), with every optional group
    (their first alternatives: options that go together are run together), and that with each
    other alternative of each group."""
    def build(choice):
        v = []
        for k, (kind, alts) in enumerate(items):
            if kind == "req":
                v += [alts[choice.get(k, 0)]]
            elif k in choice:
                v += alts[choice[k]]
        return v
    out = []
    for k, (kind, alts) in enumerate(items):
        if kind == "req":
            out += [build({k: j}) for j in range(len(alts))]
    out = out or [build({})]
    groups = {k: 0 for k, (kind, _) in enumerate(items) if kind == "opt"}
    if groups:
        out.append(build(groups))
        for k in groups:
            for j in range(1, len(items[k][1])):
                out.append(build({**groups, k: j}))
    seen, unique = set(), []
    for v in out:
        if tuple(v) not in seen:
            seen.add(tuple(v))
            unique.append(v)
    return unique


PLACE = {"ID": "1", "N": "1", "A": "1", "B": "3", "PCT": "10", "NAME": "Task0",
         "TASK": "Task0"}
FILE_OPTS = {"--db": "profile.db", "--budgets": "pass.ini", "--events": "events.txt",
             "--config": "orti-profd.conf"}
OUT_OPTS = {"-o", "--output", "--junit", "--derive-budgets"}
# HZ in a synopsis: a value each option takes
HZ = {"--swo-pin-freq": "2000000", "--core-clock": "168000000", "--pc-sample": "10000",
      "--swo-global-clock": "240000000", "--tick-hz": "1000000"}
# values naming the user's own objects become the demo's
USER_VALUES = {"--idle-value": "0", "--no-isr-value": "0xFF"}


def elf_for(args):
    """The rig's ELF for the example: the one with the orti-trace library for --source rtt."""
    rtt = any(a == "rtt" and i > 0 and args[i - 1] == "--source" for i, a in enumerate(args)) \
        or "--source=rtt" in args
    return rig_trace_elf if rtt else rig_elf


def concrete(args, port):
    """The run's argv, or (None, why) when it cannot run here."""
    argv = []
    cmd = args[0] if args and not args[0].startswith("-") else "run"
    i = 0
    while i < len(args):
        a = args[i]
        opt, val = (a.split("=", 1) + [None])[:2] if a.startswith("--") and "=" in a else (a, None)
        nxt = args[i + 1] if i + 1 < len(args) else None
        takes = nxt is not None and not nxt.startswith("-") and opt.startswith("-")
        if opt in ("--orti", "--elf"):
            if not have_rig:
                return None, "the rig's demo ORTI and ELF are not built"
            if takes and "," in nxt:
                return None, "per-core ORTI files of another ECU"
            two = any("2core" in a for a in args)
            argv += [opt, (rig_orti2 if two else rig_orti) if opt == "--orti"
                     else (rig_elf2 if two else elf_for(args))]
            i += 2 if takes else 1
            continue
        if opt in HZ and takes and not re.match(r"^[0-9]", nxt):
            argv += [opt, HZ[opt]]
            i += 2
            continue
        if opt in ("--add", "--scale", "--period") and takes and "=" in nxt:  # TASK=change
            argv += [opt, "Task0=" + nxt.split("=", 1)[1]]
            i += 2
            continue
        if opt in USER_VALUES and takes:
            argv += [opt, nxt if re.match(r"^(0x)?[0-9a-fA-F]+$", nxt) else USER_VALUES[opt]]
            i += 2
            continue
        if opt in ("--openocd",):
            argv += [opt, f"127.0.0.1:{port}"]
            i += 2 if takes else 1
            continue
        if opt == "--swo":
            argv += [opt, f":{port}"]
            i += 2 if takes else 1
            continue
        if opt == "--to" or (opt == "--db" and takes and nxt.startswith("postgresql://")):
            argv += [opt, f"postgresql://bench@127.0.0.1:{port}/timing"]
            i += 2 if takes else 1
            continue
        if opt == "--label" and cmd in ("check", "diff") and takes:  # a build: A's, then B's
            argv += [opt, "build-1" if opt not in argv else "build-3"]
            i += 2
            continue
        if opt == "--replay":
            return None, "needs a capture of a real target"
        if opt == "--offline":  # tests/e2e/test-swo-offline.sh and swo-cases.py pfp run it
            return None, "needs a raw SWO capture of a real target"
        if opt == "--http":
            argv += [opt, "127.0.0.1:0" if cmd == "serve" else "none"]
            i += 2 if takes else 1
            continue
        if opt in FILE_OPTS and takes:
            argv += [opt, FILE_OPTS[opt]]
            i += 2
            continue
        if opt in OUT_OPTS and takes:  # DIR/ stays a directory of its own under out/
            argv += [opt, os.path.join("out", os.path.basename(nxt.rstrip("/")))
                     + ("/" if nxt.endswith("/") else "")]
            i += 2
            continue
        if opt == "--markdown" and cmd == "check" and takes:
            argv += [opt, os.path.join("out", os.path.basename(nxt))]
            i += 2
            continue
        argv.append(PLACE.get(a, a))
        i += 1
    if cmd == "run" or (argv and argv[0].startswith("-")):
        given = set(argv)
        if "--orti" not in given:
            if not have_rig:
                return None, "the rig's demo ORTI and ELF are not built"
            argv += ["--orti", rig_orti]
        if "--elf" not in given:
            argv += ["--elf", elf_for(args)]
        if "--openocd" not in given:
            argv += ["--openocd", f"127.0.0.1:{port}"]
        if "--http" not in given:
            argv += ["--http", "none"]
        if "--db" not in given:
            argv += ["--db", "new.db"]
    elif cmd == "top" and "--url" in argv:  # a daemon's REST API: a closed port here
        argv[argv.index("--url") + 1] = f"127.0.0.1:{port}"
    elif cmd not in ("inspect", "slice", "push") and "--db" not in argv:
        argv += ["--db", "profile.db"]
    if cmd == "serve" and "--http" not in argv:
        argv += ["--http", "127.0.0.1:0"]
    # the PC-sampled formats are of a --pc-sample session: the store's is session 4
    if cmd == "export" and "--session" in argv and any(
            f == "gmon" or f.startswith("sampled-") for f in argv):
        argv[argv.index("--session") + 1] = "4"
    return argv, None


def run(argv, work):
    cmd = argv[0]
    if cmd == "serve":
        p = subprocess.Popen([exe] + argv, cwd=work, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        err = ""
        try:
            for line in p.stderr:
                err += line
                m = re.search(r"(http://[0-9.:]+)/", line)
                if m:  # it answers before it is stopped
                    with urllib.request.urlopen(m.group(1) + "/api/sessions", timeout=30) as r:
                        r.read()
                    p.send_signal(signal.SIGTERM)
                    break
            out, rest = p.communicate(timeout=30)
            return p.returncode, err + rest
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            return "hung", err
    try:
        r = subprocess.run([exe] + argv, cwd=work, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return "hung", ""
    return r.returncode, r.stderr


def main():
    work = tempfile.mkdtemp(prefix="doc-examples-")
    try:
        subprocess.run([make_db, work, program], check=True)
        pristine = os.path.join(work, "pristine.db")
        shutil.copy(os.path.join(work, "profile.db"), pristine)
        # each session a build of its own, for check's and diff's --label
        with sqlite3.connect(pristine) as db:
            db.execute("UPDATE sessions SET build_label = 'build-' || id")
        db.close()
        examples = []
        for f in ["README.md"] + sorted(os.listdir(os.path.join(src, "docs"))):
            path = os.path.join(src, f) if f == "README.md" else os.path.join(src, "docs", f)
            if f.endswith(".md"):
                examples += markdown_examples(path)
        examples += help_examples()
        if len(examples) < 30:
            print(f"FAIL: only {len(examples)} examples found"); return 1
        port = closed_port()
        ran = failed = 0
        skipped = {}
        for where, text in examples:
            for args in variants(parse(text)):
                argv, why = concrete(args, port)
                if argv is None:
                    skipped.setdefault(why, []).append(where)
                    continue
                shutil.copy(pristine, os.path.join(work, "profile.db"))
                for side in ("new.db", "profile.db-wal", "profile.db-shm"):
                    if os.path.exists(os.path.join(work, side)):
                        os.unlink(os.path.join(work, side))
                status, err = run(argv, work)
                ran += 1
                if status in (0, 1, 3):
                    continue
                # the shared store not there: exit 2 once every option was taken (push, serve,
                # check and diff say so alike: docs/fleet.md)
                if status == 2 and f"cannot connect to bench@127.0.0.1:{port}/timing" in err:
                    continue
                failed += 1
                print(f"FAIL: {where}: {text}\n  ran: orti-profd {shlex.join(argv)}\n"
                      f"  exit status {status}: {err.strip()[:600]}")
        for why, where in skipped.items():
            print(f"skipped ({why}): {', '.join(sorted(set(where)))}")
        print(f"{len(examples)} examples, {ran} runs, {failed} failed")
        return 1 if failed else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


sys.exit(main())
