# tests/cli/t-compare.sh: compare: golden reports, agreement with tradeoff,
# variants, usage errors. Sourced by run.sh.

# expect's conditions are single-quoted, for lib.sh to eval after the run,
# so the variables they read (and T_CMD, read by lib.sh) look unused
# (file-wide directive):
# shellcheck disable=SC2016,SC2034

C_JOB='--model llama3-8b --seq 4096 --gbs 256 --gpus 16,64 --tokens 1e12'
for c_fmt in table csv json; do
    # shellcheck disable=SC2086
    golden "golden-compare-$c_fmt" "compare-$c_fmt.expected" -- compare \
        --systems dgx-a100,dgx-h100,mi300x --variant a100-2xnet:network.nic_gbps=400 \
        $C_JOB --format "$c_fmt"
done

# the same figures as tradeoff on each system
# shellcheck disable=SC2086
"$TRAINPLAN" compare --systems dgx-h100 $C_JOB --format csv | sed -n 3p | cut -d, -f6,7,9,11 >"$T_TMP/c"
# shellcheck disable=SC2086
"$TRAINPLAN" tradeoff --system dgx-h100 $C_JOB --format csv | sed -n 3p | cut -d, -f4,5,8,10 >"$T_TMP/t"
T_CMD="compare '$(cat "$T_TMP/c")' vs tradeoff '$(cat "$T_TMP/t")'"
expect compare-agrees-with-tradeoff '[ -s "$T_TMP/c" ]' 'cmp -s "$T_TMP/c" "$T_TMP/t"'

check compare-variant-form 2 "trainplan: error: --variant 'fast': expected NAME[=BASE]:section.field=value[,...]" -- compare --variant fast --gpus 64
check compare-variant-stack 2 "trainplan: error: --variant 'eager:stack.host_us=67.5': 'stack.host_us=67.5' is not a system field; a variant changes the system only (model.*, job.*, space.* and stack.* apply to every column: use --set or --stack)" -- compare --variant eager:stack.host_us=67.5 --gpus 64
check compare-variant-set 2 "trainplan: error: --set 'network': expected section.field=value" -- compare --variant x:network --gpus 64
check compare-unknown-system 3 "trainplan: error: unknown system 'tpu-v5': not a preset (see 'trainplan list systems') nor a file" -- compare --systems dgx-h100,tpu-v5 --gpus 64
check compare-variant-bad-value 3 "trainplan: error: --variant slow: network.nic_gbps: 'nic_gbps' must be a number in (0, 10000000]" -- compare --variant slow:network.nic_gbps=0 --gpus 64
check compare-unknown-option 2 "trainplan: error: unknown option '--top'" -- compare --top 3

# a system with no plan at a count: n/a, never 0.00x; uncalibrated presets
# are flagged
run_tp compare --systems dgx-a100,dgx-b200 --model llama3-70b --seq 4096 --gbs 256 --gpus 8 --tokens 1e12
expect compare-na exit=0 'stdout~^  dgx-a100 +\(no feasible plan\) +n/a' \
    'stdout~^  dgx-b200 +tp[^ ]+ +256 +[0-9.]+ +n/a ' 'stdout!~0\.00x' \
    'stdout~^uncalibrated: dgx-b200'
run_tp compare --systems dgx-a100,dgx-b200 --model llama3-70b --seq 4096 --gbs 256 --gpus 8 --tokens 1e12 --format csv
expect compare-na-csv exit=0 'stdout~^8,1,8,dgx-b200,megatron-core,tp[^,]+,[0-9.]+,,' 'stdout~,false,256,1$'
run_tp compare --systems dgx-a100,dgx-b200 --model llama3-70b --seq 4096 --gbs 256 --gpus 8 --tokens 1e12 --format json
expect compare-na-json exit=0 'stdout~"speedup": null' 'stdout~"calibrated": false'
run_tp compare --systems dgx-a100,dgx-h100 --model llama3-70b --seq 8192 --gbs 512,1024 --gpus 200,256 --tokens 15e12
expect compare-gbs-list exit=0 'stdout~gbs 512\.\.1024' \
    'stdout~^  dgx-h100 +\(no feasible plan\) +n/a  batch sizes with a plan: 500' \
    'stdout~^  dgx-h100 +tp[^ ]+ +1024 '
# the flag follows the system into every report: search, predict, tradeoff, export
for c_cmd in search tradeoff export; do
    run_tp "$c_cmd" --system dgx-b200 --gpus 64
    expect "uncalibrated-$c_cmd" 'stdout~^(# )?uncalibrated: dgx-b200'
done
run_tp predict --system gb200-nvl72 --tp 8 --pp 4 --dp 2
expect uncalibrated-predict 'stdout~^uncalibrated: gb200-nvl72'
run_tp search --system dgx-h100 --gpus 64
expect calibrated-no-flag exit=0 'stdout!~uncalibrated'

# a variant names its base (NAME=BASE:...): the same figures as that system
# with the same --set, wherever it stands in --systems; without a base it
# changes the first system
# shellcheck disable=SC2086
"$TRAINPLAN" compare --systems dgx-a100,dgx-h100 --variant h100-2xnet=dgx-h100:network.nic_gbps=800 \
    $C_JOB --format csv | grep ',h100-2xnet,' | cut -d, -f1-3,5-7,9- >"$T_TMP/v"
# shellcheck disable=SC2086
"$TRAINPLAN" compare --systems dgx-h100 --set network.nic_gbps=800 $C_JOB --format csv \
    | grep ',dgx-h100,' | cut -d, -f1-3,5-7,9- >"$T_TMP/s"
T_CMD="variant h100-2xnet=dgx-h100 '$(cat "$T_TMP/v")' vs dgx-h100 --set '$(cat "$T_TMP/s")'"
expect compare-variant-base '[ -s "$T_TMP/v" ]' 'cmp -s "$T_TMP/v" "$T_TMP/s"'
run_tp compare --systems dgx-a100,dgx-h100 --variant h100-2xnet=dgx-h100:network.nic_gbps=800 \
    --variant a100-2xnet:network.nic_gbps=800 $C_JOB
expect compare-variant-bases exit=0 'stdout~^  h100-2xnet +tp' 'stdout~^  a100-2xnet +tp'
check compare-variant-empty-base 2 "trainplan: error: --variant 'x=:network.nic_gbps=800': expected NAME[=BASE]:section.field=value[,...]" -- compare --variant x=:network.nic_gbps=800 --gpus 64
check compare-variant-unknown-base 3 "trainplan: error: unknown system 'tpu-v5': not a preset (see 'trainplan list systems') nor a file" -- compare --variant x=tpu-v5:network.nic_gbps=800 --gpus 64
