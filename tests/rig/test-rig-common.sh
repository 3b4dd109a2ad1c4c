# test-rig-common.sh — sourced by the rig's shell tests: locations and small helpers.
# Needs ORTI_SOURCE_DIR and ORTI_BUILD_DIR (meson's test setup sets both).
set -euo pipefail
: "${ORTI_SOURCE_DIR:?run through meson test}" "${ORTI_BUILD_DIR:?run through meson test}"
RUN_RIG=$ORTI_SOURCE_DIR/tests/rig/run-rig
RIG_TCL=$ORTI_BUILD_DIR/tests/rig/rig-tcl
RIG_TRUTH=$ORTI_BUILD_DIR/tests/rig/rig-truth
RIG_ELF=$ORTI_BUILD_DIR/tests/rig/firmware/demo.elf
export ORTI_BUILD_DIR

die() { echo "FAIL: $*" >&2; exit 1; }

# symbol_addr NAME: the address of a firmware symbol, as 0x… (from readelf, any host arch).
symbol_addr() {
  local a
  a=$(readelf -sW "$RIG_ELF" | awk -v n="$1" '$8 == n { print $2; exit }')
  [[ -n $a ]] || die "symbol $1 not in $RIG_ELF"
  echo "0x$a"
}

# rig_processes RAMFILE WORKDIR: live (not zombie) processes naming either path in their
# command line (QEMU, jtag-sim, OpenOCD) or this RAM file in their environment (COMMAND).
rig_processes() {
  local ram=$1 work=$2 f pid state
  for f in $(grep -lzF -e "$ram" -e "$work" /proc/[0-9]*/cmdline 2>/dev/null) \
           $(grep -lzxF "ORTI_RIG_RAM=$ram" /proc/[0-9]*/environ 2>/dev/null); do
    pid=${f#/proc/}; pid=${pid%%/*}
    [[ $pid != "$$" && $pid != "$BASHPID" ]] || continue
    state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$pid/status" 2>/dev/null) || true
    [[ -n $state && $state != Z ]] || continue
    echo "$pid $(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline")"
  done
}

# no_leftovers RAMFILE WORKDIR: fails if the files exist or rig processes still run (a
# process already killed gets a second to disappear).
no_leftovers() {
  local ram=$1 work=$2 left i
  [[ ! -e $ram ]] || die "RAM file $ram left behind"
  [[ ! -e $work ]] || die "work dir $work left behind"
  for ((i = 0; i < 10; i++)); do
    left=$(rig_processes "$ram" "$work")
    [[ -n $left ]] || return 0
    sleep 0.1
  done
  die "processes still run: $left"
}
