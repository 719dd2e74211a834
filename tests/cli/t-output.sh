# tests/cli/t-output.sh: what programs read (README "Machine outputs"):
# schema_version in every JSON and CSV, numbers that read back exactly,
# booleans spelled alike in CSV and JSON, NeMo auto-configurator columns,
# the uncalibrated flag on every row, node energy. Sourced by run.sh.

# expect's conditions are single-quoted, for lib.sh to eval after the run,
# so the variables they read (and T_CMD, read by lib.sh) look unused
# (file-wide directive):
# shellcheck disable=SC2016,SC2034

O_PLAN='--tp 8 --pp 4 --dp 8 --sp --recompute selective --zero 1'

# ---- schema_version: JSON's first key, CSV's last column, every report ----
# shellcheck disable=SC2086
for o_cmd in "predict $O_PLAN" "search --gpus 64 --top 2" \
             "tradeoff --gpus 64,128" "compare --systems dgx-a100,dgx-h100 --gpus 64" \
             "validate tests/data/runs/small.csv"; do
    o_name=$(echo "$o_cmd" | cut -d' ' -f1)
    run_tp $o_cmd --format json
    expect "schema-json-$o_name" '[ "$(sed -n 2p "$T_OUT")" = "  \"schema_version\": 1," ]'
    run_tp $o_cmd --format csv
    expect "schema-csv-$o_name" 'sed -n 1p "$T_OUT" | grep -q ",schema_version$"' \
        '[ "$(sed 1d "$T_OUT" | grep -vc ",1$")" = 0 ]' \
        '[ "$(awk -F, "NR == 1 { n = NF } NF != n" "$T_OUT" | wc -l)" = 0 ]'
done

# ---- full precision: the CSV's and the JSON's numbers are the same text,
# and the shortest that reads back (no 10-digit or 6-digit rounding) ----
# shellcheck disable=SC2086
run_tp predict $O_PLAN --format csv
o_csv=$(t_cols "$T_OUT" iteration_s tokens_per_s mfu memory_gib)
# shellcheck disable=SC2086
run_tp predict $O_PLAN --format json
o_json=$(python3 -c '
import json, sys
d = json.load(sys.stdin)
print(",".join(repr(d[k]) for k in ("iteration_s", "tokens_per_s", "mfu", "memory_gib")))
' <"$T_OUT" 2>/dev/null)
T_CMD="predict: CSV '$o_csv' vs JSON (Python repr, shortest round trip) '$o_json'"
if command -v python3 >/dev/null 2>&1; then
    expect full-precision '[ -n "$o_csv" ] && [ "$o_csv" = "$o_json" ]' \
        '[ "$(echo "$o_csv" | cut -d, -f1 | tr -d . | wc -c)" -gt 12 ]'
else
    skip full-precision "python3 not installed"
fi
# 1,219,426-like counts stay whole: params and FLOPs per token as integers
# or exact reals, never "1.21943e+06"
expect no-exponent-rounding 'stdout!~[0-9]\.[0-9]{5}e\+0[0-9]'

# ---- booleans: true/false in CSV as in JSON ----
# shellcheck disable=SC2086
run_tp predict $O_PLAN --format csv
expect csv-booleans '[ "$(t_cols "$T_OUT" sp tpo fits calibrated outside_validated_region)" = "true,false,true,true,false" ]'

# ---- NeMo auto-configurator columns (nodes, GPUs per node, samples/s,
# model TFLOP/s per GPU; cp is a plan column) ----
# shellcheck disable=SC2086
run_tp predict $O_PLAN --format csv
o_nemo=$(t_cols "$T_OUT" gpus nodes gpus_per_node cp gbs iteration_s samples_per_s model_tflops_per_gpu mfu)
T_CMD="predict --format csv: gpus,nodes,gpus_per_node,cp,gbs,iteration_s,samples_per_s,model_tflops_per_gpu,mfu = $o_nemo"
# 256 GPUs on 8-GPU nodes: 32 nodes; samples/s = gbs / iteration_s; model
# TFLOP/s per GPU = MFU x the H100's 989.4 dense BF16 TFLOP/s
expect nemo-columns '[ "$(echo "$o_nemo" | cut -d, -f1-4)" = "256,32,8,1" ]' \
    'echo "$o_nemo" | awk -F, "{ s = \$5 / \$6; t = \$9 * 989.4
        exit !(\$7 > s * 0.999999 && \$7 < s * 1.000001 && \$8 > t * 0.999999 && \$8 < t * 1.000001) }"'
run_tp search --gpus 20 --tp 4 --pp 1 --model llama3-8b --gbs 500 --format json
expect nemo-json-partial-node exit=0 'stdout~"nodes": 3,' 'stdout~"gpus_per_node": 8,' \
    'stdout~"samples_per_s": ' 'stdout~"model_tflops_per_gpu": '

# ---- a partial CSV is plain CSV: no comment line ----
interrupt search --model gpt3-175b --system selene-a100 --gbs 1536 --seq 2048 --gpus 8..16384:8 --format csv
T_CMD="interrupted search --format csv"
expect partial-csv-plain '[ "$T_RC" = 130 ]' '! grep -q "^#" "$T_OUT"' \
    'grep -q "partial\|best plans found so far" "$T_ERR"'

# ---- uncalibrated systems flagged on every row: sweep and tradeoff ----
cat >"$T_TMP/o-sweep.cfg" <<EOF
sweep: {
  scenario = "default";
  models   = [ "llama3-8b" ];
  systems  = [ "dgx-h100", "dgx-b200" ];
  gpus     = "64";
  tokens   = 1e12;
  vary     = [ "network.nic_gbps=400" ];
};
EOF
run_tp sweep "$T_TMP/o-sweep.cfg" --format csv
expect sweep-uncalibrated-csv exit=0 \
    '[ "$(t_cols "$T_OUT" system calibrated | tr "\n" " ")" = "dgx-h100,true dgx-b200,false " ]'
run_tp sweep "$T_TMP/o-sweep.cfg" --format json
expect sweep-uncalibrated-json exit=0 'stdout~"calibrated": false' 'stdout~"calibrated": true'
run_tp sweep "$T_TMP/o-sweep.cfg"
expect sweep-uncalibrated-table exit=0 'stdout~^ +1  llama3-8b +dgx-b200 .*uncalibrated$' \
    'stdout!~dgx-h100 .*uncalibrated$' 'stdout~^uncalibrated: rows so marked'
run_tp tradeoff --system dgx-b200 --gpus 64,128 --format csv
expect tradeoff-uncalibrated-csv exit=0 '[ "$(t_cols "$T_OUT" calibrated | tr "\n" " ")" = "false false " ]'
run_tp tradeoff --system dgx-b200 --gpus 64 --format json
expect tradeoff-uncalibrated-json-row exit=0 \
    '[ "$(grep -c "\"calibrated\": false" "$T_OUT")" -ge 2 ]'

# ---- energy: GPU boards, and whole nodes where the system gives a node
# power (dgx-h100: 10.2 kW); none for a system without (dgx-a100) ----
run_tp tradeoff --system dgx-h100 --gpus 64 --format csv
expect node-energy-h100 exit=0 't_cols "$T_OUT" energy_kwh node_energy_kwh | awk -F, "{ exit !(\$2 > \$1 * 1.3) }"'
run_tp tradeoff --system dgx-a100 --gpus 64 --format csv
expect node-energy-none exit=0 '[ "$(t_cols "$T_OUT" node_energy_kwh)" = "" ]'
run_tp tradeoff --system dgx-a100 --gpus 64 --format json
expect node-energy-null exit=0 'stdout~"node_energy_kwh": null' 'stdout~"node_power_w_per_gpu": null'
# per GPU: the board (<= 85 % of 700 W, Morrison et al.) and its node slot
# (hosts, NICs, switches, fans on top: <= 10.2 kW x 0.76 / 8 = 969 W)
run_tp tradeoff --system dgx-h100 --gpus 64 --format csv
expect node-power-per-gpu exit=0 't_cols "$T_OUT" power_w_per_gpu node_power_w_per_gpu | awk -F, "{ exit !(\$1 > 300 && \$1 <= 595.01 && \$2 > \$1 + 370 && \$2 <= 969.01) }"'
run_tp tradeoff --system dgx-h100 --gpus 64
expect node-energy-table exit=0 'stdout~GPU MWh +W/GPU +node MWh' \
    'stdout~^energy: GPU MWh and W/GPU are the GPU boards. \(43-85 %' 'stdout~node MWh the whole nodes'
run_tp tradeoff --system dgx-a100 --gpus 64
expect node-energy-table-none exit=0 'stdout~^ +64  tp[^ ]+ .* - +100\.0%' \
    'stdout~node MWh: no node power in the system file'
same_output power-set-node predict --system dgx-a100 --tp 8 --format csv vs \
    predict --system dgx-a100 --tp 8 --format csv --set power.node_kw=6.5
other_output power-set-busy tradeoff --system dgx-h100 --gpus 64 --format csv vs \
    tradeoff --system dgx-h100 --gpus 64 --format csv --set power.gpu_busy_frac=0.9
check power-bad-frac 3 "trainplan: error: --set power.gpu_busy_frac: 'gpu_busy_frac' must be a number in (0, 1]" -- tradeoff --gpus 64 --set power.gpu_busy_frac=1.5

# ---- no plan.plan: a tradeoff or compare row's prediction is 'best' ----
run_tp tradeoff --gpus 64 --format json
o_key=$(python3 -c 'import json, sys; r = json.load(sys.stdin)["rows"][0]; print(r["best"]["plan"]["key"], "plan" in r)' <"$T_OUT" 2>/dev/null)
T_CMD="tradeoff --format json: rows[0].best.plan.key, a 'plan' key in the row: $o_key"
if command -v python3 >/dev/null 2>&1; then
    expect json-best-not-plan-plan 'echo "$o_key" | grep -Eq "^tp[0-9]+\..* False$"'
else
    skip json-best-not-plan-plan "python3 not installed"
fi
