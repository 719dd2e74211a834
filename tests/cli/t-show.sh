# tests/cli/t-show.sh: show model|system: the printed file reads back as the
# same input (presets, a config.json, --set), the derived figures, usage
# errors. Sourced by run.sh.

# expect's conditions are single-quoted, for lib.sh to eval after the run
# (file-wide directive):
# shellcheck disable=SC2016,SC2034

S_PLAN='--tp 8 --pp 4 --dp 8 --sp --recompute selective --zero 1'
# a user's own system starts from the preset: the same prediction
run_tp show system dgx-h100
cp "$T_OUT" "$T_TMP/mine.cfg"
expect show-system exit=0 'stdout~^# GEMM +[0-9.]+ TFLOP/s bf16 \(eff_gemm' 'stdout~^# network +' \
    'stdout~^# host link +55\.4 GB/s per GPU and direction \(eff_host 0\.88\); 38\.4 GB/s each way when all 8 GPUs of a node copy \(host memory 614\.4 GB/s\)$'
# a system file without a host link says so
run_tp show system tests/data/system-ok.cfg
expect show-system-no-host exit=0 'stdout~^# host link +none given: no optimizer offload$'
# shellcheck disable=SC2086
"$TRAINPLAN" predict $S_PLAN >"$T_TMP/preset.txt" 2>&1
# shellcheck disable=SC2086
run_tp predict --system "$T_TMP/mine.cfg" $S_PLAN
expect show-system-reads-back exit=0 'cmp -s "$T_OUT" "$T_TMP/preset.txt"'

# a preset model: its text with the source comments, then the counts (per
# layer by hand: 2h^2 + 2h kv + 3hf + 2h = 855,654,400 for h 8192, kv 1024,
# f 28672)
run_tp show model llama3-70b
cp "$T_OUT" "$T_TMP/m.cfg"
expect show-model exit=0 'stdout~^# llama3-70b: Meta Llama 3 70B \(source:' \
    'stdout~^# parameters +70553706496 total: 855654400 per dense layer x 80 layers'
# shellcheck disable=SC2086
run_tp predict --model "$T_TMP/m.cfg" $S_PLAN
expect show-model-reads-back exit=0 'cmp -s "$T_OUT" "$T_TMP/preset.txt"'

# a config.json: the model file it maps to; --set: the changed tree
run_tp show model tests/data/hf/llama-3-8b/config.json
cp "$T_OUT" "$T_TMP/hf.cfg"
expect show-hf exit=0 'stdout~^  name = "llama-3-8b";' 'stdout~^# parameters +8030261248 total'
run_tp predict --model "$T_TMP/hf.cfg" --tp 2 --pp 1 --dp 4 --recompute full
sed 1d "$T_OUT" >"$T_TMP/hf.txt"
run_tp predict --model tests/data/hf/llama-3-8b/config.json --tp 2 --pp 1 --dp 4 --recompute full
expect show-hf-reads-back exit=0 'sed 1d "$T_OUT" | cmp -s - "$T_TMP/hf.txt"'
run_tp show model llama3-70b --set model.layers=48
cp "$T_OUT" "$T_TMP/m48.cfg"
expect show-set exit=0 'stdout~^# llama3-70b as trainplan resolves it, with --set' \
    'stdout~x 48 layers'
run_tp predict --model "$T_TMP/m48.cfg" --tp 8 --pp 4 --dp 8
expect show-set-reads-back exit=0 'stdout~^llama3-70b on dgx-h100'

check show-what 2 "trainplan: error: show what? 'trainplan show model NAME|FILE' or 'trainplan show system NAME|FILE'" -- show stack megatron-core
check show-no-name 2 "trainplan: error: give a preset name or a file: trainplan show model NAME|FILE" -- show model
check show-two-names 2 "trainplan: error: unexpected argument 'b'" -- show model a b
check show-bad-option 2 "trainplan: error: unknown option '--sq'" -- show model llama3-8b --sq 2
check show-set-other 2 "trainplan: error: --set gpu.hbm_gib=10: not a model setting" -- show model llama3-8b --set gpu.hbm_gib=10
check show-unknown 3 "trainplan: error: unknown model 'nope': not a preset (see 'trainplan list models') nor a file" -- show model nope
