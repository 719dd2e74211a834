/* results/writer.c: the writer kit every report shares (writer.h): format
 * names, the plan's feasibility reason, its JSON object and CSV row, and the
 * end of a stream. */
#include "results/writer.h"

#include <assert.h>
#include <math.h>
#include <string.h>

static const char *const format_names[RES_FMT_COUNT] = {
    [RES_FMT_TABLE] = "table", [RES_FMT_CSV] = "csv", [RES_FMT_JSON] = "json",
};
static_assert(RES_FMT_COUNT == 3, "update format_names");

const char *res_format_name(enum res_format f) { return format_names[f]; }

const char *res_names_join(const char *const *names, int n, const char *sep,
                           const char *last, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s",
                                i == 0 ? "" : i == n - 1 ? last : sep, names[i]);
    return buf;
}

const char *res_format_list(const char *sep, const char *last, char *buf,
                            size_t size)
{
    return res_names_join(format_names, RES_FMT_COUNT, sep, last, buf, size);
}

int res_format_parse(const char *s, enum res_format *out)
{
    for (int i = 0; i < RES_FMT_COUNT; i++)
        if (!strcmp(s, format_names[i])) {
            *out = (enum res_format)i;
            return 0;
        }
    return -1;
}

const char *res_usable_text(const struct pred_mem *m, char *buf, size_t n)
{
    if (m->headroom_bytes > 0)
        snprintf(buf, n, "%.2f GiB usable less %.2f GiB headroom",
                 m->usable_bytes / RES_GIB, m->headroom_bytes / RES_GIB);
    else
        snprintf(buf, n, "%.2f GiB usable", m->usable_bytes / RES_GIB);
    return buf;
}

void res_plan_reason(const struct pred_ctx *c, const struct plan *p,
                     const struct pred_result *r, char *buf, size_t n)
{
    if (r->rule != PLAN_OK)
        plan_rule_explain(r->rule, p, &c->model, &c->job, &c->limits, buf, n);
    else if (!r->mem.fits) {
        char usable[96];
        snprintf(buf, n, "memory: needs %.2f GiB per GPU, %s (short by %.2f "
                 "GiB)", r->mem.total_bytes / RES_GIB,
                 res_usable_text(&r->mem, usable, sizeof usable),
                 -r->mem.margin_bytes / RES_GIB);
    } else
        buf[0] = '\0';
}

/* ---- JSON ---- */

/* json_real refuses NaN and infinity; the predictor never makes them, and a
 * null here keeps the output parseable if it ever did. */
static json_t *num(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

/* A plan dimension's value as its table row says: a switch as a boolean,
 * a named value by name ("selective"), else the integer. */
static json_t *dim_json(const struct plan *p, enum plan_dim d)
{
    int32_t v = plan_dim_get(p, d);
    if (plan_dims[d].is_switch)
        return json_boolean(v);
    if (plan_dims[d].names)
        return json_string(plan_dim_value_name(d, v));
    return json_integer(v);
}

/* What selective recompute rebuilds (spaces/job.h), Megatron's names. */
static json_t *rc_modules(unsigned set)
{
    json_t *a = json_array();
    for (int i = 0; i < JOB_RC_COUNT; i++)
        if (set & JOB_RC_BIT(i))
            json_array_append_new(a, json_string(job_rc_module_name(
                                                     (enum job_rc_module)i)));
    return a;
}

static json_t *plan_obj(const struct pred_ctx *c, const struct plan *p)
{
    char key[96];
    json_t *o, *job;
    plan_key(p, key, sizeof key);
    o = json_pack("{s:s, s:I, s:I, s:I}", "key", key,
                  "gpus", (json_int_t)plan_gpus(p),
                  "nodes", (json_int_t)res_nodes(&c->hw, plan_gpus(p)),
                  "gpus_per_node", (json_int_t)c->hw.gpus_per_node);
    for (int d = 0; d < PLAN_DIM_COUNT; d++)
        json_object_set_new(o, plan_dims[d].name, dim_json(p, (enum plan_dim)d));
    job = json_pack("{s:I, s:I, s:I, s:s, s:s, s:s, s:s, s:s}",
                    "gbs", (json_int_t)c->job.gbs, "seq", (json_int_t)c->job.seq,
                    "microbatches", (json_int_t)plan_microbatches(p, &c->job),
                    "precision", job_precision_name(c->job.precision),
                    "attention", job_attention_name(c->job.attention),
                    "model", c->model.name, "system", c->hw.name,
                    "stack", c->stack);
    json_object_set_new(o, "recompute_modules", rc_modules(c->job.recompute_modules));
    json_object_update(o, job);
    json_decref(job);
    return o;
}

static json_t *memory_fields(const struct pred_mem *m)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:i}",
                     "weights_gib", num(m->weights_bytes / RES_GIB),
                     "gradients_gib", num(m->grads_bytes / RES_GIB),
                     "optimizer_gib", num(m->optimizer_bytes / RES_GIB),
                     "activations_gib", num(m->activations_bytes / RES_GIB),
                     "embedding_logits_gib", num(m->embed_logits_bytes / RES_GIB),
                     "total_gib", num(m->total_bytes / RES_GIB),
                     "usable_gib", num(m->usable_bytes / RES_GIB),
                     "reserve_gib", num(m->reserve_bytes / RES_GIB),
                     "margin_gib", num(m->margin_bytes / RES_GIB),
                     "worst_stage", m->worst_stage);
}

/* "headroom_gib" only when --headroom set one: the default report is as it
 * was. */
static json_t *memory_obj(const struct pred_mem *m)
{
    json_t *o = memory_fields(m);
    if (o && m->headroom_bytes > 0)
        json_object_set_new(o, "headroom_gib", num(m->headroom_bytes / RES_GIB));
    return o;
}

static json_t *breakdown_obj(const struct pred_result *r)
{
    json_t *bd = json_object();
    for (int i = 0; i < PRED_PART_COUNT; i++)
        json_object_set_new(bd, pred_part_name((enum pred_part)i),
                            num(r->part_s[i]));
    return bd;
}

/* Per operator of a layer, forward and backward seconds. */
static json_t *ops_obj(const struct pred_layer *l)
{
    json_t *ops = json_object();
    for (int i = 0; i < PRED_OP_COUNT; i++)
        json_object_set_new(ops, pred_op_name((enum pred_op)i),
                            json_pack("{s:o, s:o}", "fwd_s", num(l->fwd_s[i]),
                                      "bwd_s", num(l->bwd_s[i])));
    json_object_set_new(ops, "recompute",
                        json_pack("{s:o, s:o}", "fwd_s", json_real(0),
                                  "bwd_s", num(l->recompute_s)));
    return ops;
}

double res_flops_per_token(const struct pred_ctx *c, const struct pred_result *r)
{
    return r->model_flops / ((double)c->job.gbs * (double)c->job.seq);
}

int64_t res_nodes(const struct hw_system *hw, int64_t gpus)
{
    return (gpus + hw->gpus_per_node - 1) / hw->gpus_per_node;
}

double res_samples_per_s(const struct pred_ctx *c, const struct pred_result *r)
{
    return (double)c->job.gbs / r->iteration_s;
}

double res_model_tflops_per_gpu(const struct pred_result *r, int64_t gpus)
{
    return r->model_flops / r->iteration_s / (double)gpus / 1e12;
}

json_t *res_plan_json(const struct pred_ctx *c, const struct plan *p,
                      const struct pred_result *r)
{
    char reason[256];
    json_t *o;
    res_plan_reason(c, p, r, reason, sizeof reason);
    o = json_pack("{s:o, s:o, s:o, s:o, s:b, s:o, s:o, s:o, s:o, s:o, s:o, "
                  "s:I, s:o, s:o, s:o, s:b, s:s, s:o, s:o, s:o, s:b}",
                  "plan", plan_obj(c, p),
                  "iteration_s", num(r->iteration_s),
                  "iteration_s_low", num(r->iteration_s_low),
                  "iteration_s_high", num(r->iteration_s_high),
                  "outside_validated_region", r->band_outside,
                  "tokens_per_s", num(r->tokens_per_s),
                  "samples_per_s", num(res_samples_per_s(c, r)),
                  "mfu", num(r->mfu), "hfu", num(r->hfu),
                  "model_tflops_per_gpu",
                  num(res_model_tflops_per_gpu(r, plan_gpus(p))),
                  "model_flops", num(r->model_flops),
                  "params", (json_int_t)model_params(&c->model),
                  "flops_per_token", num(res_flops_per_token(c, r)),
                  "memory_gib", num(r->mem.total_bytes / RES_GIB),
                  "memory", memory_obj(&r->mem),
                  "fits", r->rule == PLAN_OK && r->mem.fits,
                  "reason", reason,
                  "breakdown_s", breakdown_obj(r), "operators", ops_obj(&r->layer),
                  "valid", json_boolean(r->rule == PLAN_OK),
                  "calibrated", c->hw.calibrated);
    return o;
}

/* ---- CSV ---- */

void res_csv_bool(FILE *fp, bool b)
{
    fputs(b ? ",true" : ",false", fp);
}

void res_csv_header(FILE *fp)
{
    fputs("key,model,system,stack,gpus,nodes,gpus_per_node", fp);
    for (int d = 0; d < PLAN_DIM_COUNT; d++)
        fprintf(fp, ",%s", plan_dims[d].name);
    fputs(",gbs,seq,precision,iteration_s,iteration_s_low,iteration_s_high,"
          "outside_validated_region,tokens_per_s,samples_per_s,mfu,hfu,"
          "model_tflops_per_gpu,memory_gib,margin_gib,fits", fp);
    for (int i = 0; i < PRED_PART_COUNT; i++)
        fprintf(fp, ",%s_s", pred_part_name((enum pred_part)i));
    fputs(",calibrated,reason,schema_version\n", fp);
}

static void csv_dims(FILE *fp, const struct plan *p)
{
    for (int d = 0; d < PLAN_DIM_COUNT; d++) {
        const char *name = plan_dim_value_name((enum plan_dim)d,
                                               plan_dim_get(p, (enum plan_dim)d));
        if (plan_dims[d].is_switch)
            res_csv_bool(fp, plan_dim_get(p, (enum plan_dim)d));
        else if (name)
            fprintf(fp, ",%s", name);
        else
            fprintf(fp, ",%d", (int)plan_dim_get(p, (enum plan_dim)d));
    }
}

static void csv_figures(FILE *fp, const struct pred_ctx *c,
                        const struct pred_result *r, int64_t gpus)
{
    const double v[] = { r->iteration_s, r->iteration_s_low, r->iteration_s_high };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        res_csv_num(fp, v[i]);
    res_csv_bool(fp, r->band_outside);
    res_csv_num(fp, r->tokens_per_s);
    res_csv_num(fp, res_samples_per_s(c, r));
    res_csv_num(fp, r->mfu);
    res_csv_num(fp, r->hfu);
    res_csv_num(fp, res_model_tflops_per_gpu(r, gpus));
    res_csv_num(fp, r->mem.total_bytes / RES_GIB);
    res_csv_num(fp, r->mem.margin_bytes / RES_GIB);
    res_csv_bool(fp, r->rule == PLAN_OK && r->mem.fits);
    for (int i = 0; i < PRED_PART_COUNT; i++)
        res_csv_num(fp, r->part_s[i]);
}

void res_csv_row(FILE *fp, const struct pred_ctx *c, const struct plan *p,
                 const struct pred_result *r)
{
    char key[96], reason[256];
    int64_t gpus = plan_gpus(p);
    plan_key(p, key, sizeof key);
    res_plan_reason(c, p, r, reason, sizeof reason);
    for (char *q = reason; *q; q++)         /* keep the row one CSV field */
        if (*q == ',')
            *q = ';';
    fprintf(fp, "%s,%s,%s,%s,%lld,%lld,%lld", key, c->model.name, c->hw.name,
            c->stack, (long long)gpus, (long long)res_nodes(&c->hw, gpus),
            (long long)c->hw.gpus_per_node);
    csv_dims(fp, p);
    fprintf(fp, ",%lld,%lld,%s", (long long)c->job.gbs, (long long)c->job.seq,
            job_precision_name(c->job.precision));
    csv_figures(fp, c, r, gpus);
    res_csv_bool(fp, c->hw.calibrated);
    fprintf(fp, ",%s,%d\n", reason, RES_SCHEMA_VERSION);
}

void res_uncalibrated_note(FILE *fp, const struct hw_system *hw)
{
    if (!hw->calibrated)
        fprintf(fp, "uncalibrated: %s's kernel efficiencies are modelling "
                "defaults, not fitted on its kernel samples; its times are "
                "estimates only\n", hw->name);
}

const char *res_tokens_text(double tokens, char *buf, size_t n)
{
    static const struct { double v; const char *unit; } units[] = {
        { 1e12, "T" }, { 1e9, "B" }, { 1e6, "M" }, { 1e3, "k" } };
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (tokens >= units[i].v) {
            snprintf(buf, n, "%.3g%s", tokens / units[i].v, units[i].unit);
            return buf;
        }
    snprintf(buf, n, "%.3g", tokens);
    return buf;
}

const char *res_gbs_label(int64_t lo, int64_t hi, char *buf, size_t n)
{
    if (lo == hi)
        snprintf(buf, n, "gbs %lld", (long long)lo);
    else
        snprintf(buf, n, "gbs %lld..%lld (the best per count)", (long long)lo,
                 (long long)hi);
    return buf;
}

void res_json_nearby(json_t *o, const int64_t *v, int n)
{
    json_t *a = json_array();
    for (int k = 0; k < n; k++)
        json_array_append_new(a, json_integer((json_int_t)v[k]));
    json_object_set_new(o, "nearby_gbs", a);
}
