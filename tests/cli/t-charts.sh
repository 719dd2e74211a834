# tests/cli/t-charts.sh: charts: SVG that parses as XML and names its axes
# and series, PNG of the requested size, bad names and sizes. Sourced by
# run.sh.

H_JOB='--model llama3-8b --seq 4096 --gbs 256 --gpus 8..128 --tokens 1e12'

# svg_has NAME FILE WORD...: the file parses as XML and its <title> and
# <desc> mention every word (python3's xml module; skipped without python3)
svg_has()
{
    h_name=$1 h_file=$2
    shift 2
    if ! command -v python3 >/dev/null 2>&1; then
        skip "$h_name" "no python3 to parse the SVG"
        return
    fi
    if python3 - "$h_file" "$@" <<'PY'
import sys, xml.etree.ElementTree as E
root = E.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
words = (root.find(ns + "title").text or "") + " " + (root.find(ns + "desc").text or "")
sys.exit(0 if root.tag == ns + "svg" and all(w in words for w in sys.argv[2:]) else 1)
PY
    then
        pass "$h_name"
    else
        fail "$h_name" "$h_file is not SVG, or misses one of: $*"
    fi
}

# png_is NAME FILE W H: a PNG whose IHDR says W x H
png_is()
{
    p_sig=$(od -An -tx1 -N8 "$2" | tr -d ' \n')
    p_w=$(od -An -tu1 -j16 -N4 "$2" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
    p_h=$(od -An -tu1 -j20 -N4 "$2" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
    if [ "$p_sig" = 89504e470d0a1a0a ] && [ "$p_w" = "$3" ] && [ "$p_h" = "$4" ]; then
        pass "$1"
    else
        fail "$1" "$2: signature $p_sig, size ${p_w}x$p_h, expected PNG $3x$4"
    fi
}

# shellcheck disable=SC2086
"$TRAINPLAN" tradeoff --system dgx-h100 $H_JOB --chart "$T_TMP/t.svg" >/dev/null
svg_has chart-tradeoff-svg "$T_TMP/t.svg" "llama3-8b on dgx-h100" "GPUs (log scale)" \
    "time to train (days)" "GPU-hours" "days (filled: frontier)"
# shellcheck disable=SC2086
"$TRAINPLAN" compare --systems dgx-a100,dgx-h100 $H_JOB --chart "$T_TMP/c.svg" >/dev/null
svg_has chart-compare-svg "$T_TMP/c.svg" "seconds per iteration" \
    "compute + recompute" "communication" "pipeline bubble"
"$TRAINPLAN" search --gpus 64..256 --chart "$T_TMP/s.svg" >/dev/null
svg_has chart-search-svg "$T_TMP/s.svg" "the fastest plan per GPU count" \
    "seconds per iteration" compute tp_comm pp_bubble dp_exposed optimizer
"$TRAINPLAN" search --gpus 64..256 --chart "$T_TMP/s.png" --chart-size 800x500 >/dev/null
png_is chart-search-png "$T_TMP/s.png" 800 500
# shellcheck disable=SC2086
"$TRAINPLAN" tradeoff $H_JOB --chart "$T_TMP/t.png" >/dev/null
png_is chart-tradeoff-png "$T_TMP/t.png" 960 640
# shellcheck disable=SC2086
"$TRAINPLAN" compare --systems dgx-h100,mi300x $H_JOB --chart "$T_TMP/c.png" \
    --chart-size 1200x700 >/dev/null
png_is chart-compare-png "$T_TMP/c.png" 1200 700

check chart-extension 2 "trainplan: error: '--chart' must name a .svg or .png file, not 'x.jpg'" -- tradeoff --chart x.jpg
check chart-size-small 2 "trainplan: error: '--chart-size' must be WxH with each in [200, 8000], not '10x10'" -- search --chart-size 10x10
check chart-size-form 2 "trainplan: error: '--chart-size' must be WxH with each in [200, 8000], not 'big'" -- compare --chart-size big
run_tp search --gpus 64 --chart /nonexistent-dir/x.svg
expect chart-unwritable exit=4 "stderr~cannot write '/nonexistent-dir/x.svg'" \
    '[ ! -e /nonexistent-dir/x.svg ]'
