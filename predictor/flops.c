/* predictor/flops.c: FLOPs per iteration, the numerators of MFU and HFU
 * (flops.h). Narayanan et al. SC21 Eq. 3 counts each layer's GEMMs and the
 * attention scores densely, forward plus a backward twice as costly. */
#include "predictor/flops.h"

/* Forward FLOPs per token of one layer: 2 x (weights touched) for the
 * GEMMs, plus QK^T and AV at 2 s h each, counted dense as Eq. 3 does. */
static double layer_fwd_flops_per_token(const struct model *m, double s)
{
    double h = (double)m->hidden, kv = (double)model_kv_dim(m);
    double f = (double)m->ffn_hidden;
    return 2.0 * h * (h + 2.0 * kv) + 2.0 * h * h +
           2.0 * h * f * (m->glu ? 3.0 : 2.0) + 4.0 * s * h;
}

double pred_model_flops(const struct model *m, const struct job *j)
{
    double tokens = (double)j->gbs * (double)j->seq, s = (double)j->seq;
    double logits = 2.0 * (double)m->hidden * (double)m->vocab;
    /* forward + backward = 3 x forward (backward GEMMs are twice forward) */
    return 3.0 * tokens * ((double)m->layers *
                           layer_fwd_flops_per_token(m, s) + logits);
}

double pred_hw_flops(const struct model *m, const struct job *j,
                     enum plan_recompute recompute)
{
    double tokens = (double)j->gbs * (double)j->seq, s = (double)j->seq;
    double extra = 0;
    if (recompute == PLAN_RECOMPUTE_FULL)       /* one more forward of every layer */
        extra = (double)m->layers * layer_fwd_flops_per_token(m, s);
    else if (recompute == PLAN_RECOMPUTE_SELECTIVE) /* the attention core's forward */
        extra = (double)m->layers * 4.0 * s * (double)m->hidden;
    return pred_model_flops(m, j) + tokens * extra;
}
