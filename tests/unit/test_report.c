/* tests/unit/test_report.c: the writer kit's name lists, the table of
 * writers (every report in every format writes, JSON parses) and the
 * compare builder (agrees with a tradeoff of the same search, refuses too
 * many systems, stops at a bad one). */
#include "helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/report.h"

Test(writer, names_joined_from_the_tables)
{
    char buf[64];
    static const char *const one[] = { "a" }, *const two[] = { "a", "b" };
    cr_assert_str_eq(res_format_list(", ", " or ", buf, sizeof buf),
                     "table, csv or json");
    cr_assert_str_eq(res_format_list("|", "|", buf, sizeof buf), "table|csv|json");
    cr_assert_str_eq(res_framework_list(", ", " or ", buf, sizeof buf),
                     "megatron, nemo or torchtitan");
    cr_assert_str_eq(res_names_join(one, 1, ", ", " or ", buf, sizeof buf), "a");
    cr_assert_str_eq(res_names_join(two, 2, ", ", " or ", buf, sizeof buf), "a or b");
    cr_assert_str_eq(res_names_join(two, 2, ", ", " or ", buf, 3), "a ");
}

struct fixture {
    struct model m;
    struct hw_system h;
    struct job j;
    struct space s;
    struct pred_ctx c;
    int64_t gpus;
    struct search_result res;
    struct plan plan;
    struct pred_result r;
    struct tradeoff t;
    struct compare cmp;
};

static void fixture_init(struct fixture *f)
{
    struct tpl_err err = { 0 };
    struct search_cfg cfg = { .ctx = &f->c, .space = &f->s, .gpus = &f->gpus,
                              .n_gpus = 1, .top_k = 2 };
    struct compare_job job = { .model = &f->m, .job = &f->j, .space = &f->s,
                               .gpus = &f->gpus, .n_gpus = 1, .tokens = 1e12 };
    struct compare_entry e[2] = { { "h100", "dgx-h100", NULL, 0 },
                                  { "a100", "dgx-a100", NULL, 0 } };
    memset(f, 0, sizeof *f);
    f->m = load_model("llama3-8b");
    f->h = load_system("dgx-h100");
    f->j = make_job(8192, 512);
    f->gpus = 64;
    pred_ctx_init(&f->c, &f->m, &f->h, &f->j, false);
    f->s.zero = (struct space_list){ 2, { 0, 3 } };  /* every exporter's */
    cr_assert_eq(search_run(&cfg, &f->res, &err), 0, "%s", err.msg);
    f->plan = f->res.per_gpu[0].hits[0].plan;
    pred_plan(&f->c, &f->plan, &f->r);
    res_tradeoff_build(&f->c, &f->res, 1e12, f->h.usd_per_gpu_hour, 0.5, &f->t);
    cr_assert_eq(res_compare_build(&job, e, 2, &f->cmp, &err), 0, "%s", err.msg);
}

static void fixture_release(struct fixture *f)
{
    res_compare_release(&f->cmp);
    res_tradeoff_release(&f->t);
    search_result_release(&f->res);
}

/* Write rep into memory: what was written (free it), NULL on failure. */
static char *written(const struct res_report *rep)
{
    struct tpl_err err = { 0 };
    char *buf = NULL;
    size_t n = 0;
    FILE *fp = open_memstream(&buf, &n);
    int rc = res_report_write(fp, rep, &err);
    fclose(fp);
    cr_assert_eq(rc, 0, "%s", err.msg);
    return buf;
}

Test(report, every_report_in_every_format)
{
    static struct fixture f;
    fixture_init(&f);
    for (int k = 0; k <= RES_REPORT_EXPORT; k++)
        for (int fmt = 0; fmt < RES_FMT_COUNT; fmt++) {
            struct res_report rep = { .kind = (enum res_report_kind)k,
                .fmt = (enum res_format)fmt, .fw = (enum res_framework)fmt,
                .ctx = &f.c };
            json_error_t jerr;
            json_t *v;
            char *out;
            if (k == RES_REPORT_PREDICT || k == RES_REPORT_EXPORT)
                rep.u.plan.plan = &f.plan, rep.u.plan.r = &f.r;
            else if (k == RES_REPORT_SEARCH)
                rep.u.search.s = &f.res;
            else if (k == RES_REPORT_TRADEOFF)
                rep.u.tradeoff = &f.t;
            else
                rep.u.compare = &f.cmp;
            out = written(&rep);
            cr_assert(out && strlen(out) > 40, "report %d format %d: empty", k, fmt);
            if (fmt == RES_FMT_JSON && k != RES_REPORT_EXPORT) {
                v = json_loads(out, 0, &jerr);
                cr_assert(v, "report %d: JSON does not parse: %s", k, jerr.text);
                json_decref(v);
            }
            free(out);
        }
    fixture_release(&f);
}

/* validate's report in every format and the gate's baseline file, from
 * tests/data/runs/small.csv: the JSON ones parse, the baseline carries its
 * command. */
Test(report, validate_and_baseline_reports)
{
    struct runs runs;
    struct tpl_err err = { 0 };
    struct fid_gate gate;
    struct fid_report *v;
    char *out;
    cr_assert_eq(runs_load(&runs, "tests/data/runs/small.csv", &err), 0, "%s", err.msg);
    v = fid_report_new(&runs, NULL);
    for (int fmt = 0; fmt < RES_FMT_COUNT; fmt++) {
        struct res_report rep = { .kind = RES_REPORT_VALIDATE,
                                  .fmt = (enum res_format)fmt, .u.validate = v };
        out = written(&rep);
        cr_assert(out && strlen(out) > 40, "format %d: empty", fmt);
        if (fmt == RES_FMT_JSON) {
            json_error_t jerr;
            json_t *j = json_loads(out, 0, &jerr);
            cr_assert(j, "JSON does not parse: %s", jerr.text);
            json_decref(j);
        }
        free(out);
    }
    fid_gate_of(v, &gate);
    snprintf(gate.command, sizeof gate.command, "trainplan validate small.csv");
    out = written(&(struct res_report){ .kind = RES_REPORT_BASELINE,
                                        .u.baseline = &gate });
    cr_assert(strstr(out, "\"trainplan validate small.csv\""), "%s", out);
    free(out);
    fid_gate_free(&gate);
    fid_report_free(v);
    runs_release(&runs);
}

Test(compare, builder_agrees_with_tradeoff)
{
    static struct fixture f;
    fixture_init(&f);
    cr_assert_eq(f.cmp.n, 2);
    cr_assert_str_eq(f.cmp.sys[0].label, "h100");
    cr_assert(f.cmp.sys[0].t.rows[0].feasible);
    cr_assert_eq(memcmp(&f.cmp.sys[0].t.rows[0].plan, &f.t.rows[0].plan,
                        sizeof f.t.rows[0].plan), 0);
    cr_assert_eq(f.cmp.sys[0].t.rows[0].days, f.t.rows[0].days);
    cr_assert(res_compare_feasible(&f.cmp));
    fixture_release(&f);
}

Test(compare, builder_refuses_and_stops)
{
    static struct fixture f;
    static struct compare cmp;
    struct compare_entry e[RES_COMPARE_MAX + 1];
    struct tpl_err err = { 0 };
    struct compare_job job;
    fixture_init(&f);
    job = (struct compare_job){ .model = &f.m, .job = &f.j, .space = &f.s,
                                .gpus = &f.gpus, .n_gpus = 1, .tokens = 1e12 };
    for (int i = 0; i <= RES_COMPARE_MAX; i++)
        e[i] = (struct compare_entry){ "x", "dgx-h100", NULL, 0 };
    cr_assert_eq(res_compare_build(&job, e, RES_COMPARE_MAX + 1, &cmp, &err),
                 TPL_EUSAGE);
    cr_assert_str_eq(err.msg, "at most 16 systems");
    e[1].system = "no-such-system";
    cr_assert_eq(res_compare_build(&job, e, 3, &cmp, &err), TPL_ECONFIG);
    cr_assert_eq(cmp.n, 1, "the system before the bad one stays");
    res_compare_release(&cmp);
    fixture_release(&f);
}
