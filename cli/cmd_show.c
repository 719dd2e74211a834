/* cli/cmd_show.c: trainplan show model|system NAME|FILE: the input as
 * trainplan resolves it, as a file it reads back (a preset's own text with
 * its source comments; a config.json as the model file it maps to; with
 * --set, the changed tree), then derived figures as comments: a model's
 * parameter counts, FLOPs per token and bytes per parameter; a system's
 * rates after its efficiencies. A user's own file starts from
 * 'trainplan show system dgx-h100 > mine.cfg'. */
#include "cli/cmd.h"

#include <stdio.h>
#include <string.h>

#include "common/conf.h"
#include "predictor/flops.h"
#include "results/writer.h"

static const char usage[] =
"usage: trainplan show model NAME|FILE [--set model.K=V]... [--seq N]\n"
"       trainplan show system NAME|FILE [--set SECTION.K=V]...\n"
"\n"
"Print a model or system as trainplan resolves it, as a libconfig file that\n"
"--model / --system read back: a preset's text with its source comments, a\n"
"Hugging Face config.json as the model file it maps to, or with --set the\n"
"changed settings. Derived figures follow as comments: for a model the\n"
"parameter count (total, per layer, embedding, head), model FLOPs per token\n"
"at --seq N tokens (default 2048) and the bytes per parameter of the model\n"
"states by precision; for a system its rates after the efficiencies.\n"
"\n"
"Exit status: 0 ok, 2 usage, 3 bad input, 4 I/O.\n";

enum show_kind { SHOW_MODEL, SHOW_SYSTEM };

struct show_args {
    enum show_kind kind;
    const char *name;
    struct cmd_sets sets;
    int64_t seq;
    bool help;
};

static int parse(int argc, char **argv, struct show_args *a, struct tpl_err *err)
{
    int rc = 0, i = 1;
    for (; i < argc && rc == 0; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            a->help = true;
        else if ((!strcmp(argv[i], "--set") || !strcmp(argv[i], "--seq")) &&
                 i + 1 == argc)
            rc = tpl_errorf(err, TPL_EUSAGE, "option '%s' needs a value", argv[i]);
        else if (!strcmp(argv[i], "--set"))
            rc = cmd_sets_add(&a->sets, argv[++i], err);
        else if (!strcmp(argv[i], "--seq") && a->kind == SHOW_MODEL)
            rc = opt_int("--seq", argv[++i], 1, JOB_MAX_SEQ, &a->seq, err);
        else if (argv[i][0] == '-')
            rc = tpl_errorf(err, TPL_EUSAGE, "unknown option '%s'", argv[i]);
        else if (a->name)
            rc = tpl_errorf(err, TPL_EUSAGE, "unexpected argument '%s'", argv[i]);
        else
            a->name = argv[i];
    if (rc == 0 && !a->help && !a->name)
        rc = tpl_errorf(err, TPL_EUSAGE, "give a preset name or a file: "
                        "trainplan show %s NAME|FILE",
                        a->kind == SHOW_MODEL ? "model" : "system");
    return rc;
}

/* The text to print: a preset's or a config.json's own, when no --set
 * changed it (else NULL: the tree is written). */
static int load_text(const struct show_args *a, const struct conf_preset *ps,
                     size_t n, struct conf *c, const char **text,
                     struct tpl_err *err)
{
    static char hf[4096], json[1 << 20];
    char name[64];
    size_t len = strlen(a->name);
    const struct conf_preset *p = conf_preset_find(ps, n, a->name);
    FILE *fp;
    *text = p && !strchr(a->name, '/') ? p->text : NULL;
    if (a->kind != SHOW_MODEL || len < 5 || strcmp(a->name + len - 5, ".json"))
        return conf_load_named(c, a->name, ps, n, a->kind == SHOW_MODEL ?
                               "model" : "system", err);
    c->name = NULL;
    if (!(fp = fopen(a->name, "rb")))
        return tpl_errorf(err, TPL_EIO, "cannot read model file '%s'", a->name);
    json[fread(json, 1, sizeof json - 1, fp)] = '\0';
    fclose(fp);
    model_hf_name(a->name, name, sizeof name);
    if (model_hf_text(json, a->name, name, hf, sizeof hf, err))
        return TPL_ECONFIG;
    *text = hf;
    return conf_load_string(c, a->name, hf, err);
}

/* ---- derived figures ---- */

static void model_figures(const struct model *m, int64_t seq)
{
    struct job j;
    job_default(&j);
    j.seq = seq;
    j.gbs = 1;
    printf("\n# ---- derived (trainplan show) ----\n"
           "# parameters          %lld total: %lld per dense layer x %lld layers, "
           "embedding %lld, head %lld\n", (long long)model_params(m),
           (long long)model_layer_params(m), (long long)m->layers,
           (long long)model_embedding_params(m), (long long)model_head_params(m));
    if (model_is_moe(m))
        printf("# active parameters   %lld per token (top-%lld of %lld "
               "experts; spaces/params.c)\n", (long long)model_active_params(m),
               (long long)m->moe.topk, (long long)m->moe.experts);
    printf("# model FLOPs/token   %.6g at seq %lld (forward and backward, "
           "predictor/flops.c: Narayanan et al. SC21 Eq. 3)\n",
           pred_model_flops(m, &j) / (double)seq, (long long)seq);
    printf("# bytes/parameter     weights 2 (bf16, fp16; fp8: 1 + a 1-byte "
           "transposed copy), gradients 4 (fp32 main_grad), optimizer 12 (fp32 "
           "master, Adam m and v; / dp with ZeRO-1), as predictor/mem.c counts: "
           "%.1f GiB of model states in all\n",
           18.0 * (double)model_params(m) / RES_GIB);
}

static void system_figures(const struct hw_system *h)
{
    double ck = h->clock;       /* the power-limited clock (hw.h) */
    printf("\n# ---- derived (trainplan show): rates after the efficiencies ----\n"
           "# GEMM                %.1f TFLOP/s bf16 (eff_gemm %.3g", h->bf16_flops
           * h->eff_gemm * ck / 1e12, h->eff_gemm);
    if (ck != 1.0)
        printf(" x clock %.3g", ck);
    printf(")");
    if (h->fp8_flops > 0)
        printf(", %.1f TFLOP/s fp8", h->fp8_flops * h->eff_gemm *
               h->eff_gemm_fp8 * ck / 1e12);
    printf("\n# attention           %.1f TFLOP/s bf16 (eff_attn %.3g%s)\n"
           "# HBM                 %.2f TB/s (eff_hbm %.3g), %.1f GiB of which "
           "%.1f GiB reserved\n# NVLink              %.1f GB/s per GPU and "
           "direction (eff_nvlink %.3g)\n# network             %.1f GB/s = "
           "%.0f Gb/s per GPU and direction (eff_net %.3g)\n",
           h->bf16_flops * h->eff_attn * ck / 1e12, h->eff_attn,
           ck != 1.0 ? " x clock" : "",
           h->hbm_bytes_per_s * h->eff_hbm / 1e12, h->eff_hbm,
           h->hbm_bytes / RES_GIB, h->reserve_bytes / RES_GIB,
           h->nvlink_bytes_per_s * h->eff_nvlink / 1e9, h->eff_nvlink,
           h->nic_bytes_per_s * h->eff_net / 1e9,
           h->nic_bytes_per_s * h->eff_net * 8 / 1e9, h->eff_net);
    if (h->host_bytes_per_s <= 0) {
        printf("# host link           none given: no optimizer offload\n");
        return;
    }
    printf("# host link           %.1f GB/s per GPU and direction (eff_host "
           "%.3g)", h->host_bytes_per_s * h->eff_host / 1e9, h->eff_host);
    if (h->host_mem_bytes_per_s > 0)    /* predictor/compose.c */
        printf("; %.1f GB/s each way when all %lld GPUs of a node copy "
               "(host memory %.1f GB/s)", hw_host_copy_bytes_per_s(h,
               h->host_bytes_per_s * h->eff_host, h->gpus_per_node) / 1e9,
               (long long)h->gpus_per_node, h->host_mem_bytes_per_s / 1e9);
    putchar('\n');
}

/* Apply the --set assignments of the kind's sections. */
static int apply_sets(const struct show_args *a, struct conf *c,
                      struct tpl_err *err)
{
    int rc = 0;
    for (int i = 0; rc == 0 && i < a->sets.n; i++) {
        char section[64];
        if (conf_set_section(a->sets.v[i], section, sizeof section, NULL))
            continue;
        if (a->kind == SHOW_MODEL ? !strcmp(section, "model")
                                  : hw_is_section(section))
            rc = conf_apply_set(c, a->sets.v[i], err);
        else
            rc = tpl_errorf(err, TPL_EUSAGE, "--set %s: not a %s setting",
                            a->sets.v[i], a->kind == SHOW_MODEL ? "model" :
                            "system");
    }
    return rc;
}

static int show(const struct show_args *a, struct tpl_err *err)
{
    struct conf c;
    struct model m;
    struct hw_system h;
    const char *text;
    bool model = a->kind == SHOW_MODEL;
    int rc = model ? load_text(a, model_presets, model_presets_count, &c,
                               &text, err)
                   : load_text(a, hw_presets, hw_presets_count, &c, &text, err);
    if (rc == 0)
        rc = apply_sets(a, &c, err);
    if (rc == 0)
        rc = model ? model_read(&m, &c, err) : hw_system_read(&h, &c, err);
    if (rc == 0 && text && a->sets.n == 0)
        fputs(text, stdout);
    else if (rc == 0) {
        printf("# %s as trainplan resolves it%s\n", a->name,
               a->sets.n ? ", with --set" : "");
        config_write(&c.cfg, stdout);
    }
    if (rc == 0 && model)
        model_figures(&m, a->seq);
    else if (rc == 0)
        system_figures(&h);
    conf_release(&c);
    return rc;
}

int cmd_show(int argc, char **argv, struct tpl_err *err)
{
    static struct show_args a;
    int rc;
    memset(&a, 0, sizeof a);
    a.seq = 2048;
    if (argc < 2 || (strcmp(argv[1], "model") && strcmp(argv[1], "system"))) {
        if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
            cmd_usage_print(usage);
            return 0;
        }
        return tpl_errorf(err, TPL_EUSAGE, "show what? 'trainplan show model "
                          "NAME|FILE' or 'trainplan show system NAME|FILE'");
    }
    a.kind = strcmp(argv[1], "model") ? SHOW_SYSTEM : SHOW_MODEL;
    if ((rc = parse(argc - 1, argv + 1, &a, err)))
        return rc;
    if (a.help) {
        cmd_usage_print(usage);
        return 0;
    }
    return show(&a, err);
}
