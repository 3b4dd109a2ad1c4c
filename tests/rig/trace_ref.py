"""trace_ref.py — helpers for the trace-unit tests (run under run-rig --trace-unit/--swo):
an OpenOCD TCL client, a QMP client, an SWO capture thread, the trace unit's ground truth,
and a small reference decoder of ITM/DWT packets and TPIU formatter frames (ARMv7-M ARM
appendix D4; CoreSight TPIU) written from the specification, independent of the plugin's
encoder, so the tests check the stream against what the architecture says.

Only for tests: the product's decoder lives in probe/ (another issue).
"""
import json
import os
import socket
import subprocess
import threading
import time

# Registers (ARMv7-M).
DEMCR, TRCENA = 0xE000EDFC, 1 << 24
DWT_CTRL, DWT_CYCCNT, DWT_PCSR = 0xE0001000, 0xE0001004, 0xE000101C
ITM_TER, ITM_TCR, ITM_LAR = 0xE0000E00, 0xE0000E80, 0xE0000FB0
TPIU_ACPR, TPIU_SPPR, TPIU_FFCR = 0xE0040010, 0xE00400F0, 0xE0040304
FPGAIO_COUNTER = 0x40028018


def dwt_comp(n):
    return 0xE0001020 + 16 * n


def dwt_mask(n):
    return 0xE0001024 + 16 * n


def dwt_func(n):
    return 0xE0001028 + 16 * n


class Fail(Exception):
    """A test assertion failed."""


def check(cond, msg):
    if not cond:
        raise Fail(msg)


class Tcl:
    """OpenOCD TCL RPC client: `cmd\\x1a` in, `result\\x1a` out (no error flag: wrapped)."""

    def __init__(self, port=None):
        port = int(port or os.environ["ORTI_RIG_TCL_PORT"])
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.buf = b""

    def raw(self, cmd):
        self.sock.sendall(cmd.encode() + b"\x1a")
        while b"\x1a" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise Fail("OpenOCD closed the TCL connection")
            self.buf += chunk
        reply, _, self.buf = self.buf.partition(b"\x1a")
        return reply.decode()

    def __call__(self, cmd):
        """Runs `cmd`; raises Fail with OpenOCD's message when it fails."""
        r = self.raw("list [catch {%s} r] $r" % cmd)
        code, _, rest = r.partition(" ")
        if code != "0":
            raise Fail(f"OpenOCD `{cmd}` failed: {rest}")
        return rest[1:-1] if rest.startswith("{") and rest.endswith("}") else rest

    def read32(self, addr):
        return int(self(f"read_memory 0x{addr:08x} 32 1"), 16)

    def write32(self, addr, value):
        self(f"write_memory 0x{addr:08x} 32 {{0x{value & 0xFFFFFFFF:08x}}}")

    def halt(self):
        target = core_target()
        if target is None:
            self("halt")
            check(self("[target current] curstate") == "halted", "target did not halt")
        else:  # OpenOCD 0.12 has no per-target halt: make the core current for it
            self(f"targets {target}; halt; targets {os.environ['ORTI_RIG_TARGET0']}")
            check(self(f"{target} curstate") == "halted", f"{target} did not halt")

    def resume(self):
        target = core_target()
        if target is None:
            self("resume")
        else:
            self(f"targets {target}; resume; targets {os.environ['ORTI_RIG_TARGET0']}")


def core_target():
    """The OpenOCD target of the core under test, ORTI_RIG_CORE=1 on a two-core rig (run-rig
    --cores 2); None for core 0 / a one-core rig (the current target)."""
    if os.environ.get("ORTI_RIG_CORE", "0") == "0":
        return None
    check(os.environ.get("ORTI_RIG_CORES") == "2", "ORTI_RIG_CORE=1 needs run-rig --cores 2")
    return os.environ["ORTI_RIG_TARGET1"]


class Qmp:
    """QEMU QMP client (the rig's spare QMP socket): human monitor commands."""

    def __init__(self, path=None):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path or os.environ["ORTI_RIG_QMP"])
        self.f = self.sock.makefile("rwb")
        self._read()
        self.execute("qmp_capabilities")

    def _read(self):
        while True:
            msg = json.loads(self.f.readline())
            if "event" not in msg:
                return msg

    def execute(self, cmd, **args):
        req = {"execute": cmd}
        if args:
            req["arguments"] = args
        self.f.write(json.dumps(req).encode() + b"\n")
        self.f.flush()
        msg = self._read()
        if "error" in msg:
            raise Fail(f"QMP {cmd}: {msg['error']}")
        return msg["return"]

    def read_phys32(self, addr):
        out = self.execute("human-monitor-command", **{"command-line": f"xp /1wx 0x{addr:x}"})
        return int(out.split(":")[1].split()[0], 16)

    def close(self):
        self.f.close()
        self.sock.close()


def board_now(core=None):
    """The board timer (the FPGAIO counter, at ORTI_RIG_TICK_HZ) of @core (default the core
    under test, ORTI_RIG_CORE), through its QEMU's spare QMP socket (the simulated probe maps
    no MMIO); on a halted core, the board time of the halt: its virtual clock stops with it."""
    core = int(os.environ.get("ORTI_RIG_CORE", "0")) if core is None else core
    qmp = Qmp(os.environ["ORTI_RIG_QMP1" if core == 1 else "ORTI_RIG_QMP"])
    try:
        return qmp.read_phys32(FPGAIO_COUNTER)
    finally:
        qmp.close()


class SwoCapture:
    """Collects the SWO byte stream from ORTI_RIG_SWO_PORT in a thread."""

    def __init__(self, port=None):
        port = int(port or os.environ["ORTI_RIG_SWO_PORT"])
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock.settimeout(0.2)
        self.data = bytearray()
        self.lock = threading.Lock()
        self.stop_flag = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        time.sleep(0.1)  # the plugin's server accepts within a millisecond or two

    def _run(self):
        while not self.stop_flag:
            try:
                chunk = self.sock.recv(1 << 16)
            except socket.timeout:
                continue
            if not chunk:
                break
            with self.lock:
                self.data += chunk

    def size(self):
        with self.lock:
            return len(self.data)

    def settle(self, quiet=0.3, limit=20.0):
        """Waits until no byte arrived for `quiet` seconds (the target is halted)."""
        end = time.time() + limit
        last, since = -1, time.time()
        while time.time() < end:
            n = self.size()
            if n != last:
                last, since = n, time.time()
            elif time.time() - since >= quiet:
                break
            time.sleep(0.05)

    def stop(self):
        self.stop_flag = True
        self.thread.join()
        self.sock.close()
        return bytes(self.data)


def truth(watch_log=False, shm=None):
    """The trace unit's ground truth (rig-trace-truth) as a dict; `shm`: that page (a two-core
    rig: ORTI_RIG_TRACE_SHM1 for core 1) instead of ORTI_RIG_TRACE_SHM."""
    exe = os.path.join(os.environ["ORTI_RIG_BUILD_DIR"], "tests/rig/rig-trace-truth")
    args = [exe] + (["--watch-log"] if watch_log else []) + ([shm] if shm else [])
    return json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)


def exc_counts(t):
    """{number: (entries, exits, returns_to)} from a truth dict."""
    return {e["number"]: (e["entries"], e["exits"], e["returns_to"]) for e in t["exceptions"]}


def func_insns(t):
    """{function name: instructions over all contexts} from a truth dict."""
    out = {}
    for c in t["contexts"]:
        for name, n in c["functions"].items():
            out[name] = out.get(name, 0) + n
    return out


def function_at(t, pc):
    """The ELF function holding `pc` (from the truth's function table), or None."""
    for f in t["functions"]:
        if f["addr"] <= pc < f["addr"] + f["size"]:
            return f["name"]
    return None


# ---- reference decoders ----

def deframe_ids(data):
    """The source IDs (non-zero) that own bytes in a formatter stream."""
    ids = set()
    i = data.find(b"\xff\xff\xff\x7f")
    while 0 <= i and i + 16 <= len(data):
        if data[i:i + 4] == b"\xff\xff\xff\x7f":
            i += 4
            continue
        ids.update(data[i + 2 * k] >> 1 for k in range(8) if data[i + 2 * k] & 1)
        i += 16
    ids.discard(0)
    return ids


def deframe(data, want_id):
    """TPIU formatter: 16-byte frames after a full sync FF FF FF 7F; returns the bytes of
    source `want_id`. Raises Fail if no sync is found."""
    i = data.find(b"\xff\xff\xff\x7f")
    check(i >= 0, "formatter on but no frame sync in the stream")
    out = bytearray()
    cur = None
    i += 4
    while i + 16 <= len(data):
        if data[i:i + 4] == b"\xff\xff\xff\x7f":
            i += 4
            continue
        f = data[i:i + 16]
        aux = f[15]
        for k in range(8):
            b = f[2 * k]
            delayed = None
            if b & 1:
                if (aux >> k) & 1:
                    delayed = b >> 1
                else:
                    cur = b >> 1
            elif cur == want_id:
                out.append(b | ((aux >> k) & 1))
            if k < 7 and cur == want_id:
                out.append(f[2 * k + 1])
            if delayed is not None:
                cur = delayed
        i += 16
    return bytes(out)


def decode_itm(data):
    """ITM/DWT packets of a stream that starts at a packet boundary. Returns a list of dicts
    {"kind", ..., "t"}: t = the local timestamp that follows the packet (cycles since the
    first LTS's reference, accumulated; None when timestamps are off). Global timestamps
    (D4.2.5) become {"kind": "gts", "value": TS[47:0], "t": the LTS just before it} once a
    GTS2 has given the high bits: GTS1 `94` + 1..4 bytes replaces TS[7n-1:0] (n = 4: TS[25:0],
    its last byte's bit 5 ClkCh, bit 6 Wrap: a GTS2 follows), GTS2 `B4` + 4 bytes TS[47:26].
    A packet cut by the end of the capture is left out. Raises Fail on a byte the
    architecture does not define."""
    pkts, pending, ts, i = [], [], 0, 0
    g_lo, g_hi, g_wait = 0, None, False
    n = len(data)
    while i < n:
        b = data[i]
        if b & 0xDF == 0x94:  # global timestamp 1 (0x94) or 2 (0xB4)
            vals, j = [], i + 1
            while j < n and len(vals) < 6:
                vals.append(data[j])
                j += 1
                if vals[-1] & 0x80 == 0:
                    break
            if j >= n and (not vals or vals[-1] & 0x80):
                break  # cut by the end of the capture
            i = j
            if b == 0x94:
                check(len(vals) <= 4, "GTS1 longer than 4 payload bytes")
                v = 0
                for k, c in enumerate(vals):
                    v |= (c & (0x1F if k == 3 else 0x7F)) << (7 * k)
                bits = 26 if len(vals) == 4 else 7 * len(vals)
                g_lo = (g_lo & ~((1 << bits) - 1) & 0x3FFFFFF) | v
                g_wait = len(vals) == 4 and bool(vals[3] & 0x40)
                pkts.append({"kind": "gts1", "bytes": len(vals), "wrap": g_wait,
                             "clkch": len(vals) == 4 and bool(vals[3] & 0x20), "t": ts})
            else:
                check(len(vals) in (4, 6), f"GTS2 of {len(vals)} payload bytes")
                g_hi = 0
                for k, c in enumerate(vals):
                    g_hi |= (c & 0x7F) << (7 * k)
                g_wait = False
            if g_hi is not None and not g_wait:
                pkts.append({"kind": "gts", "value": (g_hi << 26) | g_lo, "t": ts})
            continue
        if b == 0x00:
            j = i
            while j < n and data[j] == 0:
                j += 1
            if j == n:
                break  # stream ends inside a sync
            check(data[j] == 0x80 and j - i >= 5, f"bad sync at byte {i}")
            pkts.append({"kind": "sync", "t": None})
            i = j + 1
            continue
        if b == 0x70:
            pkts.append({"kind": "overflow", "t": None})
            i += 1
            continue
        if b & 0x0F == 0x00:  # local timestamp
            if b & 0x80 == 0:
                delta, i = (b >> 4) & 7, i + 1
            else:
                check(b & 0xC0 == 0xC0, f"global timestamp 0x{b:02x} at {i}: not emitted")
                delta, shift, j = 0, 0, i + 1
                while j < n:
                    c = data[j]
                    delta |= (c & 0x7F) << shift
                    shift += 7
                    j += 1
                    if c & 0x80 == 0:
                        break
                else:
                    break  # the capture ends inside this timestamp
                i = j
            ts += delta
            for p in pending:
                p["t"] = ts
            pending = []
            continue
        check(b & 0x0B != 0x08, f"extension packet 0x{b:02x} at {i}: not emitted")
        size = {1: 1, 2: 2, 3: 4}[b & 3] if b & 3 else None
        check(size is not None, f"reserved header 0x{b:02x} at {i}")
        if i + 1 + size > n:
            break
        v = int.from_bytes(data[i + 1:i + 1 + size], "little")
        if b & 4:
            hid = b >> 3
            if hid == 0:
                p = {"kind": "event", "value": v}
            elif hid == 1:
                p = {"kind": "exception", "number": v & 0x1FF, "fn": (v >> 12) & 3}
            elif hid == 2:
                p = {"kind": "pc", "pc": v if size == 4 else None, "sleep": size == 1}
            elif 8 <= hid <= 15:
                p = {"kind": "data_addr" if hid & 1 else "data_pc", "comp": (hid >> 1) & 3,
                     "value": v}
            elif 16 <= hid <= 23:
                p = {"kind": "data_value", "comp": (hid >> 1) & 3, "write": hid & 1,
                     "value": v, "size": size}
            else:
                raise Fail(f"hardware source id {hid} at {i}")
        else:
            p = {"kind": "stim", "port": b >> 3, "value": v, "size": size}
        p["t"] = None
        pkts.append(p)
        pending.append(p)
        i += 1 + size
    return pkts
