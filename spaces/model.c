/* spaces/model.c: the model file loader (its optional fields in
 * spaces/arch.c); the parameter counts are in spaces/params.c. */
#include "spaces/model.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

static const char *const norm_names[MODEL_NORM_COUNT] = {
    [MODEL_NORM_LAYERNORM] = "layernorm", [MODEL_NORM_RMSNORM] = "rmsnorm",
};
static const char *const pos_names[MODEL_POS_COUNT] = {
    [MODEL_POS_LEARNED] = "learned", [MODEL_POS_ROPE] = "rope",
    [MODEL_POS_ALIBI] = "alibi",
};
static_assert(MODEL_NORM_COUNT == 2 && MODEL_POS_COUNT == 3,
              "update norm_names and pos_names");

const char *model_norm_name(enum model_norm n) { return norm_names[n]; }
const char *model_pos_name(enum model_pos p) { return pos_names[p]; }

#define MODEL_REQUIRED                                                        \
    "name", "description", "layers", "hidden", "heads", "kv_heads",           \
    "ffn_hidden", "vocab", "glu", "tied_embeddings", "norm", "position",      \
    "position_table", "bias", "dropout"
static const char *const required_fields[] = { MODEL_REQUIRED, NULL };
static const char *const model_fields[] = {
    MODEL_REQUIRED,
    /* optional (spaces/arch.c) */
    "head_dim", "sliding_window", "sliding_every", "mtp_layers", "experts",
    "moe_topk", "moe_ffn_hidden", "moe_shared_ffn_hidden", "moe_dense_first",
    "moe_layer_freq", "moe_router", "moe_balance", "moe_capacity_factor",
    "moe_groups", "moe_group_topk", "q_lora_rank", "kv_lora_rank",
    "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", "rope_base",
    "qkv_bias", "qk_norm", NULL,
};
static const char *const root_groups[] = { "model", NULL };

static int read_sizes(struct model *m, const struct conf_group *g,
                      struct tpl_err *err)
{
    if (conf_int(g, "layers", 1, MODEL_MAX_LAYERS, &m->layers, err) ||
        conf_int(g, "hidden", 1, MODEL_MAX_HIDDEN, &m->hidden, err) ||
        conf_int(g, "heads", 1, MODEL_MAX_HIDDEN, &m->heads, err) ||
        conf_int(g, "kv_heads", 1, MODEL_MAX_HIDDEN, &m->kv_heads, err) ||
        conf_int(g, "ffn_hidden", 1, MODEL_MAX_FFN, &m->ffn_hidden, err) ||
        conf_int(g, "vocab", 1, MODEL_MAX_VOCAB, &m->vocab, err) ||
        conf_int(g, "position_table", 0, 1 << 20, &m->position_table, err))
        return TPL_ECONFIG;
    return 0;
}

static int read_kinds(struct model *m, const struct conf_group *g,
                      struct tpl_err *err)
{
    int norm, pos;
    if (conf_str(g, "name", m->name, sizeof m->name, err) ||
        conf_str(g, "description", m->description, sizeof m->description, err) ||
        conf_bool(g, "glu", &m->glu, err) ||
        conf_bool(g, "tied_embeddings", &m->tied_embeddings, err) ||
        conf_bool(g, "bias", &m->bias, err) ||
        conf_bool(g, "dropout", &m->dropout, err) ||
        conf_enum(g, "norm", norm_names, MODEL_NORM_COUNT, &norm, err) ||
        conf_enum(g, "position", pos_names, MODEL_POS_COUNT, &pos, err))
        return TPL_ECONFIG;
    m->norm = (enum model_norm)norm;
    m->position = (enum model_pos)pos;
    return 0;
}

/* Optional rope_base: only with position = "rope", MODEL_ROPE_BASE_DEFAULT
 * when absent there. */
static int read_rope(struct model *m, const struct conf_group *g,
                     struct tpl_err *err)
{
    char where[200];
    m->rope_base = m->position == MODEL_POS_ROPE ? MODEL_ROPE_BASE_DEFAULT : 0;
    if (!conf_has(g, "rope_base"))
        return 0;
    if (m->position == MODEL_POS_ROPE)
        return conf_num(g, "rope_base", 1, false, 1e12, &m->rope_base, err);
    conf_where(g->c, config_setting_get_member(g->s, "rope_base"), where,
               sizeof where);
    return tpl_errorf(err, TPL_ECONFIG, "%s: 'rope_base' is only for "
                      "position = \"rope\"", where);
}

/* Consistency between fields; each message names the field at fault. */
static int check_shape(const struct model *m, const struct conf_group *g,
                       struct tpl_err *err)
{
    char where[200];
    const char *key = NULL, *must = NULL;
    if (m->heads > m->hidden ||
        (m->head_dim == 0 && m->mla.kv_lora_rank == 0 && m->hidden % m->heads))
        key = "heads", must = "a divisor of 'hidden'";
    else if (m->kv_heads > m->heads || m->heads % m->kv_heads)
        key = "kv_heads", must = "a divisor of 'heads'";
    else if (m->position == MODEL_POS_LEARNED && m->position_table == 0)
        key = "position_table", must = "> 0 with position = \"learned\"";
    else if (m->position != MODEL_POS_LEARNED && m->position_table != 0)
        key = "position_table", must = "0 unless position = \"learned\"";
    if (!key)
        return 0;
    conf_where(g->c, config_setting_get_member(g->s, key), where, sizeof where);
    return tpl_errorf(err, TPL_ECONFIG, "%s: '%s' must be %s", where, key, must);
}

int model_read(struct model *m, const struct conf *c, struct tpl_err *err)
{
    struct conf_group g;
    memset(m, 0, sizeof *m);
    if (conf_check_known(c, config_root_setting(&c->cfg), "a model file",
                         root_groups, err) ||
        conf_group(c, "model", &g, err) ||
        conf_check_group_known(&g, model_fields, err) ||
        conf_require(&g, required_fields, err) ||
        read_kinds(m, &g, err) || read_sizes(m, &g, err) ||
        model_read_arch(m, &g, err) || check_shape(m, &g, err) ||
        read_rope(m, &g, err))
        return TPL_ECONFIG;
    return 0;
}

static char hf_text[4096];              /* the last config.json's model file */

/* A check of model_read on a config.json's model file names the line of
 * that text ("PATH:7: 'heads' must be ..."): name the JSON field instead,
 * which the line's comment gives ("PATH: ... (config.json:
 * num_attention_heads)"). */
static void hf_explain(const char *path, struct tpl_err *err)
{
    char msg[sizeof err->msg];
    size_t n = strlen(path);
    const char *at = err->msg, *line = hf_text, *hash;
    int k = 0, skip = 0;
    if (strncmp(at, path, n) || at[n] != ':' ||
        sscanf(at + n + 1, "%d:%n", &k, &skip) != 1 || skip == 0 || k < 1)
        return;
    for (int i = 1; i < k && line; i++)
        line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL;
    hash = line ? strchr(line, '#') : NULL;
    if (!hash || (strchr(line, '\n') && hash > strchr(line, '\n')))
        return;
    snprintf(msg, sizeof msg, "%s:%s (config.json: %.*s)", path,
             at + n + 1 + skip, (int)strcspn(hash + 2, "\n"), hash + 2);
    memcpy(err->msg, msg, sizeof msg);
}

/* A Hugging Face config.json, as the model file model_hf_text writes. */
static int load_hf(struct conf *c, const char *path, struct tpl_err *err)
{
    static char json[1 << 20];                  /* one model at a time */
    char *text = hf_text;
    char name[64];
    FILE *fp = fopen(path, "rb");
    size_t len;
    int bad;
    c->name = NULL;                             /* conf_release: nothing */
    len = fp ? fread(json, 1, sizeof json - 1, fp) : 0;
    bad = !fp || ferror(fp);
    if (fp)
        fclose(fp);
    if (bad)
        return tpl_errorf(err, TPL_EIO, "cannot read model file '%s'", path);
    if (len == sizeof json - 1)
        return tpl_errorf(err, TPL_ECONFIG, "%s: larger than 1 MiB, not a "
                          "config.json", path);
    json[len] = '\0';
    model_hf_name(path, name, sizeof name);
    if (model_hf_text(json, path, name, text, sizeof hf_text, err))
        return TPL_ECONFIG;
    return conf_load_string(c, path, text, err);
}

static bool is_json(const char *s)
{
    size_t n = strlen(s);
    return n > 5 && !strcmp(s + n - 5, ".json");
}

/* A model that --set changed is named so in every output and export
 * header ("llama3-70b+set"): compared with the same input without the
 * assignments, so setting a field to its own value changes nothing. */
static void label_modified(struct model *m, const char *name_or_path,
                           struct tpl_err *err)
{
    struct model base;
    char name[sizeof m->name];
    if (model_load(&base, name_or_path, NULL, 0, err) ||
        !memcmp(&base, m, sizeof base))
        return;
    snprintf(name, sizeof name, "%.59s+set", m->name);
    memcpy(m->name, name, sizeof name);
}

int model_load(struct model *m, const char *name_or_path,
               const char *const *sets, int n_sets, struct tpl_err *err)
{
    bool changed = false;
    struct conf c;
    int rc = is_json(name_or_path) ? load_hf(&c, name_or_path, err)
           : conf_load_named(&c, name_or_path, model_presets,
                             model_presets_count, "model", err);
    for (int i = 0; rc == 0 && i < n_sets; i++)
        if (!strncmp(sets[i], "model.", 6)) {
            rc = conf_apply_set(&c, sets[i], err);
            changed = true;
        }
    if (rc == 0 && (rc = model_read(m, &c, err)) && is_json(name_or_path))
        hf_explain(name_or_path, err);
    conf_release(&c);
    if (rc == 0 && changed)
        label_modified(m, name_or_path, err);
    return rc;
}
