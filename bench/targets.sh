#!/bin/sh
# bench/targets.sh: the open issues' fidelity targets (bench/targets.tsv)
# against today's figures: met or not, one line each. A report, never a
# gate (the gate is `make validate` against bench/validate-baseline.json).
#   sh bench/targets.sh FIGURES.json VALIDATE.json
# FIGURES.json: `trainplan validate RUNS --write-baseline FILE` (held-out
# figures included); VALIDATE.json: `trainplan validate RUNS --format json`
# (its rows: which ran, which were measured out of memory).
set -e
figs=$1 rows=$2
tsv=$(dirname "$0")/targets.tsv
command -v jq >/dev/null || { echo "targets: needs jq (apt-get install jq)" >&2; exit 2; }
grep -v '^#' "$tsv" | jq -R -s -r --slurpfile f "$figs" --slurpfile v "$rows" '
  def fig($set; $k):
    if $k == "oom_agree_pct" then
      ($set.oom_agree_rows // null) as $a | ($set.predicted_rows // 0) as $n
      | if $a == null or $n == 0 then null else 100 * $a / $n end
    else $set[$k] end;
  def ok($x; $op; $b):
    if $op == "<=" then $x <= $b elif $op == ">=" then $x >= $b
    else ($x | fabs) <= $b end;
  ($f[0]) as $F | ($v[0].rows) as $R
  | ([$R[] | select(.oom) | .source] | unique) as $oomsrc
  | (split("\n") | map(select(length > 0) | split("\t"))) as $T
  | [ $T[] | . as [$issue, $set, $k, $op, $b, $what] | ($b | tonumber) as $bound
      | if $set == "ran-oom" then
          ([$R[] | select(.oom | not) | select(.predicted_fits == false) | select(.predicted_iter_s != null)] | length) as $x
          | {issue: $issue, what: $what, x: $x, op: $op, b: $bound}
        elif ($set | startswith("*")) then
          ([$T[] | select(.[0] == $issue and .[2] == $k and (.[1] | startswith("*") | not)) | .[1]]) as $own
          | $F.sources | to_entries[] | select(.key | contains(":") | not)
          | select(.key as $s | $own | index($s) | not)
          | select(if $set == "*4" then (.value.timed_rows // 0) >= 4
                   elif $set == "*oom" then (.key as $s | $oomsrc | index($s))
                   else (.value.mem_rows // 0) > 0 end)
          | {issue: $issue, what: "\($what): \(.key)", x: fig(.value; $k), op: $op, b: $bound}
        else
          {issue: $issue, what: $what,
           x: fig(if $set == "overall" then $F.overall else $F.sources[$set] end; $k),
           op: $op, b: $bound}
        end ]
  | map(. + {met: (.x != null and ok(.x; .op; .b))})
  | "targets (bench/targets.tsv): \(map(select(.met)) | length) of \(length) met",
    (.[] | "  issue \(.issue)  \(.what) \(.op) \(.b): \(if .x == null then "-" else (.x * 100 | round / 100 | tostring) end)  \(if .met then "met" else "NOT MET" end)")'
