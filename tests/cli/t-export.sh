# tests/cli/t-export.sh: export: golden launch settings for each framework,
# every emitted option name among the framework's documented ones, the plan
# chosen by search, and usage errors. Sourced by run.sh.

# expect's conditions are single-quoted, for lib.sh to eval after the run,
# so the variables they read (and T_CMD, read by lib.sh) look unused
# (file-wide directive):
# shellcheck disable=SC2016,SC2034

E_PLAN='--tp 8 --pp 4 --dp 8 --sp --recompute selective --zero 1 --vpp 2'
for e_fw in megatron nemo torchtitan; do
    # torchtitan's stack has no ZeRO-1 (spaces/stacks/torchtitan.cfg): zero 0
    e_plan=$E_PLAN
    [ "$e_fw" = torchtitan ] && e_plan=$(echo "$E_PLAN" | sed 's/--zero 1/--zero 0/')
    # shellcheck disable=SC2086
    golden "golden-export-$e_fw" "export-$e_fw.expected" -- export --framework "$e_fw" $e_plan
    # shellcheck disable=SC2086
    golden "golden-export-$e_fw-full" "export-$e_fw-full.expected" -- export \
        --framework "$e_fw" --model gpt3-175b --system selene-a100 --seq 2048 \
        --gbs 1536 --tp 8 --pp 12 --dp 16 --recompute full --precision fp16
    # the names: flags for megatron, keys for the others
    # shellcheck disable=SC2086
    "$TRAINPLAN" export --framework "$e_fw" $E_PLAN >"$T_TMP/exp" 2>/dev/null
    "$TRAINPLAN" export --framework "$e_fw" --tp 2 --pp 2 --dp 2 --recompute full \
        --vpp 2 --model llama3-8b --precision fp8 >>"$T_TMP/exp" 2>/dev/null
    # uneven stages: slots (126 + 2 over 16), explicit ends (126 over 10)
    for e_pp in "16 --vpp 2" "10"; do
        # shellcheck disable=SC2086
        "$TRAINPLAN" export --framework "$e_fw" --model llama3-405b --tp 8 \
            --pp $e_pp --dp 8 --seq 8192 --gbs 128 --zero 0 >>"$T_TMP/exp" 2>/dev/null
    done
    # context parallelism and TP communication overlap
    "$TRAINPLAN" export --framework "$e_fw" --tp 2 --cp 2 --dp 2 --sp --tpo \
        --model llama3-8b --seq 16384 --gbs 8 >>"$T_TMP/exp" 2>/dev/null
    e_known=" $(grep "^$e_fw " tests/data/export-names.txt | cut -d' ' -f2-) "
    e_bad=
    for e_name in $(grep -v '^#' "$T_TMP/exp" | case $e_fw in
            megatron) grep -o -- '--[a-z0-9-]*' ;;
            nemo) sed -n 's/^ *\([a-z_]*:\).*/\1/p' | sed 's/:$//' | sed '/^$/d' ;;
            torchtitan) sed -n 's/^\(\[[a-z_]*\]\)$/\1/p; s/^\([a-z_]*\) =.*/\1/p' ;;
            esac); do
        case $e_known in
        *" $e_name "*|*" $e_name: "*) ;;
        *) e_bad="$e_bad $e_name" ;;
        esac
    done
    T_CMD="export --framework $e_fw: undocumented names:$e_bad"
    expect "export-names-$e_fw" '[ -z "$e_bad" ]'
done

# uneven pipeline stages (spaces/stages.c): Meta's Llama 3 405B layout,
# 7 + 14 x 8 + 7 layers on PP16, as Megatron's account_for_* slots and as
# explicit first / last stage counts (126 over 10: 11 + 8 x 13 + 11)
for e_fw in megatron nemo; do
    golden "golden-export-$e_fw-uneven" "export-$e_fw-uneven.expected" -- export \
        --framework "$e_fw" --model llama3-405b --system dgx-h100 --seq 8192 \
        --gbs 2048 --tp 8 --pp 16 --dp 128 --vpp 4 --sp --recompute full
    golden "golden-export-$e_fw-ends" "export-$e_fw-ends.expected" -- export \
        --framework "$e_fw" --model llama3-405b --system dgx-h100 --seq 8192 \
        --gbs 2048 --tp 8 --pp 10 --dp 64 --sp --recompute full --zero 1
done
check export-titan-vpp 2 "trainplan: error: torchtitan cannot run vpp 3 on pp 8: layers + 2 (128) must divide by pp and then by vpp for pipeline_parallel_layers_per_stage" -- \
    export --framework torchtitan --model llama3-405b --tp 8 --pp 8 --dp 8 \
    --vpp 3 --seq 8192 --gbs 192 --zero 0

# --gpus N: the best plan of a search on N GPUs
run_tp search --gpus 256 --top 1 --format csv
e_key=$(t_cols "$T_OUT" key | sed -n 1p)
run_tp export --gpus 256
expect export-best-of-search exit=0 '[ -n "$e_key" ]' "stdout~GPUs: $e_key\$"

check export-both 2 "trainplan: error: give either --gpus N or the plan's --tp/--pp/--dp" -- export --gpus 64 --tp 8
check export-neither 2 "trainplan: error: give either --gpus N or the plan's --tp/--pp/--dp" -- export
check export-framework 2 "trainplan: error: '--framework' must be megatron, nemo or torchtitan, not 'deepspeed'" -- export --framework deepspeed --gpus 64
check export-gpus-zero 2 "trainplan: error: '--gpus' must be an integer in [1, 1048576], not '0'" -- export --gpus 0
run_tp export --gpus 8 --model llama3-405b
expect export-nothing-fits exit=1 stdout= '[ "$(t_lines "$T_ERR")" = 1 ]' \
    "stderr1=trainplan: error: no feasible plan on 8 GPUs (see 'trainplan search --gpus 8')"
check predict-no-framework 2 "trainplan: error: unknown option '--framework'" -- predict --framework nemo
