#!/usr/bin/env bash
# test-rig-updown.sh — the rig comes up and goes down 20 times with nothing left behind, passes
# COMMAND's exit status through, and tears down on SIGTERM, on Ctrl-C (SIGINT to the process
# group) and even on SIGKILL (watchdog).
source "$(dirname "$0")/test-rig-common.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

record='echo "$ORTI_RIG_RAM $(dirname "$ORTI_RIG_QMP")" >"$0"'
for i in $(seq 1 20); do
  "$RUN_RIG" -- sh -c "$record" "$tmp/paths" || die "run $i: run-rig failed"
  read -r ram work <"$tmp/paths" || die "run $i: COMMAND did not run"
  no_leftovers "$ram" "$work"
  rm -f "$tmp/paths"
done
echo "20 up/down cycles: nothing left behind"

# A COMMAND that leaves a background child behind: run-rig stops it too.
"$RUN_RIG" -- sh -c "$record"'; sleep 60 & exit 0' "$tmp/paths" || die "run-rig failed"
read -r ram work <"$tmp/paths" || die "background child run: COMMAND did not run"
no_leftovers "$ram" "$work"
echo "COMMAND's background child: stopped"

"$RUN_RIG" -- sh -c 'exit 7' && die "exit status 0 instead of 7"
status=0; "$RUN_RIG" -- sh -c 'exit 7' || status=$?
[[ $status == 7 ]] || die "COMMAND exit status 7 came back as $status"
"$RUN_RIG" -- sh -c '"$1" --port "$ORTI_RIG_TCL_PORT" "[target current] curstate" | grep -qx running' \
  _ "$RIG_TCL" || die "curstate is not running inside COMMAND"

# SIGTERM and SIGKILL while COMMAND runs.
for sig in TERM KILL; do
  rm -f "$tmp/paths"
  "$RUN_RIG" -- sh -c "$record"'; exec sleep 60' "$tmp/paths" 2>/dev/null &
  rig=$!
  for _ in $(seq 1 600); do [[ -s $tmp/paths ]] && break; sleep 0.05; done
  read -r ram work <"$tmp/paths" || die "SIG$sig: the rig did not come up"
  kill -"$sig" "$rig"
  wait "$rig" 2>/dev/null || true
  for _ in $(seq 1 100); do   # the watchdog polls twice a second
    [[ -e $ram || -e $work ]] || break
    sleep 0.1
  done
  sleep 0.5
  no_leftovers "$ram" "$work"
  echo "SIG$sig: torn down"
done

# Ctrl-C: SIGINT to run-rig's whole process group, as a terminal sends it. (Started from
# Python because bash starts background jobs with SIGINT ignored.)
rm -f "$tmp/paths"
python3 - "$RUN_RIG" "$tmp/paths" "$record" <<'PY' || die "SIGINT: run-rig did not exit 130"
import os, signal, subprocess, sys, time
run_rig, paths, record = sys.argv[1:]
p = subprocess.Popen([run_rig, "--", "sh", "-c", record + "; exec sleep 60", paths],
                     start_new_session=True, stderr=subprocess.DEVNULL)
deadline = time.time() + 60
while not (os.path.exists(paths) and os.path.getsize(paths)) and time.time() < deadline:
    time.sleep(0.05)
os.killpg(p.pid, signal.SIGINT)
sys.exit(0 if p.wait(timeout=30) == 130 else 1)
PY
read -r ram work <"$tmp/paths" || die "SIGINT: the rig did not come up"
no_leftovers "$ram" "$work"
echo "SIGINT: torn down"

# jtag-sim outlives a client killed with a reply on its way (OpenOCD killed -9 mid-scan, as
# test-probe-faults does): the write's SIGPIPE once ended it, and a restarted OpenOCD found no
# one listening. 20 clients send 200 k TDO reads each and close without reading one.
truncate -s 16M "$tmp/ram.bin"
python3 - "$ORTI_BUILD_DIR/tests/rig/jtag-sim" "$tmp/ram.bin" "$RIG_ELF" "$tmp/sim.sock" <<'PY' ||
import os, socket, subprocess, sys, time
sim, ram, elf, path = sys.argv[1:]
p = subprocess.Popen([sim, "--ram", ram, "--elf", elf, "--unix", path], stderr=subprocess.DEVNULL)
for _ in range(100):
    if os.path.exists(path):
        break
    time.sleep(0.05)
try:
    for i in range(20):
        s = socket.socket(socket.AF_UNIX)
        s.connect(path)
        s.sendall(b"R" * 200000)
        s.close()
        time.sleep(0.02)
        if p.poll() is not None:
            print(f"jtag-sim ended (status {p.returncode}) after {i + 1} killed clients")
            sys.exit(1)
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    s.sendall(b"RQ")
    reply = s.recv(16)
    s.close()
    print(f"jtag-sim served a new client after 20 killed ones: {reply!r}")
    sys.exit(0 if len(reply) == 1 else 1)
finally:
    p.kill()
PY
  die "jtag-sim did not survive its clients"
