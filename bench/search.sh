#!/bin/sh
# bench/search.sh: search throughput (issue benchmarks B1, B2, B3). Prints the
# search's own figures (--stats: combinations and plans per second, peak
# RSS) with 1 thread and with every core, and the parallel speed-up.
# Figures only: nothing here is asserted.
set -e
T=${TRAINPLAN:-./trainplan}
cores=$(nproc)

one() {     # name threads args...
    name=$1; threads=$2; shift 2
    out=$(OMP_NUM_THREADS=$threads "$T" search "$@" --stats --format csv \
          -o /dev/null 2>&1 >/dev/null | grep '^search:')
    secs=$(printf '%s\n' "$out" | sed 's/.* evaluated, \([0-9.]*\) s,.*/\1/')
    printf '%-3s %2s thread(s): %s\n' "$name" "$threads" "${out#search: }" >&2
    echo "$secs"
}

bench() {   # name args...
    name=$1; shift
    t1=$(one "$name" 1 "$@")
    tn=$(one "$name" "$cores" "$@")
    awk -v a="$t1" -v b="$tn" -v n="$name" -v c="$cores" \
        'BEGIN { printf "%-3s speed-up on %d threads: %.2f\n", n, c, (b > 0 ? a / b : 0) }' >&2
}

echo "== B1: gpt3-175b on selene-a100, gbs 1536, seq 2048, GPUs 8..16384:8, every dimension free" >&2
bench B1 --model gpt3-175b --system selene-a100 --gbs 1536 --seq 2048 --gpus 8..16384:8
echo "== B2: llama3-405b on dgx-h100, seq 8192, gbs 2048, GPUs 1024..16384:1024 (the parallelism issue's 16 counts), every dimension free" >&2
bench B2 --model llama3-405b --system dgx-h100 --gbs 2048 --seq 8192 --gpus 1024..16384:1024 --zero 0,1,2,3 --cp 1,2,4,8
echo "== B3: deepseek-v3 on dgx-h100, seq 4096, gbs 15360, GPUs 256..16384:256, every dimension free (ep, etp, epo too)" >&2
bench B3 --model deepseek-v3 --system dgx-h100 --gbs 15360 --seq 4096 --gpus 256..16384:256
