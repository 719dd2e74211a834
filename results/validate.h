/* results/validate.h: the writers of a fidelity report (fidelity/fidelity.h:
 * published runs predicted and compared with what was measured): a table
 * of rows with a summary, CSV rows, or JSON rows with the summary. */
#ifndef RES_VALIDATE_H
#define RES_VALIDATE_H

#include <stdio.h>

#include "fidelity/fidelity.h"
#include "results/res.h"

int res_validate_write(FILE *fp, enum res_format fmt, const struct fid_report *v,
                       struct tpl_err *err);

#endif /* RES_VALIDATE_H */
