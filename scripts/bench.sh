#!/usr/bin/env bash
# Core benchmark: builds the benchmark programs of tests/programs/bench (fib(32), a 100M-iteration
# LCG loop, an array-update loop) with the project's runtime, runs each on q7emu (dc233c and
# ncore2gp profiles, cycle accounting on), on qemu-system-xtensa -M sim (same ELF) and on
# qemu-xtensa (linux-user build of the same source), checks that the exit codes agree, and
# prints MIPS and the q7emu/QEMU ratios. QEMU's MIPS use q7emu's instruction count for the same
# program (QEMU does not count instructions). Times are whole-process wall times, each the best
# of Q7EMU_BENCH_REPEAT runs (default 5) for q7emu and qemu-system alike, taken in turns, as
# shared hosts add noise in one direction only.
#
# Then runs the main job, the committed 8-core ReLU kernel, through `q7emu run` on 1 and on 2
# host threads and prints their wall times, aggregate MIPS and the 2-thread / 1-thread ratio;
# and checked mode's cost: two ReLU kernels run plain and with --check; and the calls per
# second of ops from Python, kept loaded against set up per call (scripts/bench_calls.py).
#
# Gates only on correctness and on ratios measured side by side in this run, never on an
# absolute MIPS figure (shared hosts run the same binary at very different speeds): fails when the
# guest's exit status disagrees with QEMU's, or when q7emu's speed relative to qemu-system-xtensa
# on the same ELF falls below the program's floor in RATIO_FLOOR (override all with
# Q7EMU_BENCH_MIN_RATIO), or when the ReLU run fails, its output is not the committed expected
# one, or 2 threads run it less than THREAD_FLOOR times as fast as 1 (below). The floors sit
# under the ratios seen with tier 2 on this kind of shared host (fib x1.6-3.5, array x15-22,
# lcg x0.95-1.05, the loop QEMU compiles best) and under those seen with the host loaded 4x
# over: they catch a collapse, not noise.
set -euo pipefail
cd "$(dirname "$0")/.."
PREFIX=${Q7EMU_XTENSA_PREFIX:-$HOME/.cache/xtensa-dc233c}
export PATH=$PREFIX/bin:$PATH
command -v xtensa-elf-gcc >/dev/null || { echo "bench.sh: run scripts/setup-toolchain.sh first" >&2; exit 1; }
cargo build --release -q -p q7-host
RT=examples/bare-metal/rt
# The benchmark programs need only the 32-bit division helpers. Linking no more keeps their
# code and data where they have been measured: QEMU's speed on `array` depends on whether its
# array shares a page with the code (self-modifying-code checks), and the floors assume it does.
H=examples/sdk/rt/helpers
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
REPEAT=${Q7EMU_BENCH_REPEAT:-5}
declare -A RATIO_FLOOR=([fib]=0.7 [lcg]=0.8 [array]=1.0)
status=0
now() { date +%s.%N; }
# Each program also runs with --jit off (the interpreter alone, docs/jit.md) and the report's
# counters must equal tier 2's; "tier1MIPS" and "jit" (tier 2 / tier 1 speed, side by side)
# are printed, and the jit ratio must reach JIT_FLOOR (Q7EMU_BENCH_MIN_JIT_RATIO overrides all).
declare -A JIT_FLOOR=([fib]=0.7 [lcg]=6.0 [array]=1.0)
printf '%-6s %-9s %12s %8s %7s %10s %6s %10s %6s %10s %5s %s\n' program profile instructions seconds MIPS sysMIPS ratio userMIPS ratio tier1MIPS jit exit
for p in fib lcg array; do
  xtensa-elf-gcc -O2 -ffreestanding -nostdlib -fno-builtin -I$RT -T $RT/link.ld \
    -Wl,--no-warn-rwx-segments -o "$OUT/$p.elf" $RT/crt0.S $RT/vectors.S $H/int32.S $RT/memsum.c \
    tests/programs/bench/$p.c
  xtensa-elf-gcc -O2 -ffreestanding -nostdlib -static -fno-builtin -T $RT/user/link.ld \
    -o "$OUT/$p-user.elf" $RT/user/crt0.S $H/int32.S tests/programs/bench/$p.c
  t0=$(now)
  set +e
  timeout 600 qemu-xtensa -cpu dc233c "$OUT/$p-user.elf"
  urc=$?
  set -e
  usec=$(echo "$(now) - $t0" | bc -l)
  # qemu-system and q7emu (both profiles, tier 2 and the interpreter alone) take turns, one
  # run of each per round, so that a noisy spell of the shared host falls on all of them.
  declare -A best=() code=()
  for _ in $(seq "$REPEAT"); do
    for run in qemu dc233c dc233c-t1 ncore2gp ncore2gp-t1; do
      case $run in
        qemu) cmd=(timeout 600 qemu-system-xtensa -M sim -cpu dc233c -semihosting -display none
          -serial none -monitor none -kernel "$OUT/$p.elf") ;;
        *-t1) cmd=(./target/release/q7emu run-elf --jit off --profile "${run%-t1}"
          --json-file "$OUT/$p-$run.json" "$OUT/$p.elf") ;;
        *) cmd=(./target/release/q7emu run-elf --profile "$run" --json-file "$OUT/$p-$run.json"
          "$OUT/$p.elf") ;;
      esac
      t0=$(now)
      set +e
      "${cmd[@]}" >/dev/null 2>&1
      code[$run]=$?
      set -e
      s=$(echo "$(now) - $t0" | bc -l)
      if [ -z "${best[$run]:-}" ] || [ "$(echo "$s < ${best[$run]}" | bc -l)" = 1 ]; then best[$run]=$s; fi
    done
  done
  qsec=${best[qemu]}
  qrc=${code[qemu]}
  for profile in dc233c ncore2gp; do
    sec=${best[$profile]}
    sec1=${best[$profile-t1]}
    rc=${code[$profile]}
    same=$(python3 -c "
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
print(all(a[k] == b[k] for k in ('instructions', 'cycles', 'exit_code', 'stats', 'fault')))" "$OUT/$p-$profile.json" "$OUT/$p-$profile-t1.json")
    insns=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['instructions'])" "$OUT/$p-$profile.json")
    # The guest's own exit status (run-elf maps a status over 127 to exit code 128, README
    # "Exit codes"); QEMU's process status is the guest's mod 256.
    guest=$(python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['exit_code']; print('fault' if c is None else c % 256)" "$OUT/$p-$profile.json")
    mips=$(echo "$insns / $sec / 1000000" | bc -l)
    qmips=$(echo "$insns / $qsec / 1000000" | bc -l)
    umips=$(echo "$insns / $usec / 1000000" | bc -l)
    ratio=$(echo "$mips / $qmips" | bc -l)
    uratio=$(echo "$mips / $umips" | bc -l)
    verdict="q7emu $guest (exit $rc), qemu-system $qrc, qemu-user $urc"
    if [ "$guest" != "$qrc" ] || [ "$guest" != "$urc" ]; then
      verdict="$verdict MISMATCH"
      status=1
    fi
    floor=${Q7EMU_BENCH_MIN_RATIO:-${RATIO_FLOOR[$p]}}
    if [ "$(echo "$ratio < $floor" | bc -l)" = 1 ]; then
      verdict="$verdict RATIO BELOW x$floor"
      status=1
    fi
    t1mips=$(echo "$insns / $sec1 / 1000000" | bc -l)
    jratio=$(echo "$mips / $t1mips" | bc -l)
    jfloor=${Q7EMU_BENCH_MIN_JIT_RATIO:-${JIT_FLOOR[$p]}}
    if [ "$same" != True ]; then
      verdict="$verdict TIERS DIFFER"
      status=1
    fi
    if [ "$(echo "$jratio < $jfloor" | bc -l)" = 1 ]; then
      verdict="$verdict JIT RATIO BELOW x$jfloor"
      status=1
    fi
    printf '%-6s %-9s %12d %8.3f %7.1f %10.1f %6.2f %10.1f %6.2f %10.1f %5.2f %s\n' $p $profile "$insns" "$sec" "$mips" "$qmips" "$ratio" "$umips" "$uratio" "$t1mips" "$jratio" "$verdict"
  done
done

# The main job: the committed 8-core ReLU (examples/kernels/relu_multicore) on its committed
# input through `q7emu run --json`, on 1 and on 2 host threads (--threads), the two alternating
# so that both see the same host load; each the best of THREAD_REPEAT runs (default 10,
# Q7EMU_BENCH_THREAD_REPEAT overrides: a dispatch lasts tens of milliseconds, so one busy moment
# of a shared host spoils a run, and the best of many finds the quiet ones). Wall time is the
# dispatch's (the report's wall_seconds), aggregate MIPS all cores' instructions over it.
# Gates on correctness (the exit code, the output byte for byte equal to the committed
# expected.npy, and instructions and cycles equal on both thread counts) and on the 2-thread /
# 1-thread speed ratio measured side by side here, never on an absolute time: it must reach
# THREAD_FLOOR (Q7EMU_BENCH_MIN_THREAD_RATIO overrides). On a quiet 2-core host the ratio is
# close to 2; the floor sits well under it, so a loaded host passes and a serialised pool fails.
K=examples/kernels/relu_multicore
THREAD_FLOOR=${Q7EMU_BENCH_MIN_THREAD_RATIO:-1.2}
THREAD_REPEAT=${Q7EMU_BENCH_THREAD_REPEAT:-10}
# The ten runs of each thread count take well under a second, so one busy spell of the shared
# host (another tenant's burst) can fall on all of them: a ratio under the floor is measured
# again, up to THREAD_ATTEMPTS times in all, a few seconds apart, and fails only when every
# attempt is under it (a serialised pool is under it every time).
THREAD_ATTEMPTS=${Q7EMU_BENCH_THREAD_ATTEMPTS:-3}
printf '\n%-16s %5s %7s %12s %15s %8s %7s %s\n' kernel cores threads instructions max-cycles/core seconds MIPS verdict
counters() {
  python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
print(len(r['cores']), r['instructions'], max(c['cycles'] for c in r['cores']),
      ','.join(str(c['cycles']) for c in r['cores']))" "$1"
}
# The best wall time of THREAD_REPEAT runs on 1 and on 2 threads, alternating, into `best`;
# `verdict` set when a run fails or its output or counters are wrong.
measure_threads() {
  best=()
  verdict=
  for _ in $(seq "$THREAD_REPEAT"); do
    for threads in 1 2; do
      rm -f "$OUT/relu.npy"
      set +e
      ./target/release/q7emu run $K/build --op relu_forward --input $K/input.npy \
        --threads $threads --output "$OUT/relu.npy" --json >"$OUT/relu-$threads.json"
      rc=$?
      set -e
      if [ "$rc" != 0 ]; then
        verdict="q7emu run --threads $threads exit $rc FAILED"
        return
      fi
      if ! cmp -s "$OUT/relu.npy" $K/expected.npy; then
        verdict="--threads $threads: output differs from expected.npy FAILED"
        return
      fi
      s=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['wall_seconds'])" "$OUT/relu-$threads.json")
      if [ -z "${best[$threads]:-}" ] || [ "$(echo "$s < ${best[$threads]}" | bc -l)" = 1 ]; then best[$threads]=$s; fi
    done
  done
  if [ "$(counters "$OUT/relu-1.json")" != "$(counters "$OUT/relu-2.json")" ]; then
    verdict="instructions or cycles differ between --threads 1 and 2 FAILED"
  fi
}
declare -A best=()
declare -A mips=()
for attempt in $(seq "$THREAD_ATTEMPTS"); do
  measure_threads
  if [ -n "$verdict" ]; then
    status=1
    printf '%-16s %5s %7s %12s %15s %8s %7s %s\n' relu_multicore 8 - - - - - "$verdict"
    break
  fi
  for threads in 1 2; do
    read -r cores insns cycles _ < <(counters "$OUT/relu-$threads.json")
    mips[$threads]=$(echo "$insns / ${best[$threads]} / 1000000" | bc -l)
    printf '%-16s %5d %7d %12d %15d %8.3f %7.1f %s\n' relu_multicore "$cores" "$threads" "$insns" "$cycles" \
      "${best[$threads]}" "${mips[$threads]}" "exit 0, output = expected.npy"
  done
  ratio=$(echo "${mips[2]} / ${mips[1]}" | bc -l)
  tverdict="threads 2 / threads 1 = x$(printf '%.2f' "$ratio") (floor x$THREAD_FLOOR)"
  if [ "$(echo "$ratio >= $THREAD_FLOOR" | bc -l)" = 1 ]; then
    echo "relu_multicore: $tverdict"
    break
  fi
  if [ "$attempt" -lt "$THREAD_ATTEMPTS" ]; then
    echo "relu_multicore: $tverdict, attempt $attempt of $THREAD_ATTEMPTS: measuring again"
    sleep 3
  else
    echo "relu_multicore: $tverdict THREAD RATIO BELOW x$THREAD_FLOOR (every attempt)"
    status=1
  fi
done

# Tier 2 on kernels (docs/jit.md): the element-accessor ReLU (an HBM access through the
# accessor per element) and the 8-core ReLU, each run with --jit off and on, alternating, the
# best of JIT_REPEAT runs (default 5, Q7EMU_BENCH_JIT_REPEAT overrides). Gates on correctness (exit
# 0, output = expected.npy, the same instructions and cycles on every core in both tiers) and
# on the tier 2 / interpreter speed ratio measured side by side: at least the kernel's
# KERNEL_JIT_FLOOR (Q7EMU_BENCH_MIN_KERNEL_JIT_RATIO overrides both). A run is one process, the
# element ReLU's a fifth of its instructions interpreted before its blocks reach the tier-up
# count (docs/jit.md "Tier-up"): on this kind of shared host the ratio is x2.7 for the element
# ReLU and about x1 for the 13 ms 8-core ReLU (whose blocks mostly stay below the count), so
# the floors, x1.5 and x0.5, catch a regression of tier 2 on the first and a collapse on the
# second. Calls on a library kept loaded, which run compiled from their start, are gated by
# scripts/bench_calls.py below.
#
# Then a kernel whose every float operation is a call into the SDK's software floating point,
# as in the published kernels (RWKV-5, GIoU): `exp_each` of examples/kernels/elementwise_math
# on 1 M floats (some 4 s interpreted, one core), whose two tiers' outputs must be the same
# bytes. It measures x5.7 to x6.5 on these hosts; its floor, x3, catches a regression of tier 2
# on such code, which the ReLUs hardly run.
declare -A KERNEL_JIT_FLOOR=([relu_element]=1.5 [relu_multicore]=0.5 [exp_each]=3)
JIT_REPEAT=${Q7EMU_BENCH_JIT_REPEAT:-5}
# 1 M float32 from -20 to 20 in equal steps, as a .npy file (the standard library only).
python3 - "$OUT/exp-in.npy" <<'PY'
import array, struct, sys
n = 1 << 20
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % n
header += " " * (63 - (10 + len(header)) % 64) + "\n"
data = array.array("f", (-20 + 40 * i / (n - 1) for i in range(n)))
assert data.itemsize == 4 and sys.byteorder == "little"
with open(sys.argv[1], "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    data.tofile(f)
PY
printf '\n%-16s %10s %10s %7s %s\n' kernel tier1-s tier2-s ratio verdict
for k in relu_element relu_multicore exp_each; do
  expected=examples/kernels/relu_multicore/expected.npy
  args=(examples/kernels/$k/build --op relu_forward --input examples/kernels/relu_multicore/input.npy --threads 2 --json)
  if [ $k = exp_each ]; then
    # No committed expected output: tier 2's must be tier 1's, as for every kernel (below).
    expected=
    args=(examples/kernels/elementwise_math/build --op exp_each --input "$OUT/exp-in.npy" --json)
  fi
  declare -A jbest=()
  jverdict=
  for _ in $(seq "$JIT_REPEAT"); do
    for jit in off on; do
      rm -f "$OUT/$k-$jit.npy"
      set +e
      ./target/release/q7emu run "${args[@]}" --jit $jit --output "$OUT/$k-$jit.npy" >"$OUT/$k-jit-$jit.json" 2>"$OUT/$k-jit-$jit.err"
      rc=$?
      set -e
      if [ "$rc" != 0 ]; then
        jverdict="--jit $jit exit $rc FAILED"
        break 2
      fi
      if [ -n "$expected" ] && ! cmp -s "$OUT/$k-$jit.npy" "$expected"; then
        jverdict="--jit $jit: output differs from expected.npy FAILED"
        break 2
      fi
      s=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['wall_seconds'])" "$OUT/$k-jit-$jit.json")
      if [ -z "${jbest[$jit]:-}" ] || [ "$(echo "$s < ${jbest[$jit]}" | bc -l)" = 1 ]; then jbest[$jit]=$s; fi
    done
  done
  if [ -z "$jverdict" ] && [ "$(counters "$OUT/$k-jit-off.json")" != "$(counters "$OUT/$k-jit-on.json")" ]; then
    jverdict="instructions or cycles differ between --jit off and on FAILED"
  fi
  if [ -z "$jverdict" ] && ! cmp -s "$OUT/$k-off.npy" "$OUT/$k-on.npy"; then
    jverdict="outputs differ between --jit off and on FAILED"
  fi
  if [ -n "$jverdict" ]; then
    status=1
    printf '%-16s %10s %10s %7s %s\n' $k - - - "$jverdict"
    continue
  fi
  jr=$(echo "${jbest[off]} / ${jbest[on]}" | bc -l)
  jverdict="counters equal, output = expected.npy"
  [ -n "$expected" ] || jverdict="counters and outputs equal"
  kfloor=${Q7EMU_BENCH_MIN_KERNEL_JIT_RATIO:-${KERNEL_JIT_FLOOR[$k]}}
  if [ "$(echo "$jr < $kfloor" | bc -l)" = 1 ]; then
    jverdict="$jverdict JIT RATIO BELOW x$kfloor"
    status=1
  fi
  printf '%-16s %10.3f %10.3f %7.2f %s\n' $k "${jbest[off]}" "${jbest[on]}" "$jr" "$jverdict"
done

# Checked mode's cost (docs/checked-mode.md "Cost"): the 8-core ReLU (TCM accessors, 2 host
# threads) and the element-accessor ReLU (one core, an HBM access per element) each run plain
# and with --check, alternating, the best of CHECK_REPEAT runs of each (default 9,
# Q7EMU_BENCH_CHECK_REPEAT overrides). Gates on correctness (exit 0, no finding: both are correct
# kernels; the same instructions and cycles) and on the checked / plain wall-time ratio
# measured side by side here: at most CHECK_CEILING (Q7EMU_BENCH_MAX_CHECK_RATIO overrides; the
# issue's bound is 3x, quiet-host ratios are about 1.5x and 1.25x).
#
# The profiler's cost (docs/profiling.md "Determinism and cost") is measured the same way, with
# --profile DIR: the same counts as the plain run, a profile that adds up to them, and the
# profiled / plain ratio at most PROFILE_CEILING (Q7EMU_BENCH_MAX_PROFILE_RATIO overrides), the
# bound docs/profiling.md states: the element ReLU measures x1.5 and the 8-core ReLU (a 14 ms
# run on 2 threads) x1.8 to x1.93 on these hosts.
CHECK_CEILING=${Q7EMU_BENCH_MAX_CHECK_RATIO:-3.0}
PROFILE_CEILING=${Q7EMU_BENCH_MAX_PROFILE_RATIO:-2.0}
CHECK_REPEAT=${Q7EMU_BENCH_CHECK_REPEAT:-9}
# One row of that table: kernel $1 observed as $2 (checked or profiled), its failure $3 (empty
# when its outputs are right), its ceiling $4 and what passed $5; gates on the $2 / plain ratio
# of the best times in cbest.
observed_row() {
  local k=$1 mode=$2 failure=$3 ceiling=$4 passed=$5 ratio verdict
  if [ -n "$failure" ]; then
    status=1
    printf '%-16s %10s %10s %7s %s\n' "$k" - - - "$failure"
    return
  fi
  ratio=$(echo "${cbest[$mode]} / ${cbest[plain]}" | bc -l)
  verdict="$passed; $mode / plain = x$(printf '%.2f' "$ratio") (ceiling x$ceiling)"
  if [ "$(echo "$ratio > $ceiling" | bc -l)" = 1 ]; then
    verdict="$verdict ${mode^^} RATIO ABOVE x$ceiling"
    status=1
  fi
  printf '%-16s %10.3f %10.3f %7.2f %s\n' "$k" "${cbest[plain]}" "${cbest[$mode]}" "$ratio" "$verdict"
}
printf '\n%-16s %10s %10s %7s %s\n' kernel plain-s observed-s ratio verdict
for k in relu_multicore relu_element; do
  args=(examples/kernels/$k/build --op relu_forward --input examples/kernels/relu_multicore/input.npy --threads 2 --json)
  declare -A cbest=()
  cverdict=
  for _ in $(seq "$CHECK_REPEAT"); do
    for mode in plain checked profiled; do
      # Checked mode and profiles run on the interpreter (docs/jit.md "Observers"): their cost
      # is measured against the interpreter's plain run.
      flag=(--jit off)
      [ "$mode" = checked ] && flag=(--check)
      [ "$mode" = profiled ] && flag=(--profile "$OUT/$k-profile")
      set +e
      ./target/release/q7emu run "${args[@]}" "${flag[@]}" >"$OUT/$k-$mode.json" 2>"$OUT/$k-$mode.err"
      rc=$?
      set -e
      if [ "$rc" != 0 ]; then
        cverdict="$mode run exit $rc FAILED"
        break 2
      fi
      s=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['wall_seconds'])" "$OUT/$k-$mode.json")
      if [ -z "${cbest[$mode]:-}" ] || [ "$(echo "$s < ${cbest[$mode]}" | bc -l)" = 1 ]; then cbest[$mode]=$s; fi
    done
  done
  cfail=$cverdict
  pfail=$cverdict
  if [ -z "$cfail" ] && [ "$(counters "$OUT/$k-plain.json")" != "$(counters "$OUT/$k-checked.json")" ]; then
    cfail="instructions or cycles differ between plain and checked FAILED"
  elif [ -z "$cfail" ] && [ "$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['check']['findings'])" "$OUT/$k-checked.json")" != "[]" ]; then
    cfail="a finding in a correct kernel FAILED"
  fi
  if [ -z "$pfail" ] && [ "$(counters "$OUT/$k-plain.json")" != "$(counters "$OUT/$k-profiled.json")" ]; then
    pfail="instructions or cycles differ between plain and profiled FAILED"
  elif [ -z "$pfail" ] && [ "$(python3 -c "import json,sys; print(sum(c['total']['cycles'] for c in json.load(open(sys.argv[1]))['cores']))" "$OUT/$k-profile/profile.json")" != \
         "$(python3 -c "import json,sys; print(sum(c['cycles'] for c in json.load(open(sys.argv[1]))['cores']))" "$OUT/$k-profiled.json")" ]; then
    pfail="the profile does not add up to the report FAILED"
  fi
  observed_row "$k" checked "$cfail" "$CHECK_CEILING" "no finding, same counts"
  observed_row "$k" profiled "$pfail" "$PROFILE_CEILING" "profile adds up, same counts"
done

# Calls per second from Python (scripts/bench_calls.py): a library kept loaded against one that
# sets a cluster up per call, gated on their ratio; then tier 2 against the interpreter on kept
# libraries (the element ReLU on 32x4096), gated on their ratio. Needs the test command's .venv with the
# package installed (scripts/test.sh makes it; .ci/run runs that first).
if [ -x .venv/bin/python ] && .venv/bin/python -c 'import q7emu' 2>/dev/null; then
  .venv/bin/python scripts/bench_calls.py || status=1
else
  echo "calls per second from Python: skipped (no .venv with the q7emu package: run scripts/test.sh first)"
fi

if [ "$status" = 0 ]; then
  echo "bench.sh: exit codes agree; every q7emu/qemu-system ratio at or above its floor; the 8-core ReLU's output is expected.npy on 1 and 2 threads, which scale at or above x$THREAD_FLOOR; checked mode costs at most x$CHECK_CEILING and a profile x$PROFILE_CEILING; a library kept loaded is called faster than one set up per call, by at least its floor"
else
  echo "bench.sh: FAILED (see MISMATCH / RATIO BELOW / THREAD RATIO BELOW / CHECKED RATIO ABOVE / PROFILED RATIO ABOVE / FAILED above)" >&2
fi
exit $status
