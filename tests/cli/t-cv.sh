# tests/cli/t-cv.sh: the constant fitted on published runs (calibrate
# --runs) and its cross-validation by source (validate --cv source), on the
# small runs file and, when present, on ../shared/data/runs-dev.csv.
# Sourced by run.sh (lib.sh loaded, working directory the repository root).

run_tp calibrate --runs tests/data/runs/small.csv
expect cv-calibrate-runs-small 'exit=3' 'stderr~no timed row of an eager stack'

run_tp validate tests/data/runs/small.csv --cv source
expect cv-small-table 'exit=0' 'stdout~^cross-validation' 'stdout~alpha' \
    'stdout~^  all  .* 4  *- *- *- *- '

run_tp validate tests/data/runs/small.csv --cv source --format json
expect cv-small-json 'exit=0' 'stdout~"held_out"' 'stdout~"in_sample"' \
    'stdout~"overall"' 'stdout~"clock": null'

run_tp validate tests/data/runs/small.csv --cv source --format csv
expect cv-small-csv 'exit=0' 'stdout~^source,rows,host_us,gemm_fp8_cs,network,clock,' \
    'stdout~^all,4,,,,,'

run_tp validate tests/data/runs/small.csv --cv rows
expect cv-bad-mode 'exit=2' "stderr~'--cv' must be 'source'"

if need_shared cv-shared runs-dev.csv; then
    # the value in the stack presets is the fit's: refitting gives it again
    run_tp calibrate --runs "$T_SHARED/data/runs-dev.csv"
    expect cv-calibrate-runs-dev 'exit=0' 'stdout~^host_us = 61\.1;'
    # and each stack preset's error band is the fit's too: values and rows
    cp "$T_OUT" "$T_TMP/bands"
    for f in spaces/stacks/*.cfg; do
        b_name=$(basename "$f" .cfg)
        b_lo=$(sed -n 's/^ *band_low_pct *= *\([-0-9.]*\);.*/\1/p' "$f")
        b_hi=$(sed -n 's/^ *band_high_pct *= *\([-0-9.]*\);.*/\1/p' "$f")
        b_rows=$(sed -n 's/^ *#.*[( ]\([0-9]* held-out rows\).*/\1/p' "$f")
        b_reg=""
        for b_f in validated_gpus_min validated_gpus_max \
                   validated_params_b_min validated_params_b_max; do
            b_reg="$b_reg $b_f = $(sed -n "s/^ *$b_f *= *\([0-9.]*\);.*/\1/p" "$f");"
        done
        b_reg="$b_reg validated_archs = $(sed -n 's/^ *validated_archs *= *\(\[.*\]\);.*/\1/p' "$f");"
        b_line=$(grep "^$b_name: band_low_pct" "$T_TMP/bands")
        case $b_line in
        "$b_name: band_low_pct = $b_lo; band_high_pct = $b_hi;$b_reg  # "*"$b_rows"*)
            b_ok=$b_rows ;;
        *) b_ok= ;;
        esac
        if [ -n "$b_ok" ]; then
            pass "cv-band-$b_name"
        else
            fail "cv-band-$b_name" "preset band $b_lo .. $b_hi ($b_rows) is not what calibrate --runs prints: $(grep "^$b_name:" "$T_TMP/bands")"
        fi
    done
    # each stack's memory reserve likewise: a preset with reserve_gib has
    # the fit's value, and the fit finds none for a preset without it
    for f in spaces/stacks/*.cfg; do
        r_name=$(basename "$f" .cfg)
        r_gib=$(sed -n 's/^ *reserve_gib *= *\([0-9.]*\);.*/\1/p' "$f")
        if [ -n "$r_gib" ] && grep -q "^$r_name: reserve_gib = $r_gib;  # " "$T_TMP/bands"; then
            pass "cv-reserve-$r_name"
        elif [ -z "$r_gib" ] && ! grep -q "^$r_name: reserve_gib" "$T_TMP/bands"; then
            pass "cv-reserve-$r_name"
        else
            fail "cv-reserve-$r_name" "preset reserve '$r_gib' is not what calibrate --runs prints: $(grep "^$r_name: reserve_gib" "$T_TMP/bands")"
        fi
    done
    # the Blackwell presets' FP8 current-scaling factor is the uncalibrated
    # fit's (fidelity/tune.c), with a held-out line per source
    for f in hardware/systems/dgx-b200.cfg hardware/systems/gb200-nvl72.cfg; do
        t_f=$(sed -n 's/^ *gemm_fp8_cs *= *\([0-9.]*\);.*/\1/p' "$f")
        if grep -q "^uncalibrated systems: gemm_fp8_cs = $t_f;  # fitted on 33 timed rows" \
            "$T_TMP/bands" && grep -q "^  held out nemo2502 .* MAPE" "$T_TMP/bands"; then
            pass "cv-tune-$(basename "$f" .cfg)"
        else
            fail "cv-tune-$(basename "$f" .cfg)" "preset gemm_fp8_cs $t_f is not what calibrate --runs prints: $(grep "^uncalibrated" "$T_TMP/bands")"
        fi
    done
    # Jean Zay's network share is the fabric fit's (fidelity/tune.c), on
    # the BLOOM rows, each BLOOM source held out in its own line
    t_n=$(sed -n 's/^ *network *= *\([0-9.]*\);.*/\1/p' hardware/systems/jeanzay-a100.cfg)
    if grep -q "^network_from_runs systems: network = $t_n;  # fitted on 115 timed rows" \
        "$T_TMP/bands" && grep -q "^  held out bloom  .* network 0\.[0-9]*  clock" "$T_TMP/bands"; then
        pass cv-tune-jeanzay-a100
    else
        fail cv-tune-jeanzay-a100 "preset network $t_n is not what calibrate --runs prints: $(grep "^network_from_runs" "$T_TMP/bands")"
    fi
    # Grand Teton's 500 W clock is the clock fit's (fidelity/tune.c), on the
    # torchtitan rows, each torchtitan source held out in its own line
    t_c=$(sed -n 's/^ *clock *= *\([0-9.]*\);.*/\1/p' hardware/systems/grandteton-h100.cfg)
    if grep -q "^clock_from_runs systems: clock = $t_c;  # fitted on 19 timed rows" \
        "$T_TMP/bands" && grep -q "^  held out torchtitan_2412 .* clock 0\.[0-9]*  MAPE" "$T_TMP/bands"; then
        pass cv-tune-grandteton-h100
    else
        fail cv-tune-grandteton-h100 "preset clock $t_c is not what calibrate --runs prints: $(grep "^clock_from_runs" "$T_TMP/bands")"
    fi
    run_tp validate "$T_SHARED/data/runs-dev.csv" --cv source --format csv
    expect cv-dev-csv 'exit=0' 'stdout~^vtrain,1549,' 'stdout~^all,1773,' \
        'stdout~^source,rows,host_us,gemm_fp8_cs,network,clock,' 'stdout~^bloom,4,61\.[0-9]*,0\.585[0-9]*,0\.4'
    # nemo_longseq's Blackwell rows fed the FP8 fit: its line carries the
    # factor refitted without them, within the fit's bracket (the unit test
    # fidelity/cv_refits_what_each_source_fed checks it differs)
    expect cv-dev-refit 'grep -q "^nemo_longseq,17,[0-9.]*,0\.[3-9][0-9]*," "$T_OUT"'
    # the MoE host cost (predictor/host.c): the recipes that differ only in
    # CUDA-graph scope are ordered as measured, partial graphs slower than
    # a full-iteration graph (Qwen3-235B on GB200 38.1 against 33.5 s,
    # Qwen3-30B 5.87 against 4.66 s), and the host wait shows in the time
    run_tp validate "$T_SHARED/data/runs-dev.csv" --source mlm_moe_recipes --format csv
    expect cv-moe-graph-pairs 'exit=0' \
        'awk -F, '"'"'$1 ~ /Q235-GB200-MXFP8-PARTCG$/ {a = $7} $1 ~ /Q235-GB200-MXFP8-FULLCG$/ {b = $7} $1 ~ /Q30-GB200-MXFP8-PARTCG$/ {c = $7} $1 ~ /Q30-GB200-MXFP8-PAGED$/ {d = $7} END {exit !(a > b && c > d && b > 0 && d > 0)}'"'"' "$T_OUT"'
fi

# bench/targets.sh on hand-made figures: a bound met, one missed, a
# source picked by a "*" rule (>= 4 timed rows, not named on its own), a
# figure absent, and the rows that ran but are called out of memory
if command -v jq >/dev/null; then
    cat >"$T_TMP/figs.json" <<'JSON'
{"command": "hand-made", "overall": {"cv_mape_pct": 7.9, "cv_bias_pct": -3.5,
 "mem_mape_pct": 8.2},
 "sources": {"narayanan21": {"timed_rows": 22, "cv_mape_pct": 4.99},
             "x": {"timed_rows": 4, "cv_mape_pct": 12.5, "mape_pct": 1},
             "y": {"timed_rows": 3, "cv_mape_pct": 50}}}
JSON
    cat >"$T_TMP/rows.json" <<'JSON'
{"rows": [{"source": "x", "oom": false, "predicted_fits": false, "predicted_iter_s": 1},
          {"source": "x", "oom": false, "predicted_fits": false, "predicted_iter_s": 2},
          {"source": "y", "oom": true, "predicted_fits": false, "predicted_iter_s": 3}]}
JSON
    sh bench/targets.sh "$T_TMP/figs.json" "$T_TMP/rows.json" >"$T_OUT" 2>"$T_ERR"
    T_RC=$? T_CMD="sh bench/targets.sh figs.json rows.json"
    expect targets-report 'exit=0' \
        'stdout~overall held-out MAPE <= 8: 7.9  met' \
        'stdout~overall held-out bias .<=. 3: -3.5  NOT MET' \
        'stdout~narayanan21 held-out MAPE <= 5: 4.99  met' \
        'stdout~>= 4 timed rows: x <= 12: 12.5  NOT MET' \
        '! grep -q ": y <= 12" "$T_OUT"' \
        'stdout~vtrain held-out MAPE <= 8: -  NOT MET' \
        'stdout~called out of memory <= 1: 2  NOT MET' \
        'stdout~OOM agreement of every source with OOM rows: y >= 95: -  NOT MET'
else
    skip targets-report "jq absent (make validate installs it)"
fi
