/* results/predict.c: the report of one plan (trainplan predict) as a table,
 * one CSV row under a header, or JSON. */
#include "results/report.h"

#include <stdio.h>

/* ---- table ---- */

static void table_time(FILE *fp, const struct pred_ctx *c, const struct plan *p,
                       const struct pred_result *r)
{
    double gpus = (double)plan_gpus(p);
    fprintf(fp, "\ntime\n");
    char why[256];
    fprintf(fp, "  %-22s %12.3f s (%.3f-%.3f)\n", "iteration", r->iteration_s,
            r->iteration_s_low, r->iteration_s_high);
    if (pred_band_outside(&c->band, gpus, c->params, c->hw.gpu_arch, why,
                          sizeof why))
        fprintf(fp, "  %-22s %s\n", "", why);
    fprintf(fp, "  %-22s %12.0f  (%.0f per GPU)\n", "tokens/s", r->tokens_per_s,
            r->tokens_per_s / gpus);
    fprintf(fp, "  %-22s %12.1f %%  (HFU %.1f %%, %.0f model TFLOP/s per GPU, "
            "attention causal)\n",
            "MFU", 100 * r->mfu, 100 * r->hfu,
            r->mfu * c->peak_flops / 1e12);
    fprintf(fp, "\n%-24s %12s %8s\n", "breakdown", "s", "%");
    for (int i = 0; i < PRED_PART_COUNT; i++)
        fprintf(fp, "  %-22s %12.3f %8.1f\n", pred_part_name((enum pred_part)i),
                r->part_s[i], 100 * r->part_s[i] / r->iteration_s);
    fprintf(fp, "  %-22s %12.3f %8.1f\n", "total", r->iteration_s, 100.0);
}

static void table_memory(FILE *fp, const struct plan *p,
                         const struct pred_result *r)
{
    const struct pred_mem *m = &r->mem;
    fprintf(fp, "\nmemory per GPU (worst stage: pipeline rank %d; model error "
            "+-%.1f %%, %s)    GiB\n", m->worst_stage, PRED_MEM_ERROR_PCT,
            PRED_MEM_ERROR_RUNS);
    fprintf(fp, "  %-22s %12.2f\n", "weights", m->weights_bytes / RES_GIB);
    fprintf(fp, "  %-22s %12.2f\n", "gradients", m->grads_bytes / RES_GIB);
    fprintf(fp, "  %-22s %12.2f%s\n", "optimizer", m->optimizer_bytes / RES_GIB,
            p->offload ? "  (offloaded: in host memory between steps; the "
            "step's restore window beyond the freed activations)" : "");
    fprintf(fp, "  %-22s %12.2f\n", "activations", m->activations_bytes / RES_GIB);
    fprintf(fp, "  %-22s %12.2f\n", "embedding/logits",
            m->embed_logits_bytes / RES_GIB);
    fprintf(fp, "  %-22s %12.2f\n", "total", m->total_bytes / RES_GIB);
    fprintf(fp, "  %-22s %12.2f  (HBM %.2f less %.2f reserve)\n", "usable",
            m->usable_bytes / RES_GIB,
            (m->usable_bytes + m->reserve_bytes) / RES_GIB,
            m->reserve_bytes / RES_GIB);
    if (m->headroom_bytes > 0)
        fprintf(fp, "  %-22s %12.2f  (--headroom)\n", "headroom",
                m->headroom_bytes / RES_GIB);
    fprintf(fp, "  %-22s %12.2f\n", "margin", m->margin_bytes / RES_GIB);
}

/* The layer's operators; a dense model's table leaves the routed
 * experts' rows out (JSON keeps every key). */
static void table_ops(FILE *fp, const struct pred_ctx *c,
                      const struct pred_layer *l)
{
    bool moe = model_is_moe(&c->model);
    fprintf(fp, "\n%-24s %12s %12s\n", moe ? "per MoE layer, one micro-batch"
            : "per layer, one micro-batch", "fwd ms", "bwd ms");
    for (int i = 0; i < PRED_OP_COUNT; i++)
        if (moe || (pred_ops[i].launch != PRED_LAUNCH_MOE &&
                    pred_ops[i].launch != PRED_LAUNCH_EXPERTS))
            fprintf(fp, "  %-22s %12.4f %12.4f\n",
                    pred_op_name((enum pred_op)i), 1e3 * l->fwd_s[i],
                    1e3 * l->bwd_s[i]);
    fprintf(fp, "  %-22s %12s %12.4f\n", "recompute", "", 1e3 * l->recompute_s);
    fprintf(fp, "  %-22s %12.4f %12.4f\n", "total", 1e3 * l->fwd_total_s,
            1e3 * (l->bwd_total_s + l->recompute_s));
}

static void table_write(FILE *fp, const struct pred_ctx *c, const struct plan *p,
                        const struct pred_result *r)
{
    char key[96], reason[256], mods[128];
    plan_key(p, key, sizeof key);
    res_plan_reason(c, p, r, reason, sizeof reason);
    fprintf(fp, "%s on %s (stack %s), %lld GPUs\n", c->model.name, c->hw.name,
            c->stack, (long long)plan_gpus(p));
    fprintf(fp, "  %-22s %s\n", "plan", key);
    fprintf(fp, "  %-22s seq %lld, gbs %lld, %s, %s attention, %lld "
            "micro-batches\n", "job", (long long)c->job.seq,
            (long long)c->job.gbs, job_precision_name(c->job.precision),
            job_attention_name(c->job.attention), (long long)r->microbatches);
    if (p->recompute == PLAN_RECOMPUTE_SELECTIVE &&
        c->job.selective == JOB_SELECTIVE_ATTENTION) {
        job_rc_modules_format(c->job.recompute_modules, mods, sizeof mods);
        fprintf(fp, "  %-22s %s\n", "recompute modules", mods);
    }
    fprintf(fp, "  %-22s %lld parameters, %.4g FLOPs per token\n", "model",
            (long long)model_params(&c->model), res_flops_per_token(c, r));
    if (reason[0])
        fprintf(fp, "  %-22s no: %s\n", "feasible", reason);
    else
        fprintf(fp, "  %-22s yes (%.2f GiB to spare)\n", "feasible",
                r->mem.margin_bytes / RES_GIB);
    table_time(fp, c, p, r);
    table_memory(fp, p, r);
    table_ops(fp, c, &r->layer);
    res_uncalibrated_note(fp, &c->hw);
}

/* ---- the writers of the report table (report.c) ---- */

int res_predict_table(FILE *fp, const struct res_report *rep, struct tpl_err *err)
{
    (void)err;
    table_write(fp, rep->ctx, rep->u.plan.plan, rep->u.plan.r);
    return 0;
}

int res_predict_csv(FILE *fp, const struct res_report *rep, struct tpl_err *err)
{
    (void)err;
    res_csv_header(fp);
    res_csv_row(fp, rep->ctx, rep->u.plan.plan, rep->u.plan.r);
    return 0;
}

int res_predict_json(FILE *fp, const struct res_report *rep, struct tpl_err *err)
{
    return res_json_emit(fp, res_plan_json(rep->ctx, rep->u.plan.plan,
                                           rep->u.plan.r), err);
}
