/* spaces/scenario.h: a scenario file (spaces/README.md): which model on
 * which system under which stack, the job, and the search space. */
#ifndef SPACE_SCENARIO_H
#define SPACE_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>

#include "common/conf.h"
#include "spaces/job.h"
#include "spaces/space.h"

struct scenario {               /* a plain value */
    char name[64];
    char model[256];            /* preset name or path */
    char system[256];
    char stack[256];            /* preset name or path (spaces/stack.h) */
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
