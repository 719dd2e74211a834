/* results/export_moe.h: the model's mixture of experts and attention
 * variants in a launch (results/export.c): Megatron-LM flags, Megatron-
 * Bridge model fields and torchtitan's model flavor for routed and shared
 * experts, multi-head latent attention, sliding windows, head widths and
 * multi-token prediction; and what each framework cannot run of them.
 * Internal to results/. A dense model with plain heads writes nothing here,
 * so its launch settings are those of export.c alone. */
#ifndef RES_EXPORT_MOE_H
#define RES_EXPORT_MOE_H

#include <stdbool.h>
#include <stdio.h>

#include "results/export.h"

/* Comment lines after the banner: what the launch leaves at the
 * framework's default because the model file does not say it. */
void res_moe_note(FILE *fp, enum res_framework fw, const struct pred_ctx *c);

/* Megatron-LM flags (each line "--flag value \"). */
void res_moe_megatron(FILE *fp, const struct pred_ctx *c);

/* Megatron-Bridge model fields (each line "  key: value"). */
void res_moe_nemo(FILE *fp, const struct pred_ctx *c);

/* torchtitan's [model] name and flavor lines for a mixture of experts
 * (nothing for a dense model): the flavor of torchtitan's registry with
 * the model's shapes, or nothing when none has them (refused below). */
void res_moe_torchtitan_flavor(FILE *fp, const struct pred_ctx *c);

/* Why framework fw cannot run model c->model under c's stack at all, or
 * NULL (the reason in buf). */
const char *res_moe_model_refusal(enum res_framework fw,
                                  const struct pred_ctx *c, char *buf,
                                  size_t n);

/* Why fw cannot run plan p of that model, or NULL (the reason in buf). */
const char *res_moe_plan_refusal(enum res_framework fw,
                                 const struct pred_ctx *c,
                                 const struct plan *p, char *buf, size_t n);

#endif /* RES_EXPORT_MOE_H */
