/* spaces/model.h: a dense decoder-only transformer as a model file describes
 * it (spaces/README.md), its loader and its parameter counts. */
#ifndef SPACE_MODEL_H
#define SPACE_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "common/conf.h"
#include "common/err.h"

enum model_norm { MODEL_NORM_LAYERNORM, MODEL_NORM_RMSNORM, MODEL_NORM_COUNT };
enum model_pos  { MODEL_POS_LEARNED, MODEL_POS_ROPE, MODEL_POS_ALIBI,
                  MODEL_POS_COUNT };

struct model {                  /* a plain value: nothing to free */
    char name[64];
    char description[160];
    int64_t layers, hidden, heads, kv_heads, ffn_hidden, vocab;
    int64_t position_table;     /* rows of a learned position table, else 0 */
    bool glu, tied_embeddings, bias, dropout;
    enum model_norm norm;
    enum model_pos position;
};

/* Limits that keep every count well inside 64-bit and double precision. */
#define MODEL_MAX_LAYERS  (1 << 14)
#define MODEL_MAX_HIDDEN  (1 << 17)
#define MODEL_MAX_VOCAB   (1 << 22)
#define MODEL_MAX_FFN     (1 << 20)

extern const struct conf_preset model_presets[];
extern const size_t model_presets_count;

/* Load a preset name or a file path, apply the --set assignments of section
 * "model" from 'sets' (n_sets of them; others are skipped) and validate.
 * Returns 0 or TPL_ECONFIG / TPL_EIO / TPL_EUSAGE with 'err' filled. */
int model_load(struct model *m, const char *name_or_path,
               const char *const *sets, int n_sets, struct tpl_err *err);
/* Validate an already parsed tree into m. */
int model_read(struct model *m, const struct conf *c, struct tpl_err *err);

const char *model_norm_name(enum model_norm n);
const char *model_pos_name(enum model_pos p);

/* ---- parameter counts (exact, from the shapes) ---- */
int64_t model_kv_dim(const struct model *m);          /* kv_heads * head dim */
int64_t model_layer_params(const struct model *m);    /* one transformer layer */
int64_t model_embedding_params(const struct model *m);/* token (+ position) table */
int64_t model_head_params(const struct model *m);     /* LM head (0 when tied) + final norm */
int64_t model_params(const struct model *m);          /* all of it */

#endif /* SPACE_MODEL_H */
