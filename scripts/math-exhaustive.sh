#!/usr/bin/env bash
# The long run of the SDK's math library (examples/sdk/rt/math), natively, against the host's
# libm one format wider (tests/programs/math/native.cpp): every unary float function on all 2^32
# arguments; every other function on every edge case (or pair of edge cases) and on generated
# arguments from seed Q7EMU_SEED (default 1): Q7EMU_MATH_CASES for the float functions of two
# arguments (default 10^8), Q7EMU_MATH_DOUBLE_CASES for the double functions (default 10^7). Each
# function is split into Q7EMU_MATH_PARTS slices (default 16) run as Q7EMU_JOBS jobs at once (default
# 2) under nice; Q7EMU_MATH_FUNCTIONS (comma-separated names) limits the run. Prints the first
# class mismatches of any, then the table of examples/sdk/rt/math/README.md "Measured" (stdout);
# exits 1 on a class mismatch or on an error over a function's bound (the README's table
# "Functions"). The per-job logs go to $Q7EMU_MATH_LOGS when set (kept; a run given the directory
# of an interrupted one with the same settings skips the jobs it finished), else to a temporary
# directory.
set -euo pipefail
cd "$(dirname "$0")/.."
CASES=${Q7EMU_MATH_CASES:-100000000}
DOUBLE_CASES=${Q7EMU_MATH_DOUBLE_CASES:-10000000}
SEED=${Q7EMU_SEED:-1}
JOBS=${Q7EMU_JOBS:-2}
PARTS=${Q7EMU_MATH_PARTS:-16}
M=examples/sdk/rt/math
if [ -n "${Q7EMU_MATH_LOGS:-}" ]; then
  OUT=$Q7EMU_MATH_LOGS
  mkdir -p "$OUT"
else
  OUT=$(mktemp -d)
  trap 'rm -rf "$OUT"' EXIT
fi
${CXX:-g++} -std=c++14 -O2 -Wall -Wextra -Werror -DQ7_MATH_HOST -Itests/programs/math \
  -o "$OUT/native" tests/programs/math/native.cpp $M/*.cpp -lm
t0=$(date +%s)
wanted() { [ -z "${Q7EMU_MATH_FUNCTIONS:-}" ] || [[ ",$Q7EMU_MATH_FUNCTIONS," == *",$1,"* ]]; }
jobs=()
while read -r name kind; do
  wanted "$name" || continue
  if [ "$kind" = float ]; then
    for part in $(seq 0 $((PARTS - 1))); do jobs+=("exhaustive $name $part $PARTS"); done
  else
    jobs+=("sample 1 0 $SEED $name")
    total=$CASES
    [ "$kind" = float2 ] || total=$DOUBLE_CASES
    for part in $(seq 0 $((PARTS - 1))); do
      n=$((total / PARTS + (part < total % PARTS ? 1 : 0)))
      jobs+=("random $name $n $((SEED * 1000003 + part))")
    done
  fi
done < <("$OUT/native" list)
i=0
for j in "${jobs[@]}"; do
  # A job whose log ends with its result line (written last) is done: with Q7EMU_MATH_LOGS naming
  # the directory of an interrupted run, the run resumes where it stopped.
  if tail -n 1 "$OUT/job$i.log" 2>/dev/null | grep -q ' max='; then
    i=$((i + 1))
    continue
  fi
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
  # shellcheck disable=SC2086
  nice -n 19 "$OUT/native" $j > "$OUT/job$i.log" &
  i=$((i + 1))
done
wait || true
grep -h '^CLASS' "$OUT"/job*.log | head -20 || true
# bounds from the README's table "Functions": | `name` | bound | ...
bounds=$(awk -F'|' '/^## Functions/ { on = 1 } /^## / && !/Functions/ { on = 0 }
  on && $2 ~ /`/ { gsub(/[` ]/, "", $2); gsub(/ /, "", $3); print $2, $3 }' $M/README.md)
"$OUT/native" list | awk -v bounds="$bounds" -v secs=$(( $(date +%s) - t0 )) '
  BEGIN { n = split(bounds, b, "\n"); for (i = 1; i <= n; i++) { split(b[i], f, " "); bound[f[1]] = f[2] } }
  FNR == NR { kind[$1] = $2; order[++nf] = $1; next }
  $1 !~ /^CLASS/ && NF == 10 {
    name = $1; cases[name] += $2
    split($3, m, "="); split($4, at, "=")
    if (!(name in max) || m[2] + 0 > max[name]) { max[name] = m[2] + 0; where[name] = at[2] }
    for (k = 5; k <= 10; k++) { split($k, c, "="); count[name, k] += c[2] }
  }
  END {
    bad = 0; total = 0
    print "| function | arguments | cases | max error | ≤ 0.5 | (0.5, 1] | (1, 1.5] | (1.5, 2] | > 2 | class | at |"
    print "|---|---|---|---|---|---|---|---|---|---|---|"
    for (i = 1; i <= nf; i++) {
      name = order[i]
      if (!(name in cases)) continue
      args = kind[name] == "float" ? "all 2^32" : "edges + generated"
      # Counts pass 2^31: %.0f, as the awk of Debian (mawk) caps %d at 2^31 - 1.
      printf "| `%s` | %s | %.0f | %.4f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | `%s` |\n", name, args, cases[name],
        max[name], count[name, 5], count[name, 6], count[name, 7], count[name, 8], count[name, 9],
        count[name, 10], where[name]
      total += cases[name]
      if (count[name, 10] > 0 || !(name in bound) || max[name] > bound[name] + 0) {
        bad++; print "OVER BOUND OR CLASS MISMATCH: " name " (bound " bound[name] ")" > "/dev/stderr"
      }
    }
    printf "math-exhaustive.sh: %.0f cases, %d functions failing, %d s\n", total, bad, secs > "/dev/stderr"
    exit bad != 0
  }' - "$OUT"/job*.log
