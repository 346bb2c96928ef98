/**
 * @file outfile.h
 * @brief Files written whole or not at all: the data go to a temporary file beside the
 *        destination (`PATH.tmp.XXXXXX`), which is renamed over it only when the whole run has
 *        succeeded, and removed on failure and on SIGINT, SIGTERM or SIGHUP.
 *
 * A SIGKILL can leave a temporary file behind; its name is unique, so it never breaks a later run
 * (and the destination still holds the old file or the complete new one).
 */
#ifndef HIST_OUTFILE_H
#define HIST_OUTFILE_H

#include <stdio.h>

#include "hist.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief One file being written. */
typedef struct hist_outfile {
    const char *path; /**< the destination */
    char *tmp;        /**< the temporary file beside it (malloc'd), or NULL */
    FILE *f;          /**< open for writing between hist_outfile_open() and hist_outfile_close() */
} hist_outfile;

/**
 * @brief Check, before any work, that @p path may be written: it does not exist or is a regular
 *        file, and its folder exists and this process may create files in it (the temporary file
 *        beside it, then the rename).
 * @return HIST_OK, or HIST_ERR_USAGE with one line naming @p option, @p path and what is wrong.
 * @param option the option's name, for the message
 * @param path the destination
 */
hist_status hist_outfile_check(const char *option, const char *path);

/**
 * @brief Check, before any work, that files may be written in the folder @p dir (`--results`):
 *        it exists and is a writable folder, or it does not exist and its parent folder is
 *        writable (the program creates it when it writes there).
 * @return HIST_OK, or HIST_ERR_USAGE with one line naming @p option, @p dir and what is wrong.
 * @param option the option's name, for the message
 * @param dir the folder
 */
hist_status hist_outdir_check(const char *option, const char *dir);

/**
 * @brief Whether two paths name the same file (the same inode, or, for files that do not exist
 *        yet, the same name in the same folder).
 * @param a a path
 * @param b another path
 * @return 1 when they are the same file, else 0
 */
int hist_same_file(const char *a, const char *b);

/**
 * @brief Create the temporary file beside @p path, open for writing, and register it for removal
 *        on SIGINT, SIGTERM and SIGHUP.
 * @return HIST_OK, or HIST_ERR_IO with the system's cause.
 * @param o the file to stage
 * @param path the destination
 */
hist_status hist_outfile_open(hist_outfile *o, const char *path);

/**
 * @brief hist_outfile_open() for a table that grows a row per run (day 07's `ranks --csv`): the
 *        temporary file starts as a copy of @p path (or as @p header where @p path is new or
 *        empty); the caller writes its rows and commits, so a run that fails leaves the file as
 *        it was.
 * @param o the file to stage
 * @param path the destination (a regular file or new)
 * @param header the table's first line(s), with their newline
 * @return HIST_OK, or HIST_ERR_USAGE / HIST_ERR_IO with the cause
 */
hist_status hist_outfile_append(hist_outfile *o, const char *path, const char *header);

/**
 * @brief Flush, sync and close the temporary file (it stays until commit or discard).
 * @return HIST_OK, or HIST_ERR_IO with the system's cause (the temporary file is then removed).
 * @param o the staged file
 */
hist_status hist_outfile_close(hist_outfile *o);

/**
 * @brief Rename the closed temporary file over the destination.
 * @return HIST_OK, or HIST_ERR_IO with the system's cause (the temporary file is then removed).
 * @param o the staged file
 */
hist_status hist_outfile_commit(hist_outfile *o);

/**
 * @brief Close and remove the temporary file, if any (safe to call twice).
 * @param o the staged file
 */
void hist_outfile_discard(hist_outfile *o);

#ifdef __cplusplus
}
#endif

#endif /* HIST_OUTFILE_H */
