#!/bin/sh
# tests/memcheck.sh: valgrind memcheck on the main paths of trainplan: no
# definite or indirect leak, no invalid read or write, no use of
# uninitialised values. Each case gives the exit status the program itself
# must return; valgrind's own errors exit 99. Run by `make memcheck`.
T=${TRAINPLAN:-./trainplan}
failed=0
vg() {      # NAME EXPECTED-EXIT ARGS...
    name=$1 want=$2
    shift 2
    valgrind -q --error-exitcode=99 --leak-check=full \
        --errors-for-leak-kinds=definite,indirect "$T" "$@" >/dev/null 2>"$tmp"
    rc=$?
    if [ "$rc" = "$want" ]; then
        echo "memcheck ok: $name"
    else
        echo "memcheck FAILED: $name: exit $rc, expected $want"
        cat "$tmp"
        failed=1
    fi
}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
vg predict 0 predict --tp 8 --pp 4 --dp 8 --sp --recompute selective --zero 1
vg predict-json 0 predict --tp 8 --pp 4 --dp 8 --sp --recompute selective --format json
vg predict-infeasible 1 predict --model llama3-405b --tp 8
vg search 0 search --gpus 64,128 --format json
OMP_NUM_THREADS=2 vg search-2-threads 0 search --gpus 64..256 --top 3
vg search-sampled 0 search --gpus 64..1024 --budget 3000 --format csv
vg list 0 list
vg list-stacks 0 list stacks
vg predict-stack 0 predict --tp 8 --pp 4 --dp 8 --sp --stack torchtitan --headroom 10%
vg sweep 0 sweep --format json
OMP_NUM_THREADS=2 vg sweep-2-threads 0 sweep --format csv
vg sweep-chart 0 sweep --chart /tmp/trainplan-memcheck-sweep.png
vg validate-cv 0 validate tests/data/runs/small.csv --cv source
vg calibrate-runs 3 calibrate --runs tests/data/runs/small.csv
vg tradeoff-chart 0 tradeoff --gpus 64..256 --chart /tmp/trainplan-memcheck.svg
vg compare-chart 0 compare --systems dgx-a100,dgx-h100 --gpus 64 --chart /tmp/trainplan-memcheck.png
vg export 0 export --gpus 64 --framework torchtitan
vg search-offload 0 search --model mixtral-8x7b --seq 4096 --gbs 256 --gpus 8 --top 2
vg export-offload-graphs 0 export --framework nemo --model qwen3-30b-a3b --gpus 8 --set stack.cuda_graph_scope=attn,moe_router
vg validate 0 validate tests/data/runs/small.csv --format json
vg validate-bad-runs 3 validate tests/data/runs/bad-extra-comma.csv
vg validate-gate 0 validate tests/data/runs/small.csv -o /dev/null \
    --baseline tests/data/validate-baseline-small.json
vg validate-gate-worse 1 validate tests/data/runs/small.csv -o /dev/null \
    --baseline tests/data/validate-baseline-small.json --source alpha
vg validate-write-baseline 0 validate tests/data/runs/small.csv -o /dev/null \
    --write-baseline /tmp/trainplan-memcheck.json
vg validate-bad-baseline 3 validate tests/data/runs/small.csv -o /dev/null \
    --baseline tests/data/golden/validate-small-json.expected
vg error-bad-set 3 predict --set model.layers=-1
vg error-bad-file 4 predict --model /nonexistent/model.cfg
vg error-usage 2 search --gpus 0
rm -f /tmp/trainplan-memcheck.svg /tmp/trainplan-memcheck.png /tmp/trainplan-memcheck.json
exit $failed
