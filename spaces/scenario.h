/* spaces/scenario.h: a scenario file (spaces/README.md): which model on
 * which system, the job, and the search space. */
#ifndef SPACE_SCENARIO_H
#define SPACE_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>

#include "common/conf.h"
#include "spaces/plan.h"

#define SPACE_MAX_VALUES 64

struct space_list {             /* allowed values of one dimension */
    int n;                      /* 0: "auto", every value that can be valid */
    int32_t v[SPACE_MAX_VALUES];
};

enum space_sp { SPACE_SP_ANY, SPACE_SP_YES, SPACE_SP_NO, SPACE_SP_COUNT };

struct space {
    char gpus[256];             /* "64..1024", "8..16384:8", "64,128" */
    struct space_list tp, pp, mbs, vpp, zero;
    struct space_list recompute;            /* enum plan_recompute values */
    enum space_sp sp;
    bool tp_cross_node;
};

struct scenario {               /* a plain value */
    char name[64];
    char model[256];            /* preset name or path */
    char system[256];
    struct job job;
    struct space space;
};

extern const struct conf_preset scenario_presets[];
extern const size_t scenario_presets_count;
extern const char *const scenario_sections[];   /* job, space, scenario */

/* Load a preset ("default") or a path, apply --set assignments of sections
 * job/space/scenario, validate. A model or system path given relative in a
 * scenario file is taken relative to that file's directory. */
int scenario_load(struct scenario *s, const char *name_or_path,
                  const char *const *sets, int n_sets, struct tpl_err *err);
int scenario_read(struct scenario *s, const struct conf *c, struct tpl_err *err);
bool scenario_is_section(const char *section);

#endif /* SPACE_SCENARIO_H */
