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
    "time to train (days)" "GPU-hours" "days, with interruptions" "cost (USD)"
# shellcheck disable=SC2086
"$TRAINPLAN" compare --systems dgx-a100,dgx-h100 $H_JOB --chart "$T_TMP/c.svg" >/dev/null
svg_has chart-compare-svg "$T_TMP/c.svg" "iteration time / dgx-a100's" \
    "compute + recompute" "communication" "pipeline bubble"
"$TRAINPLAN" search --gpus 64..256 --chart "$T_TMP/s.svg" >/dev/null
svg_has chart-search-svg "$T_TMP/s.svg" "the fastest plan per GPU count" \
    "seconds per iteration" compute "TP communication" "optimizer step"
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

# ---- what a reader sees (issue 18): text stays text in the SVG, so a
# screen reader and this test can read it ----
# svg_texts FILE: every <text> element's content, one a line
svg_texts()
{
    python3 - "$1" <<'PY'
import sys, xml.etree.ElementTree as E
ns = "{http://www.w3.org/2000/svg}"
for t in E.parse(sys.argv[1]).getroot().iter(ns + "text"):
    print(t.text)
PY
}
if command -v python3 >/dev/null 2>&1; then
    svg_texts "$T_TMP/t.svg" >"$T_TMP/t.txt"
    T_CMD="tradeoff --chart t.svg: texts $(tr '\n' '|' <"$T_TMP/t.txt")"
    # the title says 1T tokens, not 1e+12; the legend says what filled
    # markers mean; the knee or its absence; GPU counts as numbers
    expect chart-text-readable 'grep -qx "llama3-8b on dgx-h100: 1T tokens, with interruptions" "$T_TMP/t.txt"' \
        'grep -q "^filled marker: no other GPU count trains both sooner" "$T_TMP/t.txt"' \
        'grep -qx 128 "$T_TMP/t.txt"' '! grep -q "e+" "$T_TMP/t.txt"' \
        'grep -qx "cost (USD)" "$T_TMP/t.txt"' 'grep -q "^cost at \$[0-9.]*/GPU-hour$" "$T_TMP/t.txt"'
    # GPU-hours between the decades can be read: 2 and 5 times a power of ten
    "$TRAINPLAN" tradeoff --model llama3-70b --gpus 64..16384 --gbs 512 --tokens 15e12 \
        --chart "$T_TMP/t70.svg" >/dev/null
    svg_texts "$T_TMP/t70.svg" >"$T_TMP/t70.txt"
    T_CMD="tradeoff llama3-70b --chart: texts $(tr '\n' '|' <"$T_TMP/t70.txt")"
    expect chart-log-ticks-between 'grep -qx 2M "$T_TMP/t70.txt"' 'grep -qx 5M "$T_TMP/t70.txt"' \
        'grep -qx "15T tokens" "$T_TMP/t70.txt" || grep -q ": 15T tokens" "$T_TMP/t70.txt"' \
        'grep -qx "knee: 4096 GPUs" "$T_TMP/t70.txt"'
    # compare: grouped by GPU count, speed-up and cost above each bar, n/a
    # where a system has no plan
    "$TRAINPLAN" compare --systems dgx-a100,dgx-h100 --model llama3-70b --gpus 8,256 \
        --tokens 15e12 --chart "$T_TMP/c2.svg" >/dev/null
    svg_texts "$T_TMP/c2.svg" >"$T_TMP/c2.txt"
    T_CMD="compare --chart: texts $(tr '\n' '|' <"$T_TMP/c2.txt")"
    expect chart-compare-groups 'grep -qx "256 GPUs" "$T_TMP/c2.txt"' 'grep -qx "8 GPUs" "$T_TMP/c2.txt"' \
        'grep -qx "1.00x" "$T_TMP/c2.txt"' 'grep -qE "^2\.[0-9]{2}x$" "$T_TMP/c2.txt"' \
        'grep -qE "^\\$[0-9.]+M$" "$T_TMP/c2.txt"' 'grep -qx "n/a" "$T_TMP/c2.txt"'
    # search: words in the legend, no series that is zero everywhere, and
    # with hundreds of counts only some labelled
    "$TRAINPLAN" search --gpus 64..4096:64 --chart "$T_TMP/s2.svg" >/dev/null
    svg_texts "$T_TMP/s2.svg" >"$T_TMP/s2.txt"
    T_CMD="search --gpus 64..4096:64 --chart: texts $(tr '\n' '|' <"$T_TMP/s2.txt")"
    expect chart-search-many '! grep -qx tp_comm "$T_TMP/s2.txt"' \
        '! grep -qx "CP communication" "$T_TMP/s2.txt"' 'grep -qx "pipeline bubble" "$T_TMP/s2.txt"' \
        '[ "$(grep -cE "^[0-9]+$" "$T_TMP/s2.txt")" -lt 45 ]' 'grep -qx 64 "$T_TMP/s2.txt"'
    # a small chart: no two tick labels of an axis overlap (positions from
    # the SVG), the legend inside the plot
    "$TRAINPLAN" tradeoff --model llama3-70b --gpus 64..16384 --gbs 512 --tokens 15e12 \
        --chart "$T_TMP/small.svg" --chart-size 480x320 >/dev/null
    if python3 - "$T_TMP/small.svg" <<'PY'
import sys, xml.etree.ElementTree as E
ns = "{http://www.w3.org/2000/svg}"
xs = [(float(t.get("x")), float(t.get("y")), t.text) for t in E.parse(sys.argv[1]).getroot().iter(ns + "text")
      if t.text and t.text.isdigit()]
row = sorted(x for x, y, s in xs if y > 280)      # the x tick labels
sys.exit(0 if len(row) >= 3 and all(b - a > 30 for a, b in zip(row, row[1:])) and max(row) < 480 else 1)
PY
    then pass chart-small-ticks-apart; else fail chart-small-ticks-apart "$T_TMP/small.svg: x tick labels overlap or leave the chart"; fi
    # the knee's label clear of every other text (the legend inside the
    # plot): boxes from the SVG's positions, 6 px a character, 12 px high
    if python3 - "$T_TMP/small.svg" <<'PY'
import sys, xml.etree.ElementTree as E
ns = "{http://www.w3.org/2000/svg}"
box = lambda t: (float(t.get("x")), float(t.get("y")) - 11, float(t.get("x")) + 6 * len(t.text), float(t.get("y")) + 2)
ts = [t for t in E.parse(sys.argv[1]).getroot().iter(ns + "text") if t.text]
knee = [box(t) for t in ts if t.text.startswith("knee:")]
hit = lambda a, b: a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
sys.exit(0 if len(knee) == 1 and not any(hit(knee[0], box(t)) for t in ts if not t.text.startswith("knee:")) else 1)
PY
    then pass chart-small-knee-clear; else fail chart-small-knee-clear "$T_TMP/small.svg: the knee label overlaps another text"; fi
else
    skip chart-text-readable "no python3 to parse the SVG"
fi

# calibrate --chart: predicted against measured per operator family on the
# published samples (skipped without ../shared), and a bad name
if [ -d "$T_SHARED/data/kernel-samples/vista-gh200" ]; then
    "$TRAINPLAN" calibrate "$T_SHARED/data/kernel-samples/vista-gh200" \
        --system vista-gh200 -o /dev/null --report /dev/null --chart "$T_TMP/k.svg"
    svg_has chart-calibrate-svg "$T_TMP/k.svg" "NVIDIAGH200120GB samples" \
        "measured kernel time (us)" "GEMMs: predicted (us)" "linear1" "softmax" \
        "predicted = measured"
else
    skip chart-calibrate-svg "$T_SHARED/data/kernel-samples absent"
fi
run_tp calibrate samples --system dgx-a100 --chart k.txt
expect chart-calibrate-bad-name exit=2 "stderr~'--chart' must name a .svg or .png file"
