#!/usr/bin/env bash
# The long run of the SDK's compiler helper routines (examples/sdk/rt/helpers), natively: every
# unary routine of a 32-bit operand over all 2^32 operands, and every routine (binary ones with
# all edge pairs first) on Q7EMU_HELPERS_CASES cases (default 10^9) from seed Q7EMU_SEED (default 1),
# against the host's IEEE arithmetic with the documented policies (tests/programs/helpers). Runs
# Q7EMU_JOBS jobs at once (default 2) under nice; prints the first mismatches of any, the cases and
# mismatches per routine and the totals; exits 1 on any mismatch. The per-job logs go to
# $Q7EMU_HELPERS_LOGS when set (kept), else to a temporary directory.
set -euo pipefail
cd "$(dirname "$0")/.."
CASES=${Q7EMU_HELPERS_CASES:-1000000000}
SEED=${Q7EMU_SEED:-1}
JOBS=${Q7EMU_JOBS:-2}
H=examples/sdk/rt/helpers
if [ -n "${Q7EMU_HELPERS_LOGS:-}" ]; then
  OUT=$Q7EMU_HELPERS_LOGS
  mkdir -p "$OUT"
else
  OUT=$(mktemp -d)
  trap 'rm -rf "$OUT"' EXIT
fi
${CC:-cc} -O2 -fno-builtin -ffp-contract=off -DQ7_HELPERS_HOST -I$H -o "$OUT/native" \
  tests/programs/helpers/native.c $H/int64.c $H/bits.c $H/sf.c $H/df.c $H/powi.c $H/mem.c
t0=$(date +%s)
# jobs: one per part of the random run, one per exhaustive routine; at most $JOBS at once
jobs=()
for part in $(seq 0 $((JOBS - 1))); do jobs+=("check $CASES $SEED $part $JOBS"); done
for r in $("$OUT/native" list | awk '$2 == "unary32" { print $1 }'); do jobs+=("exhaustive $r"); done
i=0
for j in "${jobs[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
  # shellcheck disable=SC2086
  nice "$OUT/native" $j > "$OUT/job$i.log" &
  i=$((i + 1))
done
wait || true
grep -h '^MISMATCH' "$OUT"/job*.log || true
grep -hv '^MISMATCH' "$OUT"/job*.log | awk '
  { n[$1] += $2; bad[$1] += $3; runs[$1]++ }
  END {
    for (r in n) { printf "%-12s %12.0f cases %d mismatches\n", r, n[r], bad[r];
                   total += n[r]; totalbad += bad[r] }
  }' | sort
grep -hv '^MISMATCH' "$OUT"/job*.log | awk '{ t += $2; b += $3 }
  END { printf "helpers-exhaustive.sh: %.0f cases, %d mismatches, '"$(( $(date +%s) - t0 ))"' s\n", t, b;
        exit b != 0 }'
