/* tests/unit/calfit.h: the calibration of a published sample set
 * (../shared/data/kernel-samples/<gpu>, or $TRAINPLAN_SHARED/data/...),
 * shared by the tests that hold the per-operator figures to the README's
 * table (test_opfits.c, test_optfit.c, test_gemmfit.c). */
#ifndef TESTS_UNIT_CALFIT_H
#define TESTS_UNIT_CALFIT_H

#include "helpers.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calibrate/calibrate.h"

/* A scratch samples folder: operator/ (and nccl/ when asked) in DIR and
 * the empty operator/SYNTH.csv summary, which names the GPU. */
static inline void synth_folder(const char *dir, bool nccl)
{
    char path[600];
    snprintf(path, sizeof path, "%s/operator", dir);
    cr_assert_eq(mkdir(path, 0755), 0);
    if (nccl) {
        snprintf(path, sizeof path, "%s/nccl", dir);
        cr_assert_eq(mkdir(path, 0755), 0);
    }
    snprintf(path, sizeof path, "%s/operator/SYNTH.csv", dir);
    fclose(fopen(path, "w"));
}

/* Removes a scratch folder made by mkdtemp and its contents. */
static inline void scratch_remove(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

/* The report of the samples of 'gpu' fitted to its preset (seed 42), kept
 * until another gpu is asked for; the preset into *base. Skips the test
 * when the samples are absent. */
static inline const struct cal_report *published_fit(const char *gpu,
                                                     struct hw_system *base)
{
    static char last[64];
    static struct cal_report rep;
    const char *shared = getenv("TRAINPLAN_SHARED");
    char samples[4096];
    struct hw_system fit;
    struct tpl_err err = { 0 };
    *base = load_system(gpu);
    snprintf(samples, sizeof samples, "%s/data/kernel-samples/%s",
             shared && *shared ? shared : "../shared", gpu);
    if (access(samples, F_OK) != 0)
        skip_without_shared("%s absent", samples);
    if (strcmp(last, gpu)) {
        cr_assert_eq(cal_run(samples, base, 42, &fit, &rep, &err), 0, "%s", err.msg);
        snprintf(last, sizeof last, "%s", gpu);
    }
    return &rep;
}

/* The report's row of operator 'op' in direction 'dir' (NULL: any), or a
 * failed test. */
static inline const struct cal_row *report_row(const struct cal_report *rep,
                                               const char *op, const char *dir)
{
    for (int i = 0; i < rep->n_rows; i++)
        if (!strcmp(rep->rows[i].op, op) && (!dir || !strcmp(rep->rows[i].dir, dir)))
            return &rep->rows[i];
    cr_assert_fail("no row %s %s", op, dir ? dir : "");
    return NULL;
}

#endif
