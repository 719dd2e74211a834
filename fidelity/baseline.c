/* fidelity/baseline.c: the baseline file of the fidelity gate (fidelity.h):
 * the figures of a report with the command that made them, written and read
 * as JSON, and the check of a report against one, so a change that makes
 * the predictor worse on published runs fails `make validate`. */
#include "fidelity/fidelity.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#include "common/alloc.h"

static const char note[] =
    "Written by `make validate-baseline` (the command above): the fidelity "
    "figures per source of today's program. `make validate` fails when one is "
    "worse by more than its tolerance (fidelity/fidelity.h, README \"The "
    "fidelity gate\"). Change it only in a commit whose message names the "
    "modelling change that moved it; a looser figure needs its justification "
    "there.";

/* ---- writing ---- */

/* 4 decimals, and no "-0.0". */
static double rounded(double x)
{
    return round(x * 1e4) / 1e4 + 0.0;
}

static json_t *figures_json(const struct fid_figures *f)
{
    json_t *o = json_object();
    for (int k = 0; k < FIG_COUNT; k++)
        if (f->have[k])
            json_object_set_new(o, fid_fig_key(k), fid_fig_is_count(k)
                                ? json_integer((json_int_t)f->x[k])
                                : json_real(rounded(f->x[k])));
    return o;
}

int fid_baseline_write(FILE *fp, const struct fid_gate *g, struct tpl_err *err)
{
    json_t *sources = json_object(), *root;
    int rc;
    for (int i = 1; i < g->n; i++)
        json_object_set_new(sources, g->sets[i].name, figures_json(&g->sets[i]));
    root = json_pack("{s:s, s:s, s:o, s:o}", "command", g->command, "note", note,
                     "overall", figures_json(&g->sets[0]), "sources", sources);
    rc = json_dumpf(root, fp, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
    json_decref(root);
    if (rc || fputc('\n', fp) == EOF || ferror(fp))
        return tpl_errorf(err, TPL_EIO, "cannot write the baseline");
    return 0;
}

/* ---- reading ---- */

/* One object of figures ('where': its place in the file, for messages). */
static int read_set(struct fid_figures *f, const char *name, json_t *o,
                    const char *where, const char *path, struct tpl_err *err)
{
    const char *key;
    json_t *val;
    if (!json_is_object(o))
        return tpl_errorf(err, TPL_ECONFIG, "%s: '%s' must be an object of "
                          "figures", path, where);
    if (strlen(name) >= sizeof f->name)
        return tpl_errorf(err, TPL_ECONFIG, "%s: '%s': name too long", path, where);
    snprintf(f->name, sizeof f->name, "%s", name);
    json_object_foreach(o, key, val) {
        int k = fid_fig_find(key);
        if (k < 0)
            return tpl_errorf(err, TPL_ECONFIG, "%s: '%s.%s': unknown figure",
                              path, where, key);
        if (!json_is_number(val) && !json_is_null(val))
            return tpl_errorf(err, TPL_ECONFIG, "%s: '%s.%s' must be a number",
                              path, where, key);
        f->have[k] = json_is_number(val);
        f->x[k] = json_number_value(val);
    }
    return 0;
}

static int read_sources(struct fid_gate *g, json_t *sources, const char *path,
                        struct tpl_err *err)
{
    const char *name;
    json_t *val;
    json_object_foreach(sources, name, val) {
        char where[96];
        snprintf(where, sizeof where, "sources.%s", name);
        if (read_set(&g->sets[g->n++], name, val, where, path, err))
            return err->code;
    }
    return 0;
}

static int read_root(struct fid_gate *g, json_t *root, const char *path,
                     struct tpl_err *err)
{
    json_t *cmd = json_object_get(root, "command");
    json_t *all = json_object_get(root, "overall");
    json_t *sources = json_object_get(root, "sources");
    if (!json_is_string(cmd))
        return tpl_errorf(err, TPL_ECONFIG, "%s: missing string 'command' (the "
                          "command that made the baseline)", path);
    if (!json_is_object(sources))
        return tpl_errorf(err, TPL_ECONFIG, "%s: missing object 'sources'", path);
    snprintf(g->command, sizeof g->command, "%s", json_string_value(cmd));
    g->sets = xcalloc(json_object_size(sources) + 1, sizeof *g->sets);
    if (read_set(&g->sets[g->n++], "overall", all, "overall", path, err))
        return err->code;
    return read_sources(g, sources, path, err);
}

int fid_baseline_read(struct fid_gate *g, const char *path, struct tpl_err *err)
{
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    int rc;
    memset(g, 0, sizeof *g);
    if (!root)
        return tpl_errorf(err, jerr.line > 0 ? TPL_ECONFIG : TPL_EIO,
                          "%s:%d: %s", path, jerr.line, jerr.text);
    rc = read_root(g, root, path, err);
    json_decref(root);
    if (rc)
        fid_gate_free(g);
    return rc;
}

/* ---- the check ---- */

int fid_baseline_check(const struct fid_gate *now, const char *path,
                       const struct fid_tolerance *tol, FILE *msg, bool *worse,
                       struct tpl_err *err)
{
    struct fid_gate base;
    *worse = false;
    if (fid_baseline_read(&base, path, err))
        return err->code;
    fprintf(msg, "validate: baseline %s, made by: %s\n", path, base.command);
    *worse = fid_gate_compare(&base, now, tol, msg) > 0;
    fid_gate_free(&base);
    return 0;
}
