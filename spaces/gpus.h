/* spaces/gpus.h: the GPU counts of a search: "64,128,256" (a list),
 * "64..4096" (doubling from 64 up to 4096) or "8..16384:8" (from 8 to 16384
 * in steps of 8); forms may be joined with commas. Counts are sorted and
 * unique, each in [1, SPACE_MAX_GPUS]. */
#ifndef SPACE_GPUS_H
#define SPACE_GPUS_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

#define SPACE_MAX_GPUS       (1 << 20)
#define SPACE_MAX_GPU_COUNTS 65536

struct gpu_list {               /* caller-owned: gpu_list_release */
    int64_t *v;
    size_t n;
};

/* Parse 'spec' into out. On failure TPL_EUSAGE with "LABEL 'SPEC': what is
 * wrong", LABEL being "--gpus" on the command line or "FILE:LINE: 'gpus'"
 * in a file (whose caller reports it as TPL_ECONFIG). */
int gpu_list_parse(struct gpu_list *out, const char *spec, const char *label,
                   struct tpl_err *err);
void gpu_list_release(struct gpu_list *l);

struct conf_group;
/* Check the GPU counts a file gives in its group's 'gpus' field now, so a
 * bad one is reported with its place ("FILE:LINE: 'gpus' 'SPEC': ...");
 * TPL_ECONFIG when it does not parse. */
int gpu_list_check_conf(const struct conf_group *g, const char *spec,
                        struct tpl_err *err);

#endif /* SPACE_GPUS_H */
