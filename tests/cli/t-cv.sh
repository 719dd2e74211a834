# tests/cli/t-cv.sh: the constant fitted on published runs (calibrate
# --runs) and its cross-validation by source (validate --cv source), on the
# small runs file and, when present, on ../shared/data/runs-dev.csv.
# Sourced by run.sh (lib.sh loaded, working directory the repository root).

run_tp calibrate --runs tests/data/runs/small.csv
expect cv-calibrate-runs-small 'exit=3' 'stderr~no timed row of an eager stack'

run_tp validate tests/data/runs/small.csv --cv source
expect cv-small-table 'exit=0' 'stdout~^cross-validation' 'stdout~alpha'

run_tp validate tests/data/runs/small.csv --cv source --format json
expect cv-small-json 'exit=0' 'stdout~"held_out"' 'stdout~"in_sample"'

run_tp validate tests/data/runs/small.csv --cv rows
expect cv-bad-mode 'exit=2' "stderr~'--cv' must be 'source'"

if need_shared cv-shared runs-dev.csv; then
    # the value in the stack presets is the fit's: refitting gives it again
    run_tp calibrate --runs "$T_SHARED/data/runs-dev.csv"
    expect cv-calibrate-runs-dev 'exit=0' 'stdout~^host_us = 67\.5;'
    run_tp validate "$T_SHARED/data/runs-dev.csv" --cv source --format csv
    expect cv-dev-csv 'exit=0' 'stdout~^vtrain,1549,'
fi
