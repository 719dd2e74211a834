/* results/predict.c: the report of one plan (trainplan predict) as a table,
 * one CSV row under a header, or JSON. */
#include "results/res.h"

#include <assert.h>
#include <math.h>
#include <string.h>

static const char *const format_names[RES_FMT_COUNT] = {
    [RES_FMT_TABLE] = "table", [RES_FMT_CSV] = "csv", [RES_FMT_JSON] = "json",
};
static_assert(RES_FMT_COUNT == 3, "update format_names");

const char *res_format_name(enum res_format f) { return format_names[f]; }

int res_format_parse(const char *s, enum res_format *out)
{
    for (int i = 0; i < RES_FMT_COUNT; i++)
        if (!strcmp(s, format_names[i])) {
            *out = (enum res_format)i;
            return 0;
        }
    return -1;
}

void res_plan_reason(const struct pred_ctx *c, const struct plan *p,
                     const struct pred_result *r, char *buf, size_t n)
{
    if (r->rule != PLAN_OK)
        plan_rule_explain(r->rule, p, &c->model, &c->job, &c->limits, buf, n);
    else if (!r->mem.fits)
        snprintf(buf, n, "memory: needs %.2f GiB per GPU, %.2f GiB usable "
                 "(short by %.2f GiB)", r->mem.total / RES_GIB,
                 r->mem.usable / RES_GIB, -r->mem.margin / RES_GIB);
    else
        buf[0] = '\0';
}

/* ---- JSON ---- */

/* json_real refuses NaN and infinity; the predictor never makes them, and a
 * null here keeps the output parseable if it ever did. */
static json_t *num(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

static json_t *plan_obj(const struct pred_ctx *c, const struct plan *p)
{
    char key[96];
    plan_key(p, key, sizeof key);
    return json_pack("{s:s, s:I, s:i, s:i, s:i, s:i, s:i, s:b, s:s, s:i, "
                     "s:I, s:I, s:I, s:s, s:s, s:s, s:s}",
                     "key", key, "gpus", (json_int_t)plan_gpus(p),
                     "tp", p->tp, "pp", p->pp, "dp", p->dp, "mbs", p->mbs,
                     "vpp", p->vpp, "sp", p->sp,
                     "recompute", plan_recompute_name(p->recompute),
                     "zero", p->zero, "gbs", (json_int_t)c->job.gbs,
                     "seq", (json_int_t)c->job.seq,
                     "microbatches", (json_int_t)plan_microbatches(p, &c->job),
                     "precision", job_precision_name(c->job.precision),
                     "attention", job_attention_name(c->job.attention),
                     "model", c->model.name, "system", c->hw.name);
}

static json_t *memory_obj(const struct pred_mem *m)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:i}",
                     "weights", num(m->weights / RES_GIB),
                     "gradients", num(m->grads / RES_GIB),
                     "optimizer", num(m->optimizer / RES_GIB),
                     "activations", num(m->activations / RES_GIB),
                     "embedding_logits", num(m->embed_logits / RES_GIB),
                     "total", num(m->total / RES_GIB),
                     "usable", num(m->usable / RES_GIB),
                     "reserve", num(m->reserve / RES_GIB),
                     "margin", num(m->margin / RES_GIB),
                     "worst_stage", m->worst_stage);
}

json_t *res_plan_json(const struct pred_ctx *c, const struct plan *p,
                      const struct pred_result *r)
{
    char reason[256];
    json_t *bd = json_object(), *ops = json_object(), *o;
    for (int i = 0; i < PRED_PART_COUNT; i++)
        json_object_set_new(bd, pred_part_name((enum pred_part)i),
                            num(r->part_s[i]));
    for (int i = 0; i < PRED_OP_COUNT; i++)
        json_object_set_new(ops, pred_op_name((enum pred_op)i),
                            json_pack("{s:o, s:o}", "fwd_s", num(r->layer.fwd_s[i]),
                                      "bwd_s", num(r->layer.bwd_s[i])));
    json_object_set_new(ops, "recompute",
                        json_pack("{s:o, s:o}", "fwd_s", json_real(0),
                                  "bwd_s", num(r->layer.recompute_s)));
    res_plan_reason(c, p, r, reason, sizeof reason);
    o = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:s, s:o, "
                  "s:o, s:o}",
                  "plan", plan_obj(c, p),
                  "iteration_s", num(r->iteration_s),
                  "tokens_per_s", num(r->tokens_per_s),
                  "mfu", num(r->mfu), "hfu", num(r->hfu),
                  "model_flops", num(r->model_flops),
                  "memory_gib", num(r->mem.total / RES_GIB),
                  "memory", memory_obj(&r->mem),
                  "fits", r->rule == PLAN_OK && r->mem.fits,
                  "reason", reason,
                  "breakdown_s", bd, "operators", ops,
                  "valid", json_boolean(r->rule == PLAN_OK));
    return o;
}

int res_json_emit(FILE *fp, json_t *v, struct tpl_err *err)
{
    int bad = json_dumpf(v, fp, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
                         JSON_REAL_PRECISION(10)) != 0 || fputc('\n', fp) == EOF;
    json_decref(v);
    return bad ? tpl_errorf(err, TPL_EIO, "cannot write JSON output")
               : res_stream_done(fp, err);
}

int res_stream_done(FILE *fp, struct tpl_err *err)
{
    return ferror(fp) ? tpl_errorf(err, TPL_EIO, "cannot write the report") : 0;
}

/* ---- CSV ---- */

void res_csv_header(FILE *fp, bool ranked)
{
    if (ranked)
        fputs("rank,", fp);
    fputs("key,model,system,gpus,tp,pp,dp,mbs,vpp,sp,recompute,zero,gbs,seq,"
          "precision,iteration_s,tokens_per_s,mfu,hfu,memory_gib,margin_gib,"
          "fits", fp);
    for (int i = 0; i < PRED_PART_COUNT; i++)
        fprintf(fp, ",%s_s", pred_part_name((enum pred_part)i));
    fputs(",reason\n", fp);
}

void res_csv_row(FILE *fp, int rank, const struct pred_ctx *c,
                 const struct plan *p, const struct pred_result *r)
{
    char key[96], reason[256];
    if (rank > 0)
        fprintf(fp, "%d,", rank);
    plan_key(p, key, sizeof key);
    res_plan_reason(c, p, r, reason, sizeof reason);
    for (char *q = reason; *q; q++)         /* keep the row one CSV field */
        if (*q == ',')
            *q = ';';
    fprintf(fp, "%s,%s,%s,%lld,%d,%d,%d,%d,%d,%s,%s,%d,%lld,%lld,%s,"
            "%.6g,%.6g,%.4f,%.4f,%.3f,%.3f,%s", key, c->model.name, c->hw.name,
            (long long)plan_gpus(p), (int)p->tp, (int)p->pp, (int)p->dp,
            (int)p->mbs, (int)p->vpp, p->sp ? "y" : "n",
            plan_recompute_name(p->recompute), (int)p->zero,
            (long long)c->job.gbs, (long long)c->job.seq,
            job_precision_name(c->job.precision), r->iteration_s,
            r->tokens_per_s, r->mfu, r->hfu, r->mem.total / RES_GIB,
            r->mem.margin / RES_GIB,
            r->rule == PLAN_OK && r->mem.fits ? "y" : "n");
    for (int i = 0; i < PRED_PART_COUNT; i++)
        fprintf(fp, ",%.6g", r->part_s[i]);
    fprintf(fp, ",%s\n", reason);
}

/* ---- table ---- */

static void table_time(FILE *fp, const struct pred_ctx *c, const struct plan *p,
                       const struct pred_result *r)
{
    double gpus = (double)plan_gpus(p);
    fprintf(fp, "\ntime\n");
    fprintf(fp, "  %-22s %12.3f s\n", "iteration", r->iteration_s);
    fprintf(fp, "  %-22s %12.0f  (%.0f per GPU)\n", "tokens/s", r->tokens_per_s,
            r->tokens_per_s / gpus);
    fprintf(fp, "  %-22s %12.1f %%  (HFU %.1f %%, %.0f model TFLOP/s per GPU)\n",
            "MFU", 100 * r->mfu, 100 * r->hfu,
            r->mfu * c->peak_flops / 1e12);
    fprintf(fp, "\n%-24s %12s %8s\n", "breakdown", "s", "%");
    for (int i = 0; i < PRED_PART_COUNT; i++)
        fprintf(fp, "  %-22s %12.3f %8.1f\n", pred_part_name((enum pred_part)i),
                r->part_s[i], 100 * r->part_s[i] / r->iteration_s);
    fprintf(fp, "  %-22s %12.3f %8.1f\n", "total", r->iteration_s, 100.0);
}

static void table_memory(FILE *fp, const struct pred_result *r)
{
    const struct pred_mem *m = &r->mem;
    fprintf(fp, "\nmemory per GPU (worst stage: pipeline rank %d)    GiB\n",
            m->worst_stage);
    fprintf(fp, "  %-22s %12.2f\n", "weights", m->weights / RES_GIB);
    fprintf(fp, "  %-22s %12.2f\n", "gradients", m->grads / RES_GIB);
    fprintf(fp, "  %-22s %12.2f\n", "optimizer", m->optimizer / RES_GIB);
    fprintf(fp, "  %-22s %12.2f\n", "activations", m->activations / RES_GIB);
    fprintf(fp, "  %-22s %12.2f\n", "embedding/logits", m->embed_logits / RES_GIB);
    fprintf(fp, "  %-22s %12.2f\n", "total", m->total / RES_GIB);
    fprintf(fp, "  %-22s %12.2f  (HBM %.2f less %.2f reserve)\n", "usable",
            m->usable / RES_GIB, (m->usable + m->reserve) / RES_GIB,
            m->reserve / RES_GIB);
    fprintf(fp, "  %-22s %12.2f\n", "margin", m->margin / RES_GIB);
}

static void table_ops(FILE *fp, const struct pred_layer *l)
{
    fprintf(fp, "\n%-24s %12s %12s\n", "per layer, one micro-batch", "fwd ms",
            "bwd ms");
    for (int i = 0; i < PRED_OP_COUNT; i++)
        fprintf(fp, "  %-22s %12.4f %12.4f\n", pred_op_name((enum pred_op)i),
                1e3 * l->fwd_s[i], 1e3 * l->bwd_s[i]);
    fprintf(fp, "  %-22s %12s %12.4f\n", "recompute", "", 1e3 * l->recompute_s);
    fprintf(fp, "  %-22s %12.4f %12.4f\n", "total", 1e3 * l->fwd_total_s,
            1e3 * (l->bwd_total_s + l->recompute_s));
}

static void table_write(FILE *fp, const struct pred_ctx *c, const struct plan *p,
                        const struct pred_result *r)
{
    char key[96], reason[256];
    plan_key(p, key, sizeof key);
    res_plan_reason(c, p, r, reason, sizeof reason);
    fprintf(fp, "%s on %s, %lld GPUs\n", c->model.name, c->hw.name,
            (long long)plan_gpus(p));
    fprintf(fp, "  %-22s %s\n", "plan", key);
    fprintf(fp, "  %-22s seq %lld, gbs %lld, %s, %s attention, %lld "
            "micro-batches\n", "job", (long long)c->job.seq,
            (long long)c->job.gbs, job_precision_name(c->job.precision),
            job_attention_name(c->job.attention), (long long)r->microbatches);
    if (reason[0])
        fprintf(fp, "  %-22s no: %s\n", "feasible", reason);
    else
        fprintf(fp, "  %-22s yes (%.2f GiB to spare)\n", "feasible",
                r->mem.margin / RES_GIB);
    table_time(fp, c, p, r);
    table_memory(fp, r);
    table_ops(fp, &r->layer);
}

int res_predict_write(FILE *fp, enum res_format fmt, const struct pred_ctx *c,
                      const struct plan *p, const struct pred_result *r,
                      struct tpl_err *err)
{
    switch (fmt) {
    case RES_FMT_TABLE:
        table_write(fp, c, p, r);
        break;
    case RES_FMT_CSV:
        res_csv_header(fp, false);
        res_csv_row(fp, 0, c, p, r);
        break;
    case RES_FMT_JSON:
        return res_json_emit(fp, res_plan_json(c, p, r), err);
    case RES_FMT_COUNT:
        TPL_BUG("bad format %d", (int)fmt);
    }
    return res_stream_done(fp, err);
}
