/* predictor/layout.c: the plan's pipeline layout as the predictor reads it
 * (the stack's split rule, spaces/stages.c, with a fallback for published
 * runs the rule refuses), and the share of the layers that Megatron's
 * block recompute rebuilds. Apart from mem.c so that memory, composition
 * and sharding all read it without calling one another in a circle. */
#include "predictor/pred.h"

void pred_layout(const struct pred_ctx *c, const struct plan *p,
                 struct stage_layout *out)
{
    int32_t n;
    if (plan_stage_layout(p, &c->model, &c->limits, out) == 0)
        return;
    n = (int32_t)((c->model.layers + p->pp - 1) / (p->pp > 0 ? p->pp : 1));
    *out = (struct stage_layout){ .rule = STAGE_SPLIT_EVEN,
        .layers = (int32_t)c->model.layers, .pp = p->pp, .vpp = p->vpp,
        .first = n, .last = n, .mid = n };
}

/* The first rc_layers of every model chunk (transformer_block.py
 * _checkpointed_forward, recompute_method 'block'), summed over the ranks,
 * over the model's layers. */
double pred_rc_share(const struct pred_ctx *c, const struct plan *p)
{
    struct stage_layout lay;
    if (p->recompute != PLAN_RECOMPUTE_FULL || p->rc_layers <= 0)
        return 1.0;
    pred_layout(c, p, &lay);
    return (double)stage_first_layers(&lay, p->rc_layers) / (double)lay.layers;
}
