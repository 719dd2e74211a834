/* cli/options.c: the shared option table (options.h). A row names an option,
 * says whether it takes a value, which field of struct cmd_opts it fills and
 * how the value is checked; the plan's dimensions are one contiguous group
 * of options made from the rows of plan_dims (spaces/dims.h). */
#include "cli/options.h"

#include "common/log.h"
#include "common/names.h"

#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hardware/hw.h"
#include "results/chart.h"
#include "search/search.h"
#include "spaces/dims.h"
#include "spaces/gpus.h"

struct opt_row;
typedef int opt_parse(struct cmd_opts *o, const struct opt_row *row,
                      const char *val, struct tpl_err *err);

struct opt_row {
    const char *name;           /* the long option, without "--" */
    int has_arg;                /* getopt's no_argument / required_argument */
    opt_parse *parse;           /* checks the value and stores it */
    size_t field;               /* offsetof(struct cmd_opts, ...) */
    int64_t lo, hi;             /* integers: the range */
    double min, max;            /* numbers: the range */
};

#define FIELD(o, row, type) ((type *)(void *)((char *)(o) + (row)->field))

/* A usage error: the code of err set to TPL_EUSAGE (some parsers of the
 * library report their errors as bad input). */
static int usage_of(struct tpl_err *err)
{
    err->code = TPL_EUSAGE;
    return TPL_EUSAGE;
}

/* ---- value checkers ---- */

int opt_int(const char *opt, const char *val, int64_t lo, int64_t hi,
            int64_t *out, struct tpl_err *err)
{
    char *end;
    long long v;
    errno = 0;
    v = strtoll(val, &end, 10);
    if ((*val != '-' && (*val < '0' || *val > '9')) || *end || errno ||
        v < lo || v > hi)
        return tpl_errorf(err, TPL_EUSAGE, "'%s' must be an integer in "
                          "[%lld, %lld], not '%s'", opt, (long long)lo,
                          (long long)hi, val);
    *out = v;
    return 0;
}

/* A number in [lo, hi] (for --tokens, --price, --knee). */
static int opt_num(const char *opt, const char *v, double lo, double hi,
                   double *out, struct tpl_err *err)
{
    char *end;
    double x = strtod(v, &end);
    if (!*v || *end || !(x >= lo && x <= hi))
        return tpl_errorf(err, TPL_EUSAGE, "'%s' must be a number in [%g, %g], "
                          "not '%s'", opt, lo, hi, v);
    *out = x;
    return 0;
}

int opt_format(const char *val, enum res_format *out, struct tpl_err *err)
{
    char names[64];
    if (res_format_parse(val, out) == 0)
        return 0;
    return tpl_errorf(err, TPL_EUSAGE, "'--format' must be %s, not '%s'",
                      res_format_list(", ", " or ", names, sizeof names), val);
}

int cmd_sets_add(struct cmd_sets *s, const char *assignment, struct tpl_err *err)
{
    char section[64];
    int rc = conf_set_section(assignment, section, sizeof section, err);
    if (rc)
        return rc;
    if (strcmp(section, "model") && strcmp(section, "stack") &&
        !hw_is_section(section) && !scenario_is_section(section))
        return tpl_errorf(err, TPL_EUSAGE, "--set '%s': unknown section '%s' "
                          "(model, system, gpu, node, network, efficiency, "
                          "kernel, memory, price, scenario, job, space, stack)",
                          assignment, section);
    if (s->n == CMD_MAX_SETS)
        return tpl_errorf(err, TPL_EUSAGE, "too many --set options (at most %d)",
                          CMD_MAX_SETS);
    s->v[s->n++] = assignment;
    return 0;
}

/* Whether an assignment goes to the system file (every section but the
 * model's, the scenario's and the stack's). */
static bool system_field(const char *assignment)
{
    static const char *const others[] = { "model.", "job.", "space.", "stack." };
    for (size_t i = 0; i < sizeof others / sizeof *others; i++)
        if (!strncmp(assignment, others[i], strlen(others[i])))
            return false;
    return true;
}

/* The head of a variant, before its first ':': "NAME" or "NAME=BASE". */
static int variant_head(const char *v, const char *colon, char *name,
                        size_t n_name, char *base, size_t n_base,
                        struct tpl_err *err)
{
    const char *eq = memchr(v, '=', (size_t)(colon - v));
    size_t n = (size_t)((eq ? eq : colon) - v);
    base[0] = '\0';
    if (n == 0 || n >= n_name || (eq && (eq + 1 == colon ||
                                         (size_t)(colon - eq - 1) >= n_base)))
        return tpl_errorf(err, TPL_EUSAGE, "--variant '%s': expected "
                          "NAME[=BASE]:section.field=value[,...]", v);
    snprintf(name, n_name, "%.*s", (int)n, v);
    if (eq)
        snprintf(base, n_base, "%.*s", (int)(colon - eq - 1), eq + 1);
    return 0;
}

int cmd_variant_split(const char *v, const struct cmd_sets *global,
                      struct cmd_variant *out, struct tpl_err *err)
{
    const char *colon = strchr(v, ':');
    char *save, *tok;
    out->sets = *global;
    if (!colon || !colon[1] || strlen(colon + 1) >= sizeof out->buf)
        return tpl_errorf(err, TPL_EUSAGE, "--variant '%s': expected "
                          "NAME[=BASE]:section.field=value[,...]", v);
    if (variant_head(v, colon, out->name, sizeof out->name, out->base,
                     sizeof out->base, err))
        return TPL_EUSAGE;
    snprintf(out->buf, sizeof out->buf, "%s", colon + 1);
    for (tok = strtok_r(out->buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save))
        if (!system_field(tok))
            return tpl_errorf(err, TPL_EUSAGE, "--variant '%s': '%s' is not a "
                              "system field; a variant changes the system only "
                              "(model.*, job.*, space.* and stack.* apply to "
                              "every column: use --set or --stack)", v, tok);
        else if (cmd_sets_add(&out->sets, tok, err))
            return TPL_EUSAGE;
    return 0;
}

/* ---- the rows' parsers ---- */

static int parse_str(struct cmd_opts *o, const struct opt_row *row,
                     const char *val, struct tpl_err *err)
{
    (void)err;
    *FIELD(o, row, const char *) = val;
    return 0;
}

static int parse_flag(struct cmd_opts *o, const struct opt_row *row,
                      const char *val, struct tpl_err *err)
{
    (void)val;
    (void)err;
    *FIELD(o, row, bool) = true;
    return 0;
}

static int parse_int(struct cmd_opts *o, const struct opt_row *row,
                     const char *val, struct tpl_err *err)
{
    char opt[40];
    snprintf(opt, sizeof opt, "--%s", row->name);
    return opt_int(opt, val, row->lo, row->hi, FIELD(o, row, int64_t), err);
}

static int parse_num(struct cmd_opts *o, const struct opt_row *row,
                     const char *val, struct tpl_err *err)
{
    char opt[40];
    snprintf(opt, sizeof opt, "--%s", row->name);
    return opt_num(opt, val, row->min, row->max, FIELD(o, row, double), err);
}

static int parse_set(struct cmd_opts *o, const struct opt_row *row,
                     const char *val, struct tpl_err *err)
{
    (void)row;
    return cmd_sets_add(&o->sets, val, err);
}

/* Checked here, split again once every --set is known (cmd_compare.c). */
static int parse_variant(struct cmd_opts *o, const struct opt_row *row,
                         const char *val, struct tpl_err *err)
{
    static struct cmd_variant var;
    (void)row;
    if (o->n_variants == CMD_MAX_VARIANTS)
        return tpl_errorf(err, TPL_EUSAGE, "at most %d --variant options",
                          CMD_MAX_VARIANTS);
    if (cmd_variant_split(val, &o->sets, &var, err))
        return TPL_EUSAGE;
    o->variants[o->n_variants++] = val;
    return 0;
}

static int parse_gpus(struct cmd_opts *o, const struct opt_row *row,
                      const char *val, struct tpl_err *err)
{
    struct gpu_list l = { 0 };
    int rc = gpu_list_parse(&l, val, "--gpus", err);
    (void)row;
    gpu_list_release(&l);
    o->gpus = val;
    return rc ? usage_of(err) : 0;
}

/* ---- --gbs: one batch, or a list of them ---- */

/* Append v once; -1 when the list is full. */
static int gbs_push(struct cmd_opts *o, int64_t v)
{
    for (int i = 0; i < o->n_gbs; i++)
        if (o->gbs_v[i] == v)
            return 0;
    if (o->n_gbs == CMD_MAX_GBS)
        return -1;
    o->gbs_v[o->n_gbs++] = v;
    return 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* One comma-separated form: N, A..B (doubling) or A..B:STEP, as --gpus. */
static int gbs_form(struct cmd_opts *o, const char *tok)
{
    long long a, b = 0, step = 0;
    int n = 0;
    if (sscanf(tok, "%lld..%lld:%lld%n", &a, &b, &step, &n) == 3 && !tok[n]) {
        if (step < 1)
            return -1;
    }
    else if (n = 0, sscanf(tok, "%lld..%lld%n", &a, &b, &n) == 2 && !tok[n])
        step = 0;
    else if (n = 0, sscanf(tok, "%lld%n", &a, &n) == 1 && !tok[n])
        b = a;
    else
        return -1;
    if (a < 1 || b < a || b > JOB_MAX_GBS || step < 0 || step > JOB_MAX_GBS)
        return -1;
    for (long long v = a; v <= b; v = step ? v + step : 2 * v)
        if (gbs_push(o, v))
            return -1;
    return 0;
}

static int parse_gbs(struct cmd_opts *o, const struct opt_row *row,
                     const char *val, struct tpl_err *err)
{
    char buf[256], *save, *tok;
    (void)row;
    o->n_gbs = 1;
    if (!strchr(val, ',') && !strstr(val, ".."))         /* one value */
        return opt_int("--gbs", val, 1, JOB_MAX_GBS, &o->gbs_v[0], err) ? TPL_EUSAGE
             : (o->gbs = o->gbs_v[0], 0);
    o->n_gbs = 0;
    if (strlen(val) >= sizeof buf)
        val = "";
    snprintf(buf, sizeof buf, "%s", val);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        if (gbs_form(o, tok))
            return tpl_errorf(err, TPL_EUSAGE, "'--gbs' must be batch sizes in "
                              "[1, %d] (N, A..B doubling, A..B:STEP, joined by "
                              "commas; at most %d), not '%s'", JOB_MAX_GBS,
                              CMD_MAX_GBS, val);
    if (o->n_gbs == 0)
        return tpl_errorf(err, TPL_EUSAGE, "'--gbs' must be batch sizes, not "
                          "'%s'", val);
    qsort(o->gbs_v, (size_t)o->n_gbs, sizeof o->gbs_v[0], cmp_i64);
    o->gbs = o->gbs_v[0];
    return 0;
}

static int parse_precision(struct cmd_opts *o, const struct opt_row *row,
                           const char *val, struct tpl_err *err)
{
    (void)row;
    return job_precision_parse(val, &o->precision) ? tpl_errorf(err,
           TPL_EUSAGE, "'--precision' must be bf16, fp16 or fp8, not '%s'",
           val) : 0;
}

static int parse_attention(struct cmd_opts *o, const struct opt_row *row,
                           const char *val, struct tpl_err *err)
{
    (void)row;
    return job_attention_parse(val, &o->attention) ? tpl_errorf(err,
           TPL_EUSAGE, "'--attention' must be flash or unfused, not '%s'",
           val) : 0;
}

static int parse_rc_modules(struct cmd_opts *o, const struct opt_row *row,
                            const char *val, struct tpl_err *err)
{
    char bad[40] = "";
    (void)row;
    if (job_rc_modules_parse(val, &o->rc_modules, bad, sizeof bad) == 0 &&
        o->rc_modules)
        return 0;
    return tpl_errorf(err, TPL_EUSAGE, "'--recompute-modules' must name one "
                      "or more of core_attn, moe_act, layernorm, mla_up_proj, "
                      "mlp, shared_experts, moe%s%s%s", *bad ? ", not '" : "",
                      bad, *bad ? "'" : "");
}

/* GiB ("8", "2.5") or a percentage of HBM capacity ("20%"), below it. */
static int parse_headroom(struct cmd_opts *o, const struct opt_row *row,
                          const char *val, struct tpl_err *err)
{
    char *end;
    double x = strtod(val, &end);
    bool pct = *end == '%' && end[1] == '\0';
    (void)row;
    if (end == val || (*end && !pct) || !(x >= 0) ||
        !(pct ? x < 100 : x <= 1e6))
        return tpl_errorf(err, TPL_EUSAGE, "'--headroom' must be GiB in "
                          "[0, 1e6] or a percentage of HBM in [0, 100) such as "
                          "'20%%', not '%s'", val);
    o->headroom = (struct pred_headroom){ x, pct };
    return 0;
}

static int parse_framework(struct cmd_opts *o, const struct opt_row *row,
                           const char *val, struct tpl_err *err)
{
    char names[64];
    (void)row;
    if (res_framework_parse(val, &o->framework) == 0)
        return 0;
    return tpl_errorf(err, TPL_EUSAGE, "'--framework' must be %s, not '%s'",
                      res_framework_list(", ", " or ", names, sizeof names), val);
}

static int parse_format(struct cmd_opts *o, const struct opt_row *row,
                        const char *val, struct tpl_err *err)
{
    (void)row;
    return opt_format(val, &o->fmt, err);
}

static int parse_chart(struct cmd_opts *o, const struct opt_row *row,
                       const char *val, struct tpl_err *err)
{
    (void)row;
    o->chart = val;
    return res_chart_path_ok(val) ? 0 : tpl_errorf(err, TPL_EUSAGE, "'--chart' "
           "must name a .svg or .png file, not '%s'", val);
}

/* "WxH" in pixels, each in [200, 8000]. */
static int parse_chart_size(struct cmd_opts *o, const struct opt_row *row,
                            const char *val, struct tpl_err *err)
{
    int w, h;
    char tail;
    (void)row;
    if (sscanf(val, "%dx%d%c", &w, &h, &tail) != 2 || w < 200 || w > 8000 ||
        h < 200 || h > 8000)
        return tpl_errorf(err, TPL_EUSAGE, "'--chart-size' must be WxH with "
                          "each in [200, 8000], not '%s'", val);
    o->chart_w = w;
    o->chart_h = h;
    return 0;
}

static int parse_help(struct cmd_opts *o, const struct opt_row *row,
                      const char *val, struct tpl_err *err)
{
    (void)row;
    (void)val;
    (void)err;
    o->help = true;
    return 0;
}

/* ---- the table of options (the plan's dimensions come from plan_dims) ---- */

#define OFF(f) offsetof(struct cmd_opts, f)
#define REQ required_argument

static const struct opt_row rows[OPT_COUNT] = {
    [OPT_SCENARIO]  = { "scenario", REQ, parse_str, OFF(scenario), 0, 0, 0, 0 },
    [OPT_MODEL]     = { "model", REQ, parse_str, OFF(model), 0, 0, 0, 0 },
    [OPT_SYSTEM]    = { "system", REQ, parse_str, OFF(system), 0, 0, 0, 0 },
    [OPT_SYSTEMS]   = { "systems", REQ, parse_str, OFF(systems), 0, 0, 0, 0 },
    [OPT_VARIANT]   = { "variant", REQ, parse_variant, 0, 0, 0, 0, 0 },
    [OPT_SET]       = { "set", REQ, parse_set, 0, 0, 0, 0, 0 },
    [OPT_STACK]     = { "stack", REQ, parse_str, OFF(stack), 0, 0, 0, 0 },
    [OPT_GBS]       = { "gbs", REQ, parse_gbs, 0, 0, 0, 0, 0 },
    [OPT_SEQ]       = { "seq", REQ, parse_int, OFF(seq), 1, JOB_MAX_SEQ, 0, 0 },
    [OPT_PRECISION] = { "precision", REQ, parse_precision, 0, 0, 0, 0, 0 },
    [OPT_ATTENTION] = { "attention", REQ, parse_attention, 0, 0, 0, 0, 0 },
    [OPT_TP_CROSS_NODE] = { "tp-cross-node", no_argument, parse_flag,
                            OFF(tp_cross_node), 0, 0, 0, 0 },
    [OPT_RC_MODULES] = { "recompute-modules", REQ, parse_rc_modules, 0, 0, 0,
                         0, 0 },
    [OPT_GPUS]      = { "gpus", REQ, parse_gpus, 0, 0, 0, 0, 0 },
    [OPT_TOP]       = { "top", REQ, parse_int, OFF(top), 1, SEARCH_MAX_TOP, 0, 0 },
    [OPT_BUDGET]    = { "budget", REQ, parse_int, OFF(budget), 1, INT64_MAX, 0, 0 },
    [OPT_SEED]      = { "seed", REQ, parse_int, OFF(seed), 0, INT64_MAX, 0, 0 },
    [OPT_EXHAUSTIVE] = { "exhaustive", no_argument, parse_flag, OFF(exhaustive),
                         0, 0, 0, 0 },
    [OPT_STATS]     = { "stats", no_argument, parse_flag, OFF(stats), 0, 0, 0, 0 },
    [OPT_SUMMARY]   = { "summary", no_argument, parse_flag, OFF(summary), 0, 0,
                        0, 0 },
    [OPT_PROGRESS]  = { "progress", no_argument, parse_flag, OFF(progress), 0,
                        0, 0, 0 },
    [OPT_TOKENS]    = { "tokens", REQ, parse_num, OFF(tokens), 0, 0, 1, 1e18 },
    [OPT_PRICE]     = { "price", REQ, parse_num, OFF(price), 0, 0, 0, 1e6 },
    [OPT_KNEE]      = { "knee", REQ, parse_num, OFF(knee), 0, 0, 0.01, 1 },
    [OPT_REFERENCE] = { "reference", REQ, parse_int, OFF(reference), 1,
                        SPACE_MAX_GPUS, 0, 0 },
    [OPT_PUBLISHED] = { "published-gpu-hours", REQ, parse_num,
                        OFF(published_gpu_hours), 0, 0, 1, 1e12 },
    [OPT_FRAMEWORK] = { "framework", REQ, parse_framework, 0, 0, 0, 0, 0 },
    [OPT_EXPORT_GPUS] = { "gpus", REQ, parse_int, OFF(export_gpus), 1, 1 << 20,
                          0, 0 },
    [OPT_NEAREST]   = { "nearest", no_argument, parse_flag, OFF(nearest), 0, 0,
                        0, 0 },
    [OPT_FORCE]     = { "force", no_argument, parse_flag, OFF(force), 0, 0, 0, 0 },
    [OPT_HEADROOM]  = { "headroom", REQ, parse_headroom, 0, 0, 0, 0, 0 },
    [OPT_FORMAT]    = { "format", REQ, parse_format, 0, 0, 0, 0, 0 },
    [OPT_OUT]       = { NULL, REQ, parse_str, OFF(out), 0, 0, 0, 0 },   /* -o */
    [OPT_CHART]     = { "chart", REQ, parse_chart, 0, 0, 0, 0, 0 },
    [OPT_CHART_SIZE] = { "chart-size", REQ, parse_chart_size, 0, 0, 0, 0, 0 },
    [OPT_HELP]      = { "help", no_argument, parse_help, 0, 0, 0, 0, 0 },
};
static_assert(OPT_COUNT < 64, "'given' is a 64-bit mask");

/* ---- the plan's dimensions ----
 * One option per row of plan_dims (spaces/dims.h), named as the row: in a
 * plan (predict, export) it takes one value (a switch takes none), in a
 * space (search, tradeoff) 'auto' or a list of the allowed values; a
 * derived dimension (dp) is no option of a space. */

static enum plan_dim dim_of(enum opt_id id)
{
    return (enum plan_dim)(id - OPT_DIM_FIRST);
}

static bool is_dim(enum opt_id id)
{
    return id >= OPT_DIM_FIRST && id <= OPT_DIM_LAST;
}

/* "none, selective or full" (sep ", ", last " or ") from the row's names. */
static const char *dim_names(enum plan_dim d, const char *sep, const char *last,
                             char *buf, size_t n)
{
    int k = 0;
    while (plan_dims[d].names[k])
        k++;
    return res_names_join(plan_dims[d].names, k, sep, last, buf, n);
}

/* One value of dimension d: an integer in range, or one of its names. */
static int dim_value(enum plan_dim d, const char *val, int32_t *out,
                     struct tpl_err *err)
{
    const struct plan_dim_info *di = &plan_dims[d];
    char opt[40], names[96];
    int64_t x;
    snprintf(opt, sizeof opt, "--%s", di->name);
    if (di->names)
        return plan_dim_parse(d, val, out) == 0 ? 0 : tpl_errorf(err,
               TPL_EUSAGE, "'%s' must be %s, not '%s'", opt,
               dim_names(d, ", ", " or ", names, sizeof names), val);
    if (opt_int(opt, val, di->lo, di->hi, &x, err))
        return TPL_EUSAGE;
    *out = (int32_t)x;
    return 0;
}

/* One element of a list, named in the message as an element. */
static int dim_element(enum plan_dim d, const char *el, int32_t *out,
                       struct tpl_err *err)
{
    char names[96];
    if (!plan_dims[d].names)
        return dim_value(d, el, out, err);
    if (plan_dim_parse(d, el, out) == 0)
        return 0;
    return tpl_errorf(err, TPL_EUSAGE, "'--%s': '%s' is not %s",
                      plan_dims[d].name, el,
                      dim_names(d, ", ", " or ", names, sizeof names));
}

static int list_form_error(enum plan_dim d, const char *v, struct tpl_err *err)
{
    char names[96];
    if (plan_dims[d].names)
        return tpl_errorf(err, TPL_EUSAGE, "'--%s' must be 'auto' or a list of "
                          "%s, not '%s'", plan_dims[d].name,
                          dim_names(d, ", ", ", ", names, sizeof names), v);
    return tpl_errorf(err, TPL_EUSAGE, "'--%s' must be 'auto' or a list of up "
                      "to %d integers, not '%s'", plan_dims[d].name,
                      SPACE_MAX_VALUES, v);
}

/* "auto" or a comma list of the dimension's values. */
static int dim_list(struct space_list *out, enum plan_dim d, const char *v,
                    struct tpl_err *err)
{
    char buf[32];
    const char *p = v;
    out->n = 0;
    if (!strcmp(v, "auto"))
        return 0;
    while (*p) {
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof buf || out->n == SPACE_MAX_VALUES)
            return list_form_error(d, v, err);
        snprintf(buf, sizeof buf, "%.*s", (int)len, p);
        if (dim_element(d, buf, &out->v[out->n++], err))
            return TPL_EUSAGE;
        p += len + (p[len] == ',');
        if (p[-1] == ',' && !*p)
            return tpl_errorf(err, TPL_EUSAGE, "'--%s': trailing comma in '%s'",
                              plan_dims[d].name, v);
    }
    return 0;
}

/* A switch in a space: y, n, or any (both). */
static int switch_list(struct space_list *out, enum plan_dim d, const char *v,
                       struct tpl_err *err)
{
    if (!strcmp(v, "any")) {
        out->n = 0;
        return 0;
    }
    out->n = 1;
    if (plan_dim_parse(d, v, &out->v[0]) == 0)
        return 0;
    return tpl_errorf(err, TPL_EUSAGE, "'--%s' must be y, n or any, not '%s'",
                      plan_dims[d].name, v);
}

static int parse_dim(struct cmd_opts *o, enum opt_dims mode, enum plan_dim d,
                     const char *val, struct tpl_err *err)
{
    int32_t v = 1;              /* a switch given in a plan: on, or =y / =n */
    if (mode == OPT_DIMS_SPACE)
        return plan_dims[d].is_switch ? switch_list(&o->space.dim[d], d, val, err)
                                      : dim_list(&o->space.dim[d], d, val, err);
    if (plan_dims[d].is_switch && val && plan_dim_parse(d, val, &v))
        return tpl_errorf(err, TPL_EUSAGE, "'--%s' must be --%s, --%s=y or "
                          "--%s=n, not '%s'", plan_dims[d].name,
                          plan_dims[d].name, plan_dims[d].name,
                          plan_dims[d].name, val);
    if (!plan_dims[d].is_switch && dim_value(d, val, &v, err))
        return TPL_EUSAGE;
    plan_dim_set(&o->plan, d, v);
    return 0;
}

void cmd_opts_apply_space(const struct cmd_opts *o, struct space *s)
{
    for (int d = 0; d < PLAN_DIM_COUNT; d++)
        if (cmd_opts_given(o, OPT_DIM(d)) && plan_dims[d].role != PLAN_ROLE_DERIVED)
            s->dim[d] = o->space.dim[d];
    if (o->tp_cross_node)
        s->tp_cross_node = true;
}

/* ---- parsing a command line ---- */

void cmd_opts_init(struct cmd_opts *o)
{
    memset(o, 0, sizeof *o);
    for (int d = 0; d < PLAN_DIM_COUNT; d++)
        plan_dim_set(&o->plan, (enum plan_dim)d, plan_dims[d].dflt);
    o->seed = 1;
    o->n_gbs = 1;
    o->price = -1;
    o->knee = 0.5;
    o->chart_w = 960;
    o->chart_h = 640;
}

bool cmd_opts_given(const struct cmd_opts *o, enum opt_id id)
{
    return o->given >> id & 1;
}

struct cmd_names cmd_opts_names(const struct cmd_opts *o)
{
    return (struct cmd_names){ o->scenario, o->model, o->system, o->stack };
}

void cmd_opts_apply_job(const struct cmd_opts *o, struct job *j)
{
    if (cmd_opts_given(o, OPT_GBS))
        j->gbs = o->gbs;
    if (cmd_opts_given(o, OPT_SEQ))
        j->seq = o->seq;
    if (cmd_opts_given(o, OPT_PRECISION))
        j->precision = o->precision;
    if (cmd_opts_given(o, OPT_ATTENTION))
        j->attention = o->attention;
    if (cmd_opts_given(o, OPT_RC_MODULES))
        j->recompute_modules = o->rc_modules;
}

/* getopt_long's row for one of the command's options: val is 256 + id. */
static struct option long_row(enum opt_id id, enum opt_dims mode)
{
    if (!is_dim(id))
        return (struct option){ rows[id].name, rows[id].has_arg, NULL,
                                256 + (int)id };
    return (struct option){ plan_dims[dim_of(id)].name,
                            plan_dims[dim_of(id)].is_switch &&
                            mode == OPT_DIMS_PLAN ? optional_argument
                            : required_argument, NULL, 256 + (int)id };
}

/* Is dimension d an option in this mode? */
static bool dim_taken(enum plan_dim d, enum opt_dims mode)
{
    return mode == OPT_DIMS_PLAN ||
           (mode == OPT_DIMS_SPACE && plan_dims[d].role != PLAN_ROLE_DERIVED);
}

/* The command's getopt_long table: its own options, then the dimensions. */
static void long_table(const struct cmd_spec *spec, struct option *t)
{
    int n = 0;
    for (const enum opt_id *id = spec->ids; *id != OPT_COUNT; id++)
        if (rows[*id].name)
            t[n++] = long_row(*id, spec->dims);
    for (int d = 0; d < PLAN_DIM_COUNT; d++)
        if (dim_taken((enum plan_dim)d, spec->dims))
            t[n++] = long_row(OPT_DIM(d), spec->dims);
    t[n] = (struct option){ NULL, 0, NULL, 0 };
}

static int parse_one(struct cmd_opts *o, const struct cmd_spec *spec,
                     enum opt_id id, const char *val, struct tpl_err *err)
{
    o->given |= (uint64_t)1 << id;
    if (is_dim(id))
        return parse_dim(o, spec->dims, dim_of(id), val, err);
    return rows[id].parse(o, &rows[id], val, err);
}

/* "unknown option '--gpu' (did you mean '--gpus'?)" for argv token a. */
static int unknown_option(const char *a, size_t len, const struct option *t,
                          struct tpl_err *err)
{
    char name[64];
    size_t n = 0;
    const char *near;
    while (t[n].name)
        n++;
    snprintf(name, sizeof name, "%.*s", (int)(len < 63 ? len : 63), a + 2);
    near = tpl_nearest_name(name, t, n, sizeof t[0]);
    return tpl_errorf(err, TPL_EUSAGE, "unknown option '%s'%s%s%s", a, near ?
                      " (did you mean '--" : "", near ? near : "",
                      near ? "'?)" : "");
}

int cmd_long_options_exact(int argc, char **argv, const struct option *t,
                           struct tpl_err *err)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
        const char *a = argv[i];
        size_t len = strcspn(a, "=") - 2;
        const struct option *o = NULL;
        if (!strcmp(a, "-o"))
            i++;                        /* its value, whatever it looks like */
        if (strncmp(a, "--", 2))
            continue;
        for (const struct option *r = t; r->name && !o; r++)
            if (strlen(r->name) == len && !strncmp(r->name, a + 2, len))
                o = r;
        if (!o)
            return unknown_option(a, len, t, err);
        if (o->has_arg == required_argument && !a[2 + len])
            i++;                        /* --name VALUE */
    }
    return 0;
}

int cmd_option_error(int c, char **argv, struct tpl_err *err)
{
    return tpl_errorf(err, TPL_EUSAGE, "%s '%s'", c == ':' ? "missing value for"
                      : "unknown option", argv[optind - 1]);
}

int cmd_one_operand(const char *what, int argc, char **argv, struct tpl_err *err)
{
    if (optind == argc)
        return tpl_errorf(err, TPL_EUSAGE, "missing %s", what);
    if (optind < argc - 1)
        return tpl_errorf(err, TPL_EUSAGE, "unexpected argument '%s'",
                          argv[optind + 1]);
    return 0;
}

/* getopt's short options: -o when the command writes a report. */
static const char *short_options(const struct cmd_spec *spec)
{
    for (const enum opt_id *id = spec->ids; *id != OPT_COUNT; id++)
        if (*id == OPT_OUT)
            return ":o:";
    return ":";
}

/* -o plans.csv / plans.json picks the format unless --format names one. */
static void format_from_out(struct cmd_opts *o)
{
    const char *dot = o->out ? strrchr(o->out, '.') : NULL;
    enum res_format f;
    if (dot && !cmd_opts_given(o, OPT_FORMAT) && strcmp(dot + 1, "table") &&
        res_format_parse(dot + 1, &f) == 0)
        o->fmt = f;
}

int cmd_opts_parse(struct cmd_opts *o, const struct cmd_spec *spec, int argc,
                   char **argv, struct tpl_err *err)
{
    struct option table[OPT_COUNT + 1];
    const char *shorts = short_options(spec);
    int c;
    long_table(spec, table);
    if (cmd_long_options_exact(argc, argv, table, err))
        return TPL_EUSAGE;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, shorts, table, NULL)) != -1) {
        if (c == '?' || c == ':')
            return cmd_option_error(c, argv, err);
        if (parse_one(o, spec, c == 'o' ? OPT_OUT : (enum opt_id)(c - 256),
                      optarg, err))
            return TPL_EUSAGE;
        if (o->help) {
            cmd_usage_print(spec->usage);
            return 0;
        }
    }
    if (optind < argc)
        return tpl_errorf(err, TPL_EUSAGE, "unexpected argument '%s'",
                          argv[optind]);
    format_from_out(o);
    if (o->progress)                    /* else: on a terminal (main.c) */
        tpl_progress_enable(true);
    if (o->n_gbs > 1 && !spec->gbs_lists)
        return tpl_errorf(err, TPL_EUSAGE, "'--gbs' takes one batch size here "
                          "(lists and ranges: search, tradeoff and compare)");
    return 0;
}

/* ---- usage texts ---- */

static void print_formats(void)
{
    char buf[64];
    fputs(res_format_list("|", "|", buf, sizeof buf), stdout);
}

static void print_frameworks(void)
{
    char buf[64];
    fputs(res_framework_list("|", "|", buf, sizeof buf), stdout);
}

/* One line per dimension: its option and value, its help (and names). */
static void print_dims(enum opt_dims mode)
{
    for (int d = 0; d < PLAN_DIM_COUNT; d++) {
        const struct plan_dim_info *di = &plan_dims[d];
        const char *arg = mode == OPT_DIMS_SPACE ? " LIST" : di->names ? " MODE"
                        : " N";
        char opt[64], names[96] = "";
        if (!dim_taken((enum plan_dim)d, mode))
            continue;
        if (di->is_switch)
            arg = mode == OPT_DIMS_SPACE ? " y|n|any" : "";
        else if (di->names)
            snprintf(names, sizeof names, " (%s)", dim_names((enum plan_dim)d,
                     "|", "|", opt, sizeof opt));
        snprintf(opt, sizeof opt, "--%s%s", di->name, arg);
        printf("  %-18s %s%s\n", opt, di->help, names);
    }
}

/* --headroom's help, the same in every command that takes it. */
static void print_headroom(void)
{
    printf("  --headroom H       memory to keep free beyond the system's reserve,\n"
           "                     GiB or a percentage of HBM (8, 20%%); a plan fits\n"
           "                     only when its total <= usable - H (default 0).\n"
           "                     Fujii et al. (arXiv 2411.06465): no run estimated\n"
           "                     at <= 80 %% of capacity ran out of memory in 454\n"
           "                     A100/H100 runs, hence 20%%. The memory model's own\n"
           "                     error: +-%.1f %% of the peak (%s)\n",
           PRED_MEM_ERROR_PCT, PRED_MEM_ERROR_RUNS);
}

static void print_plan_dims(void) { print_dims(OPT_DIMS_PLAN); }
static void print_space_dims(void) { print_dims(OPT_DIMS_SPACE); }

static const struct {
    const char *name;
    void (*print)(void);
} placeholders[] = {
    { "{formats}", print_formats },         /* table|csv|json */
    { "{frameworks}", print_frameworks },   /* megatron|nemo|torchtitan */
    { "{plan dims}", print_plan_dims },     /* a line per dimension */
    { "{space dims}", print_space_dims },
    { "{headroom}", print_headroom },       /* --headroom's lines */
};

/* Print the placeholder at p: its length, or 0 when there is none. */
static size_t expand(const char *p)
{
    for (size_t i = 0; i < sizeof placeholders / sizeof placeholders[0]; i++) {
        size_t n = strlen(placeholders[i].name);
        if (!strncmp(p, placeholders[i].name, n)) {
            placeholders[i].print();
            return n;
        }
    }
    return 0;
}

void cmd_usage_print(const char *text)
{
    for (const char *p = text; *p; ) {
        size_t n = *p == '{' ? expand(p) : 0;
        if (n)
            p += n;
        else
            putchar(*p++);
    }
}
