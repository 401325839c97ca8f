#!/usr/bin/env bash
# Core benchmark: builds the benchmark programs of tests/programs/bench (fib(32), a 100M-iteration
# LCG loop, an array-update loop) with the project's runtime, runs each on q7emu (dc233c and
# ncore2gp profiles, cycle accounting on) and on qemu-system-xtensa -M sim, checks that the exit
# codes agree, and prints MIPS and the q7emu/QEMU ratio. QEMU's MIPS use q7emu's instruction
# count for the same program (QEMU does not count instructions).
set -euo pipefail
cd "$(dirname "$0")/.."
PREFIX=${Q7_XTENSA_PREFIX:-$HOME/.cache/xtensa-dc233c}
export PATH=$PREFIX/bin:$PATH
command -v xtensa-elf-gcc >/dev/null || { echo "bench.sh: run scripts/setup-toolchain.sh first" >&2; exit 1; }
cargo build --release -q -p q7-host
RT=examples/bare-metal/rt
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
now() { date +%s.%N; }
printf '%-6s %-9s %12s %10s %9s %9s %6s %s\n' program profile instructions seconds MIPS qemuMIPS ratio exit
for p in fib lcg array; do
  xtensa-elf-gcc -O2 -ffreestanding -nostdlib -fno-builtin -I$RT -T $RT/link.ld \
    -Wl,--no-warn-rwx-segments -o "$OUT/$p.elf" $RT/crt0.S $RT/vectors.S $RT/rt.S \
    tests/programs/bench/$p.c
  t0=$(now)
  set +e
  timeout 600 qemu-system-xtensa -M sim -cpu dc233c -semihosting -display none -serial none \
    -monitor none -kernel "$OUT/$p.elf" >/dev/null 2>&1
  qrc=$?
  set -e
  qsec=$(echo "$(now) - $t0" | bc -l)
  for profile in dc233c ncore2gp; do
    t0=$(now)
    set +e
    ./target/release/q7emu run-elf --profile $profile --stats-json "$OUT/$p.json" "$OUT/$p.elf" >/dev/null 2>&1
    rc=$?
    set -e
    sec=$(echo "$(now) - $t0" | bc -l)
    insns=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['instructions'])" "$OUT/$p.json")
    mips=$(echo "$insns / $sec / 1000000" | bc -l)
    qmips=$(echo "$insns / $qsec / 1000000" | bc -l)
    ratio=$(echo "$mips / $qmips" | bc -l)
    verdict="q7emu $rc, qemu $qrc"
    [ "$rc" = "$qrc" ] || verdict="$verdict MISMATCH"
    printf '%-6s %-9s %12d %10.3f %9.1f %9.1f %6.2f %s\n' $p $profile "$insns" "$sec" "$mips" "$qmips" "$ratio" "$verdict"
  done
done
