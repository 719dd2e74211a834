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
    # nor fp16 (bf16 or fp32 parameters): bf16
    e_prec=fp16
    [ "$e_fw" = torchtitan ] && e_plan=$(echo "$E_PLAN" | sed 's/--zero 1/--zero 0/') &&
        e_prec=bf16
    # shellcheck disable=SC2086
    golden "golden-export-$e_fw" "export-$e_fw.expected" -- export --framework "$e_fw" $e_plan
    # shellcheck disable=SC2086
    golden "golden-export-$e_fw-full" "export-$e_fw-full.expected" -- export \
        --framework "$e_fw" --model gpt3-175b --system selene-a100 --seq 2048 \
        --gbs 1536 --tp 8 --pp 12 --dp 16 --recompute full --precision $e_prec
    # the names: flags for megatron, keys for the others
    # shellcheck disable=SC2086
    "$TRAINPLAN" export --framework "$e_fw" $E_PLAN >"$T_TMP/exp" 2>/dev/null
    "$TRAINPLAN" export --framework "$e_fw" --tp 2 --pp 2 --dp 2 --recompute full \
        --vpp 2 --model llama3-8b --precision fp8 >>"$T_TMP/exp" 2>/dev/null
    "$TRAINPLAN" export --framework "$e_fw" --tp 2 --dp 4 --zero 1 --model llama3-8b \
        --set stack.grad_reduce_16bit=true >>"$T_TMP/exp" 2>/dev/null
    # uneven stages: slots (126 + 2 over 16), explicit ends (126 over 10)
    for e_pp in "16 --vpp 2" "10"; do
        # shellcheck disable=SC2086
        "$TRAINPLAN" export --framework "$e_fw" --model llama3-405b --tp 8 \
            --pp $e_pp --dp 8 --seq 8192 --gbs 128 --zero 0 >>"$T_TMP/exp" 2>/dev/null
    done
    # context parallelism and TP communication overlap
    "$TRAINPLAN" export --framework "$e_fw" --tp 2 --cp 2 --dp 2 --sp --tpo \
        --model llama3-8b --seq 16384 --gbs 8 >>"$T_TMP/exp" 2>/dev/null
    "$TRAINPLAN" export --framework "$e_fw" --tp 1 --pp 1 --dp 8 --zero 3 \
        --model llama3-8b --seq 8192 --gbs 16 --recompute full \
        >>"$T_TMP/exp" 2>/dev/null
    # optimizer offload; CUDA graphs, partial and whole (torchtitan refuses
    # each: nothing written)
    "$TRAINPLAN" export --framework "$e_fw" --tp 1 --pp 1 --dp 8 --zero 1 \
        --offload --model llama3-8b --seq 8192 --gbs 16 >>"$T_TMP/exp" 2>/dev/null
    for e_cg in attn full_iteration; do
        "$TRAINPLAN" export --framework "$e_fw" --tp 1 --pp 1 --dp 8 --zero 1 \
            --model llama3-8b --seq 8192 --gbs 16 \
            --set "stack.cuda_graph_scope=$e_cg" >>"$T_TMP/exp" 2>/dev/null
    done
    # a gradient bucket of the user's (the stack's ddp_bucket_params)
    "$TRAINPLAN" export --framework "$e_fw" --tp 2 --pp 1 --dp 4 --zero 1 \
        --sp --recompute full --model llama3-8b --seq 8192 --gbs 16 \
        --set stack.ddp_bucket_params=1e8 >>"$T_TMP/exp" 2>/dev/null
    e_known=" $(grep "^$e_fw \|^$e_fw-moe " tests/data/export-names.txt | cut -d' ' -f2- | tr '\n' ' ') "
    e_bad=
    for e_name in $(grep -v '^#' "$T_TMP/exp" | case $e_fw in
            megatron) grep -o -- '--[a-z0-9-]*' ;;
            nemo) sed -n 's/^ *\([a-z_0-9]*:\).*/\1/p' | sed 's/:$//' | sed '/^$/d' ;;
            torchtitan) sed -n 's/^\(\[[a-z_.]*\]\)$/\1/p; s/^\([a-z_0-9]*\) =.*/\1/p' ;;
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
# Megatron's block recompute (recompute_layers): 1 of each chunk's layers
# on Meta's PP16 with 4 virtual stages; torchtitan has no such knob (its
# stack breaks rule stack-rc-block; a plan from another stack meets
# torchtitan_refuses, tests/unit/test_rclayers.c export_spellings)
for e_fw in megatron nemo; do
    golden "golden-export-$e_fw-rc-block" "export-$e_fw-rc-block.expected" -- \
        export --framework "$e_fw" --model llama3-405b --system dgx-h100 \
        --seq 8192 --gbs 2048 --tp 8 --pp 16 --dp 128 --vpp 4 --sp --tpo \
        --recompute full --recompute_layers 1 --zero 1
done
run_tp export --framework torchtitan --model llama3-8b --tp 1 --dp 8 \
    --recompute full --recompute_layers 2 --zero 3 --seq 8192 --gbs 64
expect export-titan-rc-block exit=1 stdout= \
    "stderr1=trainplan: error: --framework torchtitan cannot run tp1.pp1.dp8.mb1.rc-full2.z3: stack-rc-block: the stack cannot recompute only some layers of a stage (recompute_block false), recompute_layers 2 (--nearest exports the nearest plan it runs)"

# a layout torchtitan cannot be told to build: refused (exit 1) like any
# plan the framework cannot run
run_tp export --framework torchtitan --model llama3-405b --tp 8 --pp 8 --dp 8 \
    --vpp 3 --seq 8192 --gbs 192 --zero 0
expect export-titan-vpp exit=1 stdout= \
    "stderr1=trainplan: error: --framework torchtitan cannot run tp8.pp8.dp8.mb1.vpp3: torchtitan cannot run vpp 3 on pp 8: layers + 2 (128) must divide by pp and then by vpp for pipeline_parallel_layers_per_stage (--nearest exports the nearest plan it runs)"
# ZeRO-1 and ZeRO-2 are not torchtitan's: refused with the reason, nothing
# written; FSDP2 (zero 3) writes the shard degree
run_tp export --framework torchtitan --model llama3-8b --seq 8192 --gbs 16 \
    --tp 1 --pp 1 --dp 8 --mbs 2 --zero 1
expect export-torchtitan-zero1 exit=1 stdout= '[ "$(t_lines "$T_ERR")" = 1 ]' \
    "stderr1=trainplan: error: --framework torchtitan cannot run tp1.pp1.dp8.mb2.z1: stack-zero: the stack cannot run zero 1 (no ZeRO-1 / distributed optimizer) (--nearest exports the nearest plan it runs)"
# async TP: torchtitan refuses it without the model compiled
# (parallelize.py "Async TP requires torch.compile"), so the export turns
# compile on for the model and the loss
run_tp export --framework torchtitan --model llama3-70b --system dgx-h100 \
    --seq 8192 --gbs 64 --tp 8 --pp 1 --dp 8 --sp --tpo --zero 3
expect export-torchtitan-async-tp-compile exit=0 \
    'grep -qx "enable_async_tensor_parallel = true" "$T_OUT"' \
    'grep -qx "\[compile\]" "$T_OUT"' 'grep -qx "enable = true" "$T_OUT"' \
    "grep -qx 'components = \[\"model\", \"loss\"\]' \"\$T_OUT\""
# --gpus N and --nearest take the fastest plans the framework runs: the
# fastest DeepSeek-V3 plan on 256 GPUs has tp 4, which torchtitan's FP8
# refuses for this model; the export writes the fastest it runs instead
run_tp export --framework torchtitan --model deepseek-v3 --system dgx-h100 \
    --gpus 256 --precision fp8
expect export-torchtitan-gpus-runnable exit=0 \
    'grep -q "^tensor_parallel_degree = 1$" "$T_OUT"'
run_tp export --framework torchtitan --model deepseek-v3 --system dgx-h100 \
    --tp 4 --pp 32 --dp 2 --ep 8 --sp --zero 3 --precision fp8 --nearest
expect export-torchtitan-nearest-runnable exit=0 \
    'grep -q "^tensor_parallel_degree = 1$" "$T_OUT"'
# fp16: torchtitan has no such mixed precision (bf16 or fp32 parameters)
run_tp export --framework torchtitan --model llama3-8b --system dgx-h100 \
    --gpus 8 --gbs 64 --precision fp16
expect export-torchtitan-fp16 exit=1 stdout= \
    "stderr1=trainplan: error: --framework torchtitan: torchtitan trains in bf16 or fp32 (training.mixed_precision_param), not fp16; use --precision bf16"
# FP8: the recipe the prediction timed (current scaling), not Megatron's
# default (delayed)
run_tp export --framework megatron --model llama3-8b --system dgx-h100 \
    --tp 2 --dp 4 --gbs 64 --precision fp8 --zero 1
expect export-megatron-fp8-recipe exit=0 \
    'grep -q -- "--fp8-recipe tensorwise" "$T_OUT"'
run_tp export --framework nemo --model llama3-8b --system dgx-h100 \
    --tp 2 --dp 4 --gbs 64 --precision fp8 --zero 1
expect export-nemo-fp8-recipe exit=0 \
    'grep -qx "mixed_precision: bf16_with_fp8_current_scaling_mixed" "$T_OUT"'
# 16-bit gradients (the stack's grad_reduce_16bit): Megatron's flag, the
# Bridge's ddp field (and a note on the precision recipe's, which wins at
# setup); torchtitan reduces in fp32 only
run_tp export --framework megatron --model llama3-8b --system dgx-h100 \
    --tp 2 --dp 4 --zero 1 --set stack.grad_reduce_16bit=true
expect export-megatron-grad-bf16 exit=0 \
    'grep -q -- "^--grad-reduce-in-bf16 " "$T_OUT"'
run_tp export --framework nemo --model llama3-8b --system dgx-h100 \
    --tp 2 --dp 4 --zero 1 --set stack.grad_reduce_16bit=true
expect export-nemo-grad-bf16 exit=0 \
    'grep -qx "  grad_reduce_in_fp32: false" "$T_OUT"' \
    'grep -q "^# 16-bit gradients: also override the recipe.s mixed_precision.grad_reduce_in_fp32=false" "$T_OUT"'
run_tp export --framework megatron --model llama3-8b --system dgx-h100 \
    --tp 2 --dp 4 --zero 1
expect export-megatron-grad-fp32 exit=0 \
    '! grep -q -- "--grad-reduce-in-bf16" "$T_OUT"'
run_tp export --framework torchtitan --stack torchtitan --model llama3-8b \
    --system dgx-h100 --dp 8 --zero 3 --set stack.grad_reduce_16bit=true
expect export-torchtitan-grad-bf16 exit=1 stdout= \
    "stderr1=trainplan: error: --framework torchtitan: torchtitan reduces gradients in fp32 only (training.mixed_precision_reduce), not in 16 bits as the prediction assumed (the stack's grad_reduce_16bit)"
# the MoE all-to-all overlap: one comm_overlap section (a YAML key twice
# is an error to strict loaders)
run_tp export --framework nemo --model mixtral-8x7b --system dgx-h100 --gpus 256
expect export-nemo-one-comm-overlap exit=0 \
    '[ "$(grep -c "^comm_overlap:" "$T_OUT")" = 1 ]'
golden golden-export-torchtitan-fsdp export-torchtitan-fsdp.expected -- export \
    --framework torchtitan --model llama3-8b --system dgx-h100 --seq 8192 \
    --gbs 16 --tp 1 --pp 1 --dp 8 --mbs 1 --zero 3 --recompute full
golden golden-export-megatron-fsdp export-megatron-fsdp.expected -- export \
    --framework megatron --model llama3-8b --system dgx-h100 --seq 8192 \
    --gbs 16 --tp 1 --pp 1 --dp 8 --mbs 1 --zero 3 --recompute full

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

# Complete settings: every key of tests/data/export-required.txt (cited
# there to each framework's source) in the output for a fixed set of plans.
# e_keys FW: the names of stdin, nested ones as section.key
e_keys()
{
    case $1 in
    megatron) grep -v '^#' | grep -o -- '--[a-z0-9-]*' ;;
    nemo) awk '/^#/ { next } /^[a-z_]+:/ { sub(/:.*/, ""); s = $0; print; next }
               /^  [a-z_0-9]+:/ { k = $1; sub(/:.*/, "", k); print s "." k }' ;;
    torchtitan) awk '/^\[/ { s = substr($0, 2, length($0) - 2); next }
                     /^[a-z_0-9]+ =/ { print s "." $1 }' ;;
    esac
}
for e_fw in megatron nemo torchtitan; do
    e_req=$(grep "^$e_fw " tests/data/export-required.txt | cut -d' ' -f2-)
    for e_plan in "--tp 8 --pp 4 --dp 8 --sp --recompute selective --vpp 2" \
        "--model llama3-8b --tp 2 --pp 2 --dp 2 --precision fp8 --recompute full" \
        "--model gpt3-175b --system selene-a100 --seq 2048 --gbs 1536 --tp 8 --pp 12 --dp 16 --recompute full --precision fp16" \
        "--model llama3-8b --tp 1 --pp 4 --dp 8 --recompute full --zero 0"; do
        [ "$e_fw" = torchtitan ] && e_plan=$(echo "$e_plan" | sed 's/fp16/bf16/')
        # shellcheck disable=SC2086
        "$TRAINPLAN" export --framework "$e_fw" $e_plan 2>/dev/null | e_keys "$e_fw" >"$T_TMP/keys"
        e_missing=
        for e_k in $e_req; do
            e_hit=
            for e_alt in $(echo "$e_k" | tr '|' ' '); do
                grep -qx -- "$e_alt" "$T_TMP/keys" && e_hit=1
            done
            [ -n "$e_hit" ] || e_missing="$e_missing $e_k"
        done
        T_CMD="export --framework $e_fw $e_plan: missing$e_missing"
        expect "export-complete-$e_fw" '[ -s "$T_TMP/keys" ] && [ -z "$e_missing" ]'
    done
done

# FP8 is written for every framework (Megatron-LM --fp8-format, Megatron-
# Bridge's FP8 recipe, torchtitan's float8 converter)
# (pp 2: a DDP plan of 8B on 4 GPUs does not fit beside torchtitan's
# fitted reserve)
for e_fw in megatron:--fp8-format nemo:bf16_with_fp8 torchtitan:quantize.linear.float8; do
    run_tp export --framework "${e_fw%%:*}" --model llama3-8b --tp 2 --pp 2 --dp 2 --precision fp8 --recompute full
    expect "export-fp8-${e_fw%%:*}" exit=0 "stdout~${e_fw#*:}"
done
# Llama 3's RoPE base (config.json rope_theta 500000), not Megatron's 10000
run_tp export --model llama3-8b --tp 2 --pp 1 --dp 4 --recompute full
expect export-rotary-base exit=0 'stdout~^--rotary-base 500000 ' 'stdout~^--max-position-embeddings 8192 ' \
    'stdout~^--attention-backend flash '
# (at seq 4096, where Megatron-Core's fused masked softmax still runs: at
# 8192 its PyTorch fallback keeps fp32 scores and the plan does not fit)
run_tp export --model llama3-8b --seq 4096 --tp 2 --pp 1 --dp 4 --recompute full --attention unfused
expect export-attention-unfused exit=0 'stdout~^--attention-backend unfused '

# A plan the framework cannot run: refused, or the nearest with --nearest
E_Z1='--tp 8 --pp 4 --dp 8 --sp --recompute selective --zero 1'
# shellcheck disable=SC2086
run_tp export --framework torchtitan $E_Z1
expect export-refuse exit=1 stdout= \
    "stderr1=trainplan: error: --framework torchtitan cannot run tp8.pp4.dp8.mb1.pf20.pl19.sp.rc-sel.z1: stack-zero: the stack cannot run zero 1 (no ZeRO-1 / distributed optimizer) (--nearest exports the nearest plan it runs)"
# shellcheck disable=SC2086
run_tp export --framework torchtitan $E_Z1 --nearest
expect export-nearest exit=0 'stdout~^# trainplan: .* \(stack torchtitan\), 256 GPUs: tp8\.pp4\.dp8\.mb1(\.pf[0-9]+\.pl[0-9]+)?\.sp\.rc-sel(\.z3)?$' \
    'stderr~^trainplan: warning: --nearest: tp8\.pp4\.dp8\.mb1(\.pf[0-9]+\.pl[0-9]+)?\.sp\.rc-sel(\.z3)?, predicted [0-9.]+ s per iteration$'
run_tp export --model bloom-176b --tp 8 --pp 14 --dp 2 --nearest
expect export-alibi exit=1 stdout= \
    "stderr1=trainplan: error: --framework megatron: megatron has no ALiBi position embedding (model bloom-176b)"
run_tp export --model gpt3-175b --seq 4096 --tp 8 --pp 12 --dp 8
expect export-learned-short exit=1 stdout= \
    "stderr~seq 4096 exceeds the 2048 rows of gpt3-175b's learned position table"

# A plan that does not fit: nothing written unless --force
run_tp export --model llama3-405b --tp 8 --pp 1 --dp 1
expect export-oom exit=1 stdout= '[ "$(t_lines "$T_ERR")" = 1 ]' \
    'stderr~^trainplan: error: tp8\.pp1\.dp1\.mb1(\.no-ov)? does not fit on dgx-h100: [0-9.]+ GiB per GPU \(stage 0\) of [0-9.]+ GiB usable, short by [0-9.]+ GiB; nothing written \(--force writes it\)$'
run_tp export --model llama3-405b --tp 8 --pp 1 --dp 1 --force
expect export-oom-force exit=1 'stdout~does not fit or breaks a rule' 'stdout~^--tensor-model-parallel-size 8 '

# a preset changed by --set model.* is labelled in the header (and in every
# output: the model's name); set to its own value it is not
run_tp export --set model.layers=48 --tp 8 --pp 4 --dp 8 --sp --recompute selective
expect export-set-labelled exit=0 'stdout~^# trainplan: llama3-70b\+set on dgx-h100' 'stdout~^--num-layers 48 '
run_tp export --set model.layers=80 --tp 8 --pp 4 --dp 8 --sp --recompute selective
expect export-set-same exit=0 'stdout~^# trainplan: llama3-70b on dgx-h100'
run_tp predict --set model.layers=48 --tp 8 --pp 4 --dp 8 --sp --recompute selective --format json
expect predict-set-labelled exit=0 'stdout~"llama3-70b\+set"'
# torchtitan always overlaps: a plan with the DP overlap off is refused
run_tp export --framework torchtitan --model llama3-8b --seq 8192 --gbs 16 \
    --tp 1 --pp 1 --dp 8 --mbs 1 --zero 3 --overlap=n
expect export-torchtitan-no-overlap exit=1 stdout= \
    "stderr1=trainplan: error: --framework torchtitan cannot run tp1.pp1.dp8.mb1.z3.no-ov: torchtitan always overlaps data-parallel communication (FSDP2 prefetch, DDP's bucketed all-reduce hooks); use --overlap=y (--nearest exports the nearest plan it runs)"

# HSDP: FSDP2 over 8 ranks, replicated twice; Megatron's optimizer instances
run_tp export --framework torchtitan --model llama3-8b --seq 8192 --gbs 32 \
    --tp 1 --pp 1 --dp 16 --mbs 1 --zero 3 --replicas 2 --recompute full
expect export-torchtitan-hsdp exit=0 'stdout~^data_parallel_shard_degree = 8$' \
    'stdout~^data_parallel_replicate_degree = 2$'
run_tp export --framework megatron --model llama3-8b --seq 8192 --gbs 32 \
    --tp 1 --pp 1 --dp 16 --mbs 1 --zero 3 --replicas 2 --recompute full
expect export-megatron-hsdp exit=0 \
    'stdout~^--num-distributed-optimizer-instances 2 \\$' \
    'stdout~^--outer-dp-sharding-strategy no_shard \\$'

# ---- mixture of experts (results/export_moe.c) ----
# DeepSeek's family on 2048 H100s (PP16, EP64, ZeRO-1; torchtitan: FSDP2);
# Mixtral 8x7B on 64 GPUs; Qwen3-30B-A3B on 64 GPUs (head width 128)
E_DS='--model deepseek-v3 --system dgx-h100 --seq 4096 --gbs 15360 --tp 1 --pp 16 --dp 128 --ep 64 --etp 1 --recompute full'
E_MIX='--model mixtral-8x7b --system dgx-h100 --seq 4096 --gbs 256 --tp 2 --pp 1 --dp 32 --ep 8 --etp 1 --sp --recompute selective'
E_QW='--model qwen3-30b-a3b --system dgx-h100 --seq 4096 --gbs 512 --tp 1 --pp 1 --dp 64 --ep 32 --etp 1 --recompute selective'
# e_moe_plan FW PLAN: the plan with the framework's sharding (torchtitan:
# FSDP2, no ZeRO-1)
e_moe_plan()
{
    if [ "$1" = torchtitan ]; then echo "$2 --zero 3"; else echo "$2 --zero 1"; fi
}
for e_fw in megatron nemo torchtitan; do
    # shellcheck disable=SC2046
    golden "golden-export-$e_fw-deepseek-v3" "export-$e_fw-deepseek-v3.expected" \
        -- export --framework "$e_fw" $(e_moe_plan "$e_fw" "$E_DS")
done
for e_fw in megatron nemo; do
    # shellcheck disable=SC2046
    golden "golden-export-$e_fw-mixtral" "export-$e_fw-mixtral.expected" \
        -- export --framework "$e_fw" $(e_moe_plan "$e_fw" "$E_MIX")
done
for e_fw in megatron torchtitan; do
    # shellcheck disable=SC2046
    golden "golden-export-$e_fw-qwen3" "export-$e_fw-qwen3.expected" \
        -- export --framework "$e_fw" $(e_moe_plan "$e_fw" "$E_QW")
done
# Mixtral 8x7B on 8 H100s: the best plan offloads the optimizer (nothing
# fits with Adam's states on the GPU); the launch settings say so.
# torchtitan has no such offload: its stack refuses the plan (stack-
# offload), and so does its exporter where a stack file lets it through
for e_fw in megatron nemo; do
    golden "golden-export-$e_fw-mixtral-offload" "export-$e_fw-mixtral-offload.expected" \
        -- export --framework "$e_fw" --gpus 8 --model mixtral-8x7b --seq 4096 --gbs 256
done
E_TTO='--framework torchtitan --model llama3-8b --seq 4096 --gbs 64 --tp 1 --dp 8 --zero 1 --offload'
# shellcheck disable=SC2086
run_tp export $E_TTO --set 'stack.zero=[0,1,3]'
expect export-torchtitan-offload-stack exit=1 \
    'stderr~cannot run tp1\.pp1\.dp8\.mb1\.z1\.offload: stack-offload: the stack cannot offload optimizer states'
# shellcheck disable=SC2086
run_tp export $E_TTO --set 'stack.zero=[0,1,3]' --set stack.optimizer_offload=true
expect export-torchtitan-offload exit=1 \
    'stderr~torchtitan has no chunked optimizer-state offload .*use --offload=n'

# Names: every name the MoE exports emit is documented (export-names.txt,
# the framework's line and its -moe line), and every -moe name is emitted
# by some export of this set (gpt-oss: windows; a capacity factor; FP8;
# the all-to-all overlap)
for e_fw in megatron nemo torchtitan; do
    : >"$T_TMP/moe"
    for e_plan in "$E_DS" "$E_MIX" "$E_QW" \
        "--model gpt-oss-120b --seq 4096 --gbs 256 --tp 1 --pp 1 --dp 64 --ep 64 --etp 1" \
        "$E_QW --set model.moe_capacity_factor=1.25" "$E_QW --precision fp8" \
        "$E_QW --epo"; do
        # shellcheck disable=SC2046
        "$TRAINPLAN" export --framework "$e_fw" --force $(e_moe_plan "$e_fw" "$e_plan") \
            2>/dev/null >"$T_TMP/moe-out"
        # keys without their section; torchtitan's tables as "[name]"
        e_keys "$e_fw" <"$T_TMP/moe-out" | sed 's/^.*\.\([a-z_0-9]*\)$/\1/' >>"$T_TMP/moe"
        [ "$e_fw" = torchtitan ] && grep '^\[' "$T_TMP/moe-out" >>"$T_TMP/moe"
    done
    e_known=" $(grep "^$e_fw \|^$e_fw-moe " tests/data/export-names.txt | cut -d' ' -f2- | tr '\n' ' ') "
    e_bad=
    e_unused=
    # one name a line: words are names
    # shellcheck disable=SC2013
    for e_name in $(sort -u "$T_TMP/moe"); do
        case $e_known in
        *" $e_name "*|*" $e_name: "*) ;;
        *) e_bad="$e_bad $e_name" ;;
        esac
    done
    # shellcheck disable=SC2013
    for e_name in $(grep "^$e_fw-moe " tests/data/export-names.txt | cut -d' ' -f2-); do
        # a section is listed "name:" (nemo)
        grep -qxF -- "${e_name%:}" "$T_TMP/moe" || e_unused="$e_unused $e_name"
    done
    T_CMD="export --framework $e_fw (MoE set): undocumented:$e_bad; never emitted:$e_unused"
    expect "export-moe-names-$e_fw" '[ -s "$T_TMP/moe" ] && [ -z "$e_bad$e_unused" ]'
done

# Complete: each MoE plan carries the framework's required keys and its
# -moe ones (export-required.txt)
for e_fw in megatron nemo torchtitan; do
    e_req="$(grep "^$e_fw \|^$e_fw-moe " tests/data/export-required.txt | cut -d' ' -f2- | tr '\n' ' ')"
    for e_plan in "$E_DS" "$E_MIX" "$E_QW"; do
        [ "$e_fw" = torchtitan ] && [ "$e_plan" = "$E_MIX" ] && continue
        # shellcheck disable=SC2046
        "$TRAINPLAN" export --framework "$e_fw" --force $(e_moe_plan "$e_fw" "$e_plan") \
            2>/dev/null | e_keys "$e_fw" >"$T_TMP/keys"
        e_missing=
        for e_k in $e_req; do
            e_hit=
            for e_alt in $(echo "$e_k" | tr '|' ' '); do
                grep -qx -- "$e_alt" "$T_TMP/keys" && e_hit=1
            done
            [ -n "$e_hit" ] || e_missing="$e_missing $e_k"
        done
        T_CMD="export --framework $e_fw $e_plan: missing$e_missing"
        expect "export-moe-complete-$e_fw" '[ -s "$T_TMP/keys" ] && [ -z "$e_missing" ]'
    done
done

# What a framework cannot run of a mixture of experts: refused, the reason
# named (torchtitan has no Mixtral; its experts take etp 1 or tp; ep comes
# out of the FSDP ranks; Megatron-Core's expert biases need etp 1)
# shellcheck disable=SC2086
run_tp export --framework torchtitan $E_MIX --zero 3
expect export-moe-titan-mixtral exit=1 stdout= \
    "stderr1=trainplan: error: --framework torchtitan: torchtitan has no model with the shapes of mixtral-8x7b (its MoE flavors: deepseek_v3 16B, 236B, 671B; qwen3 30B-A3B, 235B-A22B; gpt_oss 20b, 120b)"
run_tp export --framework torchtitan --model qwen3-30b-a3b --seq 4096 \
    --gbs 512 --tp 2 --pp 1 --dp 32 --ep 8 --etp 1 --sp --zero 0
expect export-moe-titan-ep-ddp exit=1 stdout= \
    'stderr~ep-mesh-fold: ep.etp .8. does not divide the FSDP-sharded ranks x cp x tp .1 x 1 x 2.'
run_tp export --framework megatron --model gpt-oss-120b --seq 4096 --gbs 256 \
    --tp 2 --pp 1 --dp 32 --ep 8 --etp 2 --sp --zero 1
expect export-moe-megatron-bias-etp exit=1 stdout= \
    'stderr~Megatron-Core has no expert biases with etp > 1 \(gpt-oss-120b has biases, etp 2\)'

# The MoE all-to-all overlap under Megatron-FSDP: comm_overlap after ddp's
# keys, so use_megatron_fsdp stays in ddp
"$TRAINPLAN" export --framework nemo --model qwen3-30b-a3b --seq 4096 --gbs 512 \
    --tp 1 --pp 1 --dp 64 --ep 32 --zero 3 --epo --force 2>/dev/null \
    | e_keys nemo >"$T_TMP/keys"
T_CMD="export --framework nemo qwen3-30b-a3b --zero 3 --epo: keys"
expect export-nemo-epo-fsdp 'grep -qx ddp.use_megatron_fsdp "$T_TMP/keys"' \
    'grep -qx comm_overlap.overlap_moe_expert_parallel_comm "$T_TMP/keys"'
