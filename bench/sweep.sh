#!/bin/sh
# bench/sweep.sh: sweep throughput (issue 12's benchmark). A co-design grid
# of 3 models x 1,000 system variants of DGX H100 (10 HBM sizes x 10 NIC
# speeds x 10 NVLink bandwidths) x GPU counts 64..16384 (9 counts), run
# single-process on 1 and 2 threads, then under mpirun on 1 and 2 ranks (1 thread
# each, rank 0 computing between requests), and with RANKS=N on N ranks;
# prints items/s and the parallel efficiency against 1 rank, and checks
# that every run wrote the same bytes. Figures only: nothing is asserted.
set -e
T=${TRAINPLAN:-./trainplan}
tmp=${TMPDIR:-/tmp}/bench-sweep.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
GRID="--model llama3-8b,llama3-70b,gpt3-175b --gpus 64..16384 --tokens 15e12
      --vary gpu.hbm_gib=40:184:+16 --vary network.nic_gbps=100:1000:+100
      --vary node.nvlink_gbs=100:1000:+100 --format csv"
items=3000

now() { date +%s.%N; }

run() {     # name launcher...: time one run, print items/s
    name=$1; shift
    t0=$(now)
    # shellcheck disable=SC2086
    OMP_NUM_THREADS=${THREADS:-1} "$@" "$T" sweep $GRID -o "$tmp/$name.csv" || [ $? = 1 ]
    t1=$(now)
    awk -v a="$t0" -v b="$t1" -v n="$items" -v w="$name" \
        'BEGIN { printf "%-12s %7.2f s  %8.1f items/s\n", w, b - a, n / (b - a) }' >&2
    awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'
}

mpi="mpirun --oversubscribe --allow-run-as-root --bind-to none -x OMP_NUM_THREADS=1 -np"
echo "== sweep: 3 models x 1000 variants x 9 GPU counts ($items items), $(nproc) cores" >&2
s0=$(run single)
st=$(THREADS=2 run threads2)
awk -v a="$s0" -v b="$st" 'BEGIN { printf "2 threads: speed-up %.2f (what the machine gives now)\n", a / b }' >&2
s1=$(run np1 $mpi 1)
s2=$(run np2 $mpi 2)
awk -v a="$s1" -v b="$s2" 'BEGIN { printf "2 ranks: speed-up %.2f, parallel efficiency %.0f %%\n", a / b, 50 * a / b }' >&2
if [ -n "${RANKS:-}" ]; then
    sn=$(run "np$RANKS" $mpi "$RANKS")
    awk -v a="$s1" -v b="$sn" -v n="$RANKS" 'BEGIN { printf "%d ranks: speed-up %.2f, parallel efficiency %.0f %%\n", n, a / b, 100 * a / b / n }' >&2
fi
for f in "$tmp"/np*.csv; do
    cmp -s "$tmp/single.csv" "$f" || echo "DIFFERS: $f" >&2
done
echo "single-process: $s0 s; every run wrote the same bytes (unless DIFFERS above)" >&2
