# tests/cli/t-hf.sh: a Hugging Face config.json as --model, end to end: the
# README's "Bring your own model" three commands (search, predict, export)
# from Llama-3-8B's config.json to Megatron-LM flags. Sourced by run.sh.

# expect's conditions are single-quoted, for lib.sh to eval after the run
# (file-wide directive):
# shellcheck disable=SC2016,SC2034

H_CFG=tests/data/hf/llama-3-8b/config.json
run_tp search --model "$H_CFG" --gpus 64 --top 1 --format csv
h_key=$(t_cols "$T_OUT" key | sed -n 1p)
expect hf-search exit=0 '[ -n "$h_key" ]'
run_tp predict --model "$H_CFG" --tp 1 --pp 1 --dp 64 --recompute full --zero 1
expect hf-predict exit=0 'stdout~^llama-3-8b on dgx-h100'
run_tp export --model "$H_CFG" --gpus 64
expect hf-export exit=0 "stdout~GPUs: $h_key\$" 'stdout~^--rotary-base 500000 ' \
    'stdout~^--num-layers 32 ' 'stdout~^--num-query-groups 8 ' \
    'stdout~^--ffn-hidden-size 14336 ' 'stdout~^--max-position-embeddings 8192 '
# the same flags as the preset made from the same config.json, but the name
run_tp export --model llama3-8b --gpus 64
sed 1d "$T_OUT" >"$T_TMP/preset"
run_tp export --model "$H_CFG" --gpus 64
expect hf-export-is-preset exit=0 'sed 1d "$T_OUT" | cmp -s - "$T_TMP/preset"'
# DeepSeek-V3's config.json gives the deepseek-v3 preset's launch
run_tp export --model deepseek-v3 --seq 4096 --gbs 15360 --gpus 1024
sed 1d "$T_OUT" >"$T_TMP/preset"
run_tp export --model tests/data/hf/deepseek-v3/config.json --seq 4096 --gbs 15360 --gpus 1024
expect hf-deepseek-v3-is-preset exit=0 'sed 1d "$T_OUT" | cmp -s - "$T_TMP/preset"' \
    'stdout~^--q-lora-rank 1536 ' 'stdout~^--num-experts 256 '
# the Llama 2 presets are the released config.json files (meta-llama/
# Llama-2-7b-hf, Llama-2-70b-hf; copies of their fields written for the
# tests, no rope_theta: transformers' default 10000): the same launch
for h_m in 7b 70b; do
    run_tp export --model "llama2-$h_m" --seq 4096 --gpus 64
    sed 1d "$T_OUT" >"$T_TMP/preset"
    run_tp export --model "tests/data/hf/llama-2-$h_m/config.json" --seq 4096 --gpus 64
    expect "hf-llama2-$h_m-is-preset" exit=0 'sed 1d "$T_OUT" | cmp -s - "$T_TMP/preset"' \
        'stdout~^--rotary-base 10000 '
done
# per-projection biases: Qwen2's on Q, K, V only reach Megatron-LM as
# --add-qkv-bias beside --disable-bias-linear; the model file says qkv_bias
run_tp export --model tests/data/hf/qwen2-7b/config.json --gpus 64
expect hf-qwen2-qkv-bias exit=0 'stdout~^--disable-bias-linear ' 'stdout~^--add-qkv-bias '
run_tp show model tests/data/hf/qwen2-7b/config.json
expect hf-qwen2-show exit=0 'stdout~^  qkv_bias = true;' 'stdout~^# parameters +7615616512 total'
run_tp export --model llama3-8b --gpus 64
expect qkv-bias-absent exit=0 'stdout!~add-qkv-bias'
check qkv-bias-type 3 "trainplan: error: --set model.qkv_bias: 'qkv_bias' must be true or false, not an integer" -- predict --model llama3-8b --set model.qkv_bias=3
