/* common/outfile.h: output files that are whole or absent. Writing goes to a
 * temporary name in the target's directory; only a successful commit renames
 * it over the target, so a failed or interrupted run never leaves a
 * half-written file and an existing file is replaced only on success. */
#ifndef TPL_OUTFILE_H
#define TPL_OUTFILE_H

#include <stdio.h>

#include "common/err.h"

struct tpl_outfile {            /* caller-owned */
    FILE *fp;                   /* write here; stdout when path is NULL or "-" */
    char *path;                 /* target, NULL for stdout */
    char *tmp;                  /* temporary name */
};

/* Open 'path' (NULL or "-" for stdout). TPL_EIO with a message if the
 * directory cannot take a new file. */
int tpl_outfile_open(struct tpl_outfile *o, const char *path, struct tpl_err *err);
/* Flush, close and rename into place; TPL_EIO if any write failed. Always
 * releases o. Standard output is left open and unchecked: the program checks
 * it once, when the command is done (cli/main.c). */
int tpl_outfile_commit(struct tpl_outfile *o, struct tpl_err *err);
/* Drop the temporary file; the target stays as it was. NULL-safe. */
void tpl_outfile_abort(struct tpl_outfile *o);

#endif /* TPL_OUTFILE_H */
