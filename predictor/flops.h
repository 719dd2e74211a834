/* predictor/flops.h: FLOPs per iteration of a whole job, for MFU and HFU. */
#ifndef PRED_FLOPS_H
#define PRED_FLOPS_H

#include "spaces/model.h"
#include "spaces/plan.h"

/* Model FLOPs per iteration: Narayanan et al. SC21 Eq. 3 without the
 * recompute pass (72 B s l h^2 (1 + s/6h + V/12lh) for GPT), generalised to
 * GQA and GLU. */
double pred_model_flops(const struct model *m, const struct job *j);
/* Hardware FLOPs: model FLOPs plus what recompute runs again. */
double pred_hw_flops(const struct model *m, const struct job *j,
                     enum plan_recompute recompute);

#endif /* PRED_FLOPS_H */
