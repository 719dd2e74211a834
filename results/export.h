/* results/export.h: a plan as launch settings for a training framework:
 * Megatron-LM command-line flags, a NeMo / Megatron-Bridge YAML override
 * block, or a torchtitan TOML snippet. Option names are the frameworks'
 * documented ones (Megatron-LM megatron/training/arguments.py, Megatron-
 * Bridge ConfigContainer fields, torchtitan JobConfig sections). */
#ifndef RES_EXPORT_H
#define RES_EXPORT_H

#include <stdio.h>

#include "predictor/pred.h"

enum res_framework { RES_FW_MEGATRON, RES_FW_NEMO, RES_FW_TORCHTITAN,
                     RES_FW_COUNT };

int res_framework_parse(const char *s, enum res_framework *out);   /* 0 or -1 */
const char *res_framework_name(enum res_framework f);
/* The names joined as res_format_list does ("megatron|nemo|torchtitan"). */
const char *res_framework_list(const char *sep, const char *last, char *buf,
                               size_t size);

/* Can framework fw run plan p of c as r predicted it? 0, or -1 with one line
 * saying why in buf: the plan breaks a rule of the stack the prediction
 * used (the framework's), or the model needs what the framework lacks. */
int res_export_runnable(enum res_framework fw, const struct pred_ctx *c,
                        const struct plan *p, const struct pred_result *r,
                        char *buf, size_t n);

/* The model's part of that: -1 with the reason when no plan of it can run. */
int res_export_model_runnable(enum res_framework fw, const struct pred_ctx *c,
                              char *buf, size_t n);

/* Write the settings for plan p of context c (with its prediction r, quoted
 * in a comment). TPL_EIO when the stream fails. */
int res_export_write(FILE *fp, enum res_framework fw, const struct pred_ctx *c,
                     const struct plan *p, const struct pred_result *r,
                     struct tpl_err *err);

#endif /* RES_EXPORT_H */
