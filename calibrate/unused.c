/* calibrate/unused.c: the sample files a calibration does not fit, each with
 * the reason (calibrate.h struct cal_unused), so the report accounts for
 * every file of the folder. */
#include "calibrate/calibrate.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

/* What the calibration does with a file, by the part of its name after
 * "<GPU>_": fitted (why NULL) or the reason it is not. First match wins. */
static const struct { const char *part; const char *why; } kinds[] = {
    { "gelu_", NULL }, { "res_add_", NULL }, { "layernorm_", NULL },
    { "linear1_", NULL }, { "linear2_", NULL }, { "linear3_", NULL },
    { "linear4_", NULL }, { "flash_atten_", NULL },
    { "allreduce_fp16_", NULL }, { "allreduce_large_fp16_", NULL },
    { "allreduce_fp16.csv", "pools several configurations: the per-configuration files are fitted" },
    { "allreduce_large_fp16.csv", "pools several configurations: the per-configuration files are fitted" },
    { "RMSlayernorm_", NULL }, { "RoPE_", NULL }, { "softmax_", NULL },
    { "ScaledUpperTriangMaskedSoftmax_", NULL }, { "baddbmm_", NULL },
    { "bmm_", NULL }, { "fillmask_", NULL }, { "embedding_", NULL },
    { "parallel_cross_entropy", NULL }, { "linear_final_", NULL },
    { "firstStage_optimizer_", NULL }, { "middleStage_optimizer_", NULL },
    { "lastStage_optimizer_", NULL },
    { "optimizer_", "optimizer step of whole models (A100 only, other columns): the per-stage files are fitted" },
    { "allgather_large_fp16.csv", "pools several configurations: the per-configuration files are fitted" },
    { "allgather_large_fp16_", NULL },
    { "p2p_", NULL },
};

/* The reason a file is not fitted, by its name after "<GPU>_"; NULL when it
 * is fitted. */
static const char *why_not(const char *part)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strncmp(part, kinds[i].part, strlen(kinds[i].part)))
            return kinds[i].why;
    return "not a sample file the calibration knows";
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(((const struct cal_unused *)a)->file,
                  ((const struct cal_unused *)b)->file);
}

/* The files of SAMPLES_DIR/sub that no fit reads, appended to rep. */
static void scan(const char *dir, const char *sub, struct cal_report *rep)
{
    char path[600];
    size_t plen = strlen(rep->gpu);
    DIR *d;
    struct dirent *e;
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    if (!(d = opendir(path)))
        return;
    while ((e = readdir(d)) && rep->n_unused < CAL_MAX_UNUSED) {
        const char *why = "the authors' summary of their collective "
                          "regressors: not read";
        struct cal_unused *u = &rep->unused[rep->n_unused];
        if (strncmp(e->d_name, rep->gpu, plen) || !strstr(e->d_name, ".csv"))
            continue;
        if (e->d_name[plen] == '_')
            why = why_not(e->d_name + plen + 1);
        else if (!strcmp(sub, "operator"))
            continue;                   /* operator/<GPU>.csv is read */
        if (!why)
            continue;
        snprintf(u->file, sizeof u->file, "%s/%.80s", sub, e->d_name);
        u->why = why;
        rep->n_unused++;
    }
    closedir(d);
}

void cal_list_unused(const char *dir, struct cal_report *rep)
{
    rep->n_unused = 0;
    scan(dir, "operator", rep);
    scan(dir, "nccl", rep);
    qsort(rep->unused, (size_t)rep->n_unused, sizeof rep->unused[0], cmp_name);
}
