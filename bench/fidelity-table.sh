#!/bin/sh
# bench/fidelity-table.sh: the README's fidelity table, made from
# `trainplan validate --format json` output and the held-out figures of
# `trainplan validate --cv source --format json` (never typed by hand).
#   sh bench/fidelity-table.sh build/validate.json build/cv.json RUNS.csv
#       print the table
#   sh bench/fidelity-table.sh build/validate.json build/cv.json RUNS.csv README.md
#       replace the block between the fidelity markers in README.md
# `make readme-fidelity` runs it on ../shared/data/runs-dev.csv.
set -e
json=$1 cv=$2 runs=$3 readme=${4:-}
command -v jq >/dev/null || { echo "fidelity-table: needs jq (apt-get install jq)" >&2; exit 2; }

table() {
    rows=$(($(wc -l < "$runs") - 1))
    echo "Fidelity on the published runs (\`make validate\` on \`$(basename "$runs")\`, $rows rows; rows the predictor cannot model yet (mixtures of experts) are left out of the timed count):"
    echo
    echo "| source | timed rows | held-out MAPE | held-out bias | in-sample MAPE | in-sample bias | p90 | OOM agreement | memory MAPE (rows) | Spearman (groups) |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    jq -r --slurpfile cv "$cv" '
      def pct: if . == null then "-" else (. * 10 | round / 10 | if . == 0 then 0 else . end | tostring) + " %" end;
      def num: if . == null then "-" else (. * 100 | round / 100 | tostring) end;
      .summary as $s
      | ($s.sources | to_entries[] | select(.key | contains(":") | not)) as $e
      | $s.memory[$e.key] as $m | $s.ranking.sources[$e.key] as $r
      | ([$cv[0].cv[] | select(.source == $e.key)][0].held_out // {}) as $h
      | select($e.value.rows > 0 or ($m.rows // 0) > 0)
      | "| \($e.key) | \($e.value.rows) | \($h.mape_pct | pct) | \($h.bias_pct | pct) | \($e.value.mape_pct | pct) | \($e.value.bias_pct | pct) | \($e.value.p90_pct | pct) | \($m.oom_agreement_pct | pct) | \(if ($m.mem_rows // 0) > 0 then "\($m.mem_mape_pct | pct) (\($m.mem_rows))" else "-" end) | \(if ($r.groups // 0) > 0 then "\($r.mean_spearman | num) (\($r.groups))" else "-" end) |"
      ' "$json"
    jq -r --slurpfile cv "$cv" '$cv[0].overall.held_out as $h | .summary.overall | "| all | \(.rows) | \($h.mape_pct * 10 | round / 10) % | \($h.bias_pct * 10 | round / 10) % | \(.mape_pct * 10 | round / 10) % | \(.bias_pct * 10 | round / 10) % | \(.p90_pct * 10 | round / 10) % | | | |"' "$json"
}

if [ -z "$readme" ]; then
    table
    exit 0
fi
grep -q '^<!-- fidelity:begin' "$readme" || { echo "fidelity-table: no '<!-- fidelity:begin -->' marker in $readme" >&2; exit 2; }
tmp=$(mktemp "$readme.XXXXXX")
table > "$tmp.table"
awk -v t="$tmp.table" '
    /^<!-- fidelity:begin/ { print; while ((getline l < t) > 0) print l; skip = 1; next }
    /^<!-- fidelity:end/   { skip = 0 }
    !skip' "$readme" > "$tmp"
rm -f "$tmp.table"
cat "$tmp" > "$readme" && rm -f "$tmp"
