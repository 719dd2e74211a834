#!/bin/sh
# tests/summary.sh: one summary of the unit and CLI tests together.
#   sh tests/summary.sh [--unit-exit N] UNIT.tap CLI.results
# UNIT.tap is Criterion's --tap report ("ok - suite::name", "not ok - ...",
# "ok - suite::name  # SKIP reason"); N the unit binary's exit status (a
# crash that left no "not ok" line still counts as a failure). CLI.results
# is what tests/cli/run.sh writes under T_RESULTS ("pass NAME", "fail NAME:
# WHAT", "skip NAME: REASON"). Prints each failure and skip with its reason,
# a line per suite, and last "N passed, N failed, N skipped"; exits 1 when
# anything failed or a report is missing.
unit_exit=0
if [ "${1:-}" = --unit-exit ]; then
    unit_exit=$2
    shift 2
fi
[ $# = 2 ] || { echo "usage: sh tests/summary.sh [--unit-exit N] UNIT.tap CLI.results" >&2; exit 2; }

awk -v unit_exit="$unit_exit" -v tap="$1" -v cli="$2" '
function count(suite, kind) { n[suite, kind]++; total[kind]++ }
BEGIN {
    planned = -1
    while ((getline line < tap) > 0) {
        if (line ~ /^1\.\.[0-9]+$/) { planned = substr(line, 4) + 0; continue }
        if (line ~ /^  - .*: \|\+$/ && detail == "") {  # where the first failure is
            where = line; sub(/^  - /, "", where); sub(/ \|\+$/, "", where)
            continue
        }
        if (line ~ /^      [^ ]/ && where != "") {        # and what it says
            sub(/^ +/, "", line); detail = where " " line; where = ""
            msgs = msgs ": " detail
            continue
        }
        if (line ~ /^(not )?ok / && failing) { msgs = msgs "\n"; failing = 0 }
        if (line ~ /^not ok /) {
            seen++; count("unit", "failed"); failing = 1; detail = ""; where = ""
            sub(/^not ok - /, "", line); sub(/ +\([0-9.]+s\)$/, "", line)
            msgs = msgs "FAIL unit " line
        } else if (line ~ /^ok .*# SKIP/) {
            seen++; count("unit", "skipped")
            name = line; sub(/^ok - /, "", name); sub(/ +# SKIP.*/, "", name)
            why = line; sub(/.*# SKIP */, "", why)
            msgs = msgs "skip unit " name ": " why "\n"
        } else if (line ~ /^ok /) {
            seen++; count("unit", "passed")
        }
    }
    if (failing) msgs = msgs "\n"
    if (planned < 0) {
        count("unit", "failed"); msgs = msgs "FAIL unit: no report in " tap "\n"
    } else if (seen < planned) {
        n["unit", "failed"] += planned - seen; total["failed"] += planned - seen
        msgs = msgs "FAIL unit: " planned - seen " of " planned " tests did not report\n"
    }
    if (unit_exit != 0 && n["unit", "failed"] == 0) {
        count("unit", "failed"); msgs = msgs "FAIL unit: exit " unit_exit "\n"
    }
    got = 0
    while ((getline line < cli) > 0) {
        got = 1
        kind = line; sub(/ .*/, "", kind); rest = substr(line, length(kind) + 2)
        if (kind == "pass") count("cli", "passed")
        else if (kind == "fail") { count("cli", "failed"); msgs = msgs "FAIL cli " rest "\n" }
        else if (kind == "skip") { count("cli", "skipped"); msgs = msgs "skip cli " rest "\n" }
    }
    if (!got) { count("cli", "failed"); msgs = msgs "FAIL cli: no report in " cli "\n" }
    printf "%s", msgs
    split("unit cli", suites, " ")
    for (i = 1; i <= 2; i++)
        printf "%s: %d passed, %d failed, %d skipped\n", suites[i],
               n[suites[i], "passed"], n[suites[i], "failed"], n[suites[i], "skipped"]
    printf "%d passed, %d failed, %d skipped\n", total["passed"], total["failed"],
           total["skipped"]
    exit total["failed"] > 0
}'
