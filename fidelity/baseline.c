/* fidelity/baseline.c: the fidelity gate: each source's MAPE against a
 * baseline JSON file (fidelity.h), so a change that makes the predictor
 * worse on published runs fails `make validate`. */
#include "fidelity/fidelity.h"

#include <jansson.h>

/* One source's line; *worse set when it got worse. */
static void verdict(FILE *msg, const char *source, struct fid_stats s, double base,
                    double tolerance, bool *worse)
{
    const char *what = "same";
    if (!s.n || s.mape > base + tolerance) {
        what = "WORSE";
        *worse = true;
    } else if (s.mape < base - tolerance)
        what = "better: update the baseline";
    if (s.n)
        fprintf(msg, "validate: %-14s MAPE %6.2f%% (baseline %6.2f%%): %s\n",
                source, s.mape, base, what);
    else
        fprintf(msg, "validate: %-14s no timed rows (baseline %6.2f%%): %s\n",
                source, base, what);
}

int fid_baseline_check(const struct fid_report *v, const char *path,
                       double tolerance, FILE *msg, bool *worse,
                       struct tpl_err *err)
{
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr), *mape, *value;
    const char *source;
    int rc = 0;
    *worse = false;
    if (!root)
        return tpl_errorf(err, jerr.line > 0 ? TPL_ECONFIG : TPL_EIO,
                          "%s:%d: %s", path, jerr.line, jerr.text);
    mape = json_object_get(root, "mape_pct");
    if (!json_is_object(mape))
        rc = tpl_errorf(err, TPL_ECONFIG, "%s: missing object 'mape_pct'", path);
    else
        json_object_foreach(mape, source, value) {
            if (!json_is_number(value)) {
                rc = tpl_errorf(err, TPL_ECONFIG, "%s: 'mape_pct.%s' must be a "
                                "number", path, source);
                break;
            }
            verdict(msg, source, fid_stats_of(v, source, NULL),
                    json_number_value(value), tolerance, worse);
        }
    json_decref(root);
    return rc;
}
