# tests/cli/t-sweep.sh: sweep: a row equals the tradeoff of its variant,
# the same output for any number of threads and MPI ranks (mpirun -np 1, 2,
# 3, skipped with the reason when mpirun cannot start here or the program
# was built without mpicc), a resumed checkpoint (cut short by hand, or by
# SIGTERM) gives the bytes of an uninterrupted run, another sweep's
# checkpoint is refused. Bad sweep files are in tests/data/bad-input.tsv.
# Grids are tiny: the whole file takes a few seconds. Sourced by run.sh.

# expect's conditions are single-quoted, for lib.sh to eval after the run
# (file-wide directive):
# shellcheck disable=SC2016,SC2034

check sweep-help 0 "" -- sweep --help

# ---- a row is the tradeoff of its variant ----
# item 2 of the default: llama3-8b, 141 GiB, 400 Gb/s, $3.00 per GPU-hour
run_tp sweep --format csv
cp "$T_OUT" "$T_TMP/sweep.csv"
expect sweep-default-runs exit=0 stderr= '[ "$(wc -l <"$T_TMP/sweep.csv")" = 25 ]'
run_tp tradeoff --model llama3-8b --set gpu.hbm_gib=141 --set network.nic_gbps=400 \
    --price 3.0 --gpus 64..256 --tokens 15e12 --format csv
s_want=$(awk -F, 'NR > 1 { print $1 "," $4 "," $8 "," $9 "," $10 }' "$T_OUT")
s_got=$(awk -F, '$1 == 2 { print $7 "," $9 "," $11 "," $12 "," $13 }' "$T_TMP/sweep.csv")
T_CMD="sweep item 2 against tradeoff of its variant: '$s_got' vs '$s_want'"
expect sweep-row-is-tradeoff '[ -n "$s_want" ] && [ "$s_got" = "$s_want" ]'

# ---- the same bytes for any threads ----
S_GRID='--model llama3-8b,llama3-70b --gpus 64..512 --vary gpu.hbm_gib=80,96,141 --vary network.nic_gbps=200:800:x2'
for s_fmt in table csv json; do
    # shellcheck disable=SC2086
    same_output "sweep-threads-$s_fmt" OMP_NUM_THREADS=1 sweep $S_GRID --format $s_fmt \
        vs OMP_NUM_THREADS=2 sweep $S_GRID --format $s_fmt
done
if command -v python3 >/dev/null 2>&1; then
    # shellcheck disable=SC2086
    run_tp sweep $S_GRID --format json
    s_n=$(python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d["rows"]), d["items"], len(d["pareto_rows"]) > 0)' <"$T_OUT")
    T_CMD="sweep --format json: rows, items, pareto: $s_n"
    expect sweep-json '[ "$s_n" = "72 18 True" ]'
else
    skip sweep-json "no python3 to parse JSON"
fi

# ---- checkpoint: resume gives the bytes of an uninterrupted run ----
# shellcheck disable=SC2086
"$TRAINPLAN" sweep $S_GRID --format csv >"$T_TMP/ref.csv" 2>/dev/null
rm -f "$T_TMP/ck"
# shellcheck disable=SC2086
same_output sweep-checkpoint-fresh sweep $S_GRID --format csv \
    vs sweep $S_GRID --format csv --checkpoint "$T_TMP/ck"
# keep the header and 5 items, and a torn sixth (a kill in mid-write)
head -n 6 "$T_TMP/ck" >"$T_TMP/ck-part"
sed -n 7p "$T_TMP/ck" | cut -c 1-40 | tr -d '\n' >>"$T_TMP/ck-part"
# shellcheck disable=SC2086
same_output sweep-checkpoint-resume sweep $S_GRID --format csv \
    vs sweep $S_GRID --format csv --checkpoint "$T_TMP/ck-part"
T_CMD="checkpoint after the resume: $(wc -l <"$T_TMP/ck-part") lines"
expect sweep-checkpoint-whole '[ "$(wc -l <"$T_TMP/ck-part")" = 19 ]'
check sweep-checkpoint-other 3 "trainplan: error: $T_TMP/ck:1: checkpoint of another sweep (or not a checkpoint): remove it or give the same arguments" \
    -- sweep --checkpoint "$T_TMP/ck"

# SIGTERM in mid-run: exit 130, the items so far in the checkpoint, and a
# rerun finishes them with the same bytes as one uninterrupted run
S_BIG='--model llama3-70b --gpus 64..1024 --vary gpu.hbm_gib=40:200:+0.5 --vary network.nic_gbps=400,800 --format csv'
rm -f "$T_TMP/ck-term"
# shellcheck disable=SC2086
OMP_NUM_THREADS=1 "$TRAINPLAN" sweep $S_BIG --checkpoint "$T_TMP/ck-term" \
    >"$T_OUT" 2>"$T_ERR" &
s_pid=$!
# SIGTERM once the checkpoint holds an item: the handler is in place by
# then (cli/cmd_sweep.c installs it before sweep_run opens the file); a
# fixed delay raced a loaded machine's start-up (the sanitizer build) and
# killed the process before it (exit 143, no checkpoint)
s_wait=0 s_lines=0
while [ "$s_wait" -lt 600 ] && [ "$s_lines" -lt 2 ]; do
    sleep 0.05
    s_wait=$((s_wait + 1))
    [ -f "$T_TMP/ck-term" ] && s_lines=$(wc -l <"$T_TMP/ck-term")
done
kill -TERM "$s_pid" 2>/dev/null
wait "$s_pid"
T_RC=$? T_CMD="sweep $S_BIG --checkpoint (SIGTERM after its first item)"
s_lines=$(wc -l <"$T_TMP/ck-term")
expect sweep-sigterm exit=130 stdout= 'stderr~^trainplan: interrupted: [0-9]+ of 642 items done' \
    '[ "$s_lines" -gt 1 ] && [ "$s_lines" -lt 643 ]'
# shellcheck disable=SC2086
same_output sweep-sigterm-resume sweep $S_BIG vs sweep $S_BIG --checkpoint "$T_TMP/ck-term"

# ---- MPI: mpirun -np 1, 2, 3 write the single-process bytes ----
s_mpi_why=
if ! "$TRAINPLAN" sweep --help | grep -q '^MPI: built in'; then
    s_mpi_why="trainplan was built without mpicc (make deps installs libopenmpi-dev)"
elif ! command -v mpirun >/dev/null 2>&1; then
    s_mpi_why="no mpirun (openmpi-bin)"
elif ! mpirun --oversubscribe --allow-run-as-root -np 2 true >"$T_TMP/mpi.err" 2>&1; then
    s_mpi_why="mpirun cannot start 2 processes here: $(head -n 1 "$T_TMP/mpi.err")"
fi
s_mpi()
{
    s_np=$1
    shift
    T_CMD="mpirun -np $s_np trainplan $*"
    # a rank left waiting would hang the suite: 120 s at most (exit 124)
    s_x=
    if [ "$1" = -x ]; then
        s_x="-x $2"
        shift 2
    fi
    # shellcheck disable=SC2086
    timeout 120 mpirun --oversubscribe --allow-run-as-root -np "$s_np" \
        -x ASAN_OPTIONS=detect_leaks=0 -x OMP_NUM_THREADS=1 $s_x \
        "$TRAINPLAN" "$@" >"$T_OUT" 2>"$T_ERR"
    T_RC=$?
}
for s_np in 1 2 3; do
    if [ -n "$s_mpi_why" ]; then
        skip "sweep-mpi-np$s_np" "$s_mpi_why"
        continue
    fi
    # shellcheck disable=SC2086
    s_mpi "$s_np" sweep $S_GRID --format csv
    expect "sweep-mpi-np$s_np" exit=0 stderr= 'cmp -s "$T_OUT" "$T_TMP/ref.csv"'
done
if [ -n "$s_mpi_why" ]; then
    skip sweep-mpi-resume "$s_mpi_why"
else
    head -n 4 "$T_TMP/ck" >"$T_TMP/ck-mpi"
    # shellcheck disable=SC2086
    s_mpi 2 sweep $S_GRID --format csv --checkpoint "$T_TMP/ck-mpi"
    expect sweep-mpi-resume exit=0 stderr= 'cmp -s "$T_OUT" "$T_TMP/ref.csv"' \
        '[ "$(wc -l <"$T_TMP/ck-mpi")" = 19 ]'
fi

# a rank that dies (killed at its first chunk: TRAINPLAN_SWEEP_KILL, the
# fault injection of sweep/mpi.c): rank 0 names the items not done and
# writes no output; the rerun from the checkpoint gives the full bytes
if [ -n "$s_mpi_why" ]; then
    skip sweep-mpi-dead-rank "$s_mpi_why"
    skip sweep-mpi-dead-rank-rerun "$s_mpi_why"
else
    rm -f "$T_TMP/ck-dead" "$T_TMP/dead.csv"
    # shellcheck disable=SC2086
    TRAINPLAN_SWEEP_KILL=1:1 s_mpi 2 -x TRAINPLAN_SWEEP_KILL sweep $S_GRID \
        --format csv --checkpoint "$T_TMP/ck-dead" -o "$T_TMP/dead.csv"
    expect sweep-mpi-dead-rank '[ "$T_RC" != 0 ]' '[ ! -e "$T_TMP/dead.csv" ]' \
        "stderr~^trainplan: interrupted: a rank stopped answering \\(it died or was killed\\): [0-9]+ of 18 items done, not done: items [0-9]"
    # shellcheck disable=SC2086
    s_mpi 2 sweep $S_GRID --format csv --checkpoint "$T_TMP/ck-dead"
    expect sweep-mpi-dead-rank-rerun exit=0 stderr= 'cmp -s "$T_OUT" "$T_TMP/ref.csv"'
fi

# ---- --stream: each item's rows on stdout as it finishes; -o FILE gets
# the ordered output. The streamed rows are the final rows (pareto empty),
# in some order. Over MPI too.
s_rows()
{
    sed 1d "$1" | sed -E 's/,(true|false)?,(true|false),([0-9]+)$/,\2,\3/' | sort
}
rm -f "$T_TMP/streamed.csv"
# shellcheck disable=SC2086
run_tp sweep $S_GRID --format csv --stream -o "$T_TMP/streamed.csv"
expect sweep-stream exit=0 stderr= 'cmp -s "$T_TMP/streamed.csv" "$T_TMP/ref.csv"' \
    '[ "$(t_line "$T_OUT" 1)" = "$(t_line "$T_TMP/ref.csv" 1)" ]' \
    '[ "$(s_rows "$T_OUT")" = "$(s_rows "$T_TMP/ref.csv")" ]'
check sweep-stream-needs-file 2 "trainplan: error: --stream needs -o FILE: the rows stream to stdout, the ordered output goes to FILE" -- sweep --stream
if [ -n "$s_mpi_why" ]; then
    skip sweep-mpi-stream "$s_mpi_why"
else
    rm -f "$T_TMP/streamed.csv"
    # shellcheck disable=SC2086
    s_mpi 3 sweep $S_GRID --format csv --stream -o "$T_TMP/streamed.csv"
    expect sweep-mpi-stream exit=0 stderr= 'cmp -s "$T_TMP/streamed.csv" "$T_TMP/ref.csv"' \
        '[ "$(s_rows "$T_OUT")" = "$(s_rows "$T_TMP/ref.csv")" ]'
fi

# ---- charts: the Pareto scatter and the heat map, in SVG ----
rm -f "$T_TMP/p.svg" "$T_TMP/h.svg"
run_tp sweep --chart "$T_TMP/p.svg" --heatmap "$T_TMP/h.svg"
expect sweep-charts exit=0 stderr= 'grep -q "<svg" "$T_TMP/p.svg"' \
    'grep -q "<title>llama3-8b on dgx-h100, 256 GPUs: days to train</title>" "$T_TMP/h.svg"'
check sweep-chart-name 2 "trainplan: error: 'p.txt': a chart's name must end in .svg or .png" \
    -- sweep --chart p.txt
check sweep-heatmap-axes 2 "trainplan: error: --heatmap needs two varied fields" \
    -- sweep --vary gpu.hbm_gib=80,141 --heatmap "$T_TMP/h1.svg"

# under MPI, a refused checkpoint ends every rank (no rank left waiting)
if [ -n "$s_mpi_why" ]; then
    skip sweep-mpi-bad-checkpoint "$s_mpi_why"
else
    printf 'not a checkpoint\n' >"$T_TMP/ck-bad"
    s_mpi 2 sweep --checkpoint "$T_TMP/ck-bad"
    expect sweep-mpi-bad-checkpoint exit=3 stdout= \
        "stderr~^trainplan: error: $T_TMP/ck-bad:1: checkpoint of another sweep"
fi
# a plan dimension varied one value at a time (space.zero = 1, then 3)
run_tp sweep --model llama3-8b --system dgx-h100 --gpus 64 --set job.gbs=256 \
    --vary space.zero=1,3 --format csv
expect sweep-vary-space-list exit=0 \
    '[ "$(tail -n +2 "$T_OUT" | grep -c "\.z1,")" -ge 1 ]' \
    '[ "$(tail -n +2 "$T_OUT" | grep -c "\.z3,")" -ge 1 ]'
