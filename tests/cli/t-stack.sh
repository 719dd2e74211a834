# tests/cli/t-stack.sh: stacks (spaces/stacks/, README "Stacks"): the list,
# --stack on every planning command and what it changes, the plan rules
# stack-schedule and stack-zero, --attention over the stack's kernel, and
# export predicting with its framework's stack. Sourced by run.sh.

# expect's conditions are single-quoted, for lib.sh to eval after the run,
# so the variables they read look unused (file-wide directive):
# shellcheck disable=SC2016,SC2034

golden golden-list-stacks list-stacks.expected -- list stacks

K_PLAN='--model gpt3-175b --system selene-a100 --seq 2048 --gbs 1536 --tp 8 --pp 12 --dp 16 --recompute full --precision fp16'
# the same plan under each stack: a golden table each
for k_stack in megatron-lm-2021 megatron-deepspeed megatron-core torchtitan nemo-automodel; do
    # shellcheck disable=SC2086
    golden "golden-stack-$k_stack" "predict-stack-$k_stack.expected" -- \
        predict $K_PLAN --stack "$k_stack"
done
# the default is megatron-core; --stack takes a file as well as a name
# shellcheck disable=SC2086
same_output stack-default predict $K_PLAN vs predict $K_PLAN --stack megatron-core
# shellcheck disable=SC2086
same_output stack-file predict $K_PLAN --stack megatron-core vs \
    predict $K_PLAN --stack tests/data/stack-ok.cfg
# shellcheck disable=SC2086
other_output stack-changes-prediction predict $K_PLAN vs \
    predict $K_PLAN --stack megatron-lm-2021
# --set stack.FIELD is the same as the file's field
# shellcheck disable=SC2086
same_output stack-set --sed 's/megatron-core/megatron-lm-2021/' \
    predict $K_PLAN --set stack.attention=unfused --set stack.dropout=true \
    --set stack.overlap_grad_reduce=false --set stack.overlap_param_gather=false \
    --set stack.host_us=61.1 --set stack.zero=0,3 --set stack.zero_pp=0 --set stack.tp_comm_overlap=none --set stack.cp_comm=none \
    --set stack.band_low_pct=-14.7 --set stack.band_high_pct=3.8 --set stack.validated_archs=ampere --set stack.grad_accum_bytes=10 \
    --set stack.framework=megatron vs predict $K_PLAN --stack megatron-lm-2021
# --attention overrides the stack's kernel
# shellcheck disable=SC2086
same_output stack-attention-shortcut predict $K_PLAN --attention unfused vs \
    predict $K_PLAN --set stack.attention=unfused
# the output names the stack: table, CSV column after system, JSON key
# shellcheck disable=SC2086
run_tp predict $K_PLAN --stack torchtitan --format csv
expect stack-csv-column exit=0 '[ "$(cut -d, -f4 "$T_OUT" | tr "\n" " ")" = "stack torchtitan " ]'
# shellcheck disable=SC2086
run_tp predict $K_PLAN --stack torchtitan --format json
expect stack-json-key exit=0 'grep -q "^    \"stack\": \"torchtitan\"$" "$T_OUT"'

# the rules: DeepSpeed's pipeline has no interleaving; torchtitan no ZeRO-1
run_tp predict --tp 8 --pp 4 --dp 8 --vpp 2 --stack megatron-deepspeed
expect stack-schedule-rule exit=1 \
    'grep -q "no: stack-schedule: vpp (2) > 1 needs the interleaved schedule" "$T_OUT"'
run_tp predict --tp 8 --pp 4 --dp 8 --zero 1 --stack torchtitan
expect stack-zero-rule exit=1 'grep -q "no: stack-zero: the stack cannot run zero 1" "$T_OUT"'
# a search under a stack never returns a plan it cannot run
run_tp search --model llama3-8b --system dgx-h100 --seq 4096 --gbs 256 \
    --gpus 64,128 --stack torchtitan --format csv
expect stack-search exit=0 'grep -q torchtitan "$T_OUT"' '! grep -q "\.z1," "$T_OUT"'
run_tp tradeoff --model llama3-8b --system dgx-h100 --seq 4096 --gbs 256 \
    --gpus 64,128 --tokens 1e12 --stack torchtitan
expect stack-tradeoff exit=0 'grep -q "^llama3-8b on dgx-h100 (stack torchtitan)" "$T_OUT"' \
    '! grep -q "\.z1 " "$T_OUT"'
run_tp search --model llama3-8b --system dgx-h100 --seq 4096 --gbs 256 \
    --gpus 64 --stack megatron-deepspeed --format json
expect stack-search-vpp exit=0 '! grep -q "\"vpp\": [2-9]" "$T_OUT"' \
    'grep -q "\"stack-schedule\": [1-9]" "$T_OUT"'
run_tp compare --systems dgx-a100,dgx-h100 --model llama3-8b --seq 4096 \
    --gbs 256 --gpus 64 --tokens 1e12 --stack torchtitan --format csv
expect stack-compare exit=0 \
    '[ "$(sed -n 2p "$T_OUT" | cut -d, -f4,5)" = "dgx-a100,torchtitan" ]'

# export: the framework's stack, named in the banner; --stack of another
# framework is a usage error naming both
K_SMALL='--model llama3-8b --seq 4096 --gbs 256 --tp 2 --pp 2 --dp 16'
# shellcheck disable=SC2086
run_tp export --framework torchtitan $K_SMALL
expect export-torchtitan-stack exit=0 'grep -q "^# trainplan: .*(stack torchtitan)" "$T_OUT"'
# shellcheck disable=SC2086
run_tp export --framework nemo $K_SMALL --zero 1
expect export-nemo-stack exit=0 'grep -q "^# trainplan: .*(stack megatron-core)" "$T_OUT"'
# shellcheck disable=SC2086
# with full recompute: at seq 4096 Megatron-LM 2021's softmax falls back to
# PyTorch (its fused kernel stops at 2048 keys), whose fp32 scores would
# not fit every layer's activations
run_tp export --framework megatron --stack megatron-lm-2021 $K_SMALL --recompute full
expect export-megatron-2021 exit=0 'grep -q "(stack megatron-lm-2021)" "$T_OUT"'
check export-stack-mismatch 2 "trainplan: error: --stack megatron-core (framework: megatron, nemo) is not launched by --framework torchtitan (its stack: torchtitan)" -- \
    export --framework torchtitan --stack megatron-core --tp 8 --pp 4 --dp 8
check export-stack-none 2 "trainplan: error: --stack megatron-deepspeed (framework: none) is not launched by --framework megatron (its stack: megatron-core)" -- \
    export --stack megatron-deepspeed --tp 8 --pp 4 --dp 8
# export --gpus N searches under the framework's stack
run_tp export --framework torchtitan --gpus 64 --model llama3-8b --seq 4096 --gbs 256
expect export-search-stack exit=0 'grep -q "(stack torchtitan), 64 GPUs: .*" "$T_OUT"' \
    '! grep -q "^# trainplan: .*\.z1$" "$T_OUT"'
