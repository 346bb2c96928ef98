/**
 * @file gpus_page.c
 * @brief The tables of the notes' "Which GPU do I need" page (docs/GPUS.md, `make tables`): the
 *        limits table with its sources, which GPU implementation runs on which GPU and why not,
 *        and the plan each implementation that has one chooses on each GPU. Made from the limits
 *        table (gpu_limits.c) and every registry's own constraints and plans, on a machine with or
 *        without a GPU: nothing here is typed by hand.
 */
#include <stdio.h>
#include <string.h>

#include "data.h"
#include "gpu_limits.h"
#include "options.h"
#include "runner.h"

/** @brief Every lesson folder and its registry, in lesson order (generated). */
extern const hist_lesson course_lessons[];
/** @brief How many lessons (generated). */
extern const size_t course_lesson_count;

/** @brief The most distinct refusal reasons the page numbers. */
#define MAX_REASONS 32

/** @brief Distinct refusal reasons, numbered in the order they appear (copies: an unsupported()
 *  may return a buffer that its next call rewrites). */
typedef struct footnotes {
    char text[MAX_REASONS][512]; /**< each reason */
    size_t count;                /**< how many */
} footnotes;

/* The footnote number of @p why (a new one if unseen). */
static size_t reason_number(footnotes *f, const char *why) {
    const size_t n = strlen(HIST_NOT_ON_GPU);
    if (strncmp(why, HIST_NOT_ON_GPU, n) == 0)
        why += n;
    for (size_t i = 0; i < f->count; ++i)
        if (strcmp(f->text[i], why) == 0)
            return i + 1;
    if (f->count == MAX_REASONS)
        return 0;
    snprintf(f->text[f->count++], sizeof f->text[0], "%s", why);
    return f->count;
}

static void print_limits(const hist_gpu_limits *t, size_t rows) {
    printf(
        "### The limits\n\nWhat `--gpu-limits NAME` and `GPU_LIMITS=NAME` emulate (`--gpu-limits "
        "list` prints it too). Shared memory in bytes, per SM and the most one block may opt in "
        "to; memory bandwidth is listed, not emulated.\n\n");
    printf("| name | GPU | compute capability | SMs | shared memory per SM | per block | threads "
           "per SM | L2 | memory | bandwidth |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < rows; ++i)
        printf("| `%s` | %s | %d.%d | %d | %zu | %zu | %d | %zu MiB | %zu GiB | %.0f GB/s |\n",
               t[i].name, t[i].gpu, t[i].cc_major, t[i].cc_minor, t[i].sm_count, t[i].smem_per_sm,
               t[i].smem_per_block_optin, t[i].max_threads_per_sm, t[i].l2_bytes >> 20,
               t[i].global_bytes >> 30, t[i].bandwidth_gb_s);
    printf("\nSources: %s. Per GPU:\n\n", HIST_LIMITS_CC_SOURCE);
    for (size_t i = 0; i < rows; ++i)
        printf("- `%s`: %s.\n", t[i].name, t[i].source);
}

/** @brief A preset the page shows implementations on. */
typedef struct page_preset {
    const char *name; /**< the preset's name */
    hist_problem p;   /**< its problem */
} page_preset;

/** @brief How many presets the page tries, in order: the main preset; GPU MODE's first size
 *  (day 06's step 9 takes none of the main preset); u16 (day 08's 16-bit samples); u16x8 (day
 *  09's exchange, 8 channels of 16-bit samples). */
#define PRESETS 4

/* 1 when @p impl runs @p p on at least one GPU of the table. */
static int runs_anywhere(const hist_impl *impl, const hist_gpu_limits *t, size_t rows,
                         const hist_problem *p) {
    for (size_t g = 0; g < rows; ++g) {
        hist_device dev;
        hist_device_of_limits(&t[g], &dev);
        if (!hist_impl_unsupported(impl, p, &dev))
            return 1;
    }
    return 0;
}

/* The first preset @p impl runs on some GPU of the table (the main preset if none). */
static const page_preset *preset_of(const page_preset *presets, const hist_impl *impl,
                                    const hist_gpu_limits *t, size_t rows) {
    for (size_t k = 0; k < PRESETS; ++k)
        if (runs_anywhere(impl, t, rows, &presets[k].p))
            return &presets[k];
    return &presets[0];
}

static void print_runs(const page_preset *presets, const hist_gpu_limits *t, size_t rows) {
    footnotes notes = {.count = 0};
    const hist_problem *p = &presets[0].p;
    printf("\n### What runs where\n\nEvery GPU implementation of every lesson on the main preset "
           "(%llu x %u, bytes), or on the first preset it takes (named beside it): `runs`, or why "
           "not. Day 01 runs on any CPU.\n\n",
           (unsigned long long)p->rows, p->channels);
    printf("| lesson | implementation |");
    for (size_t g = 0; g < rows; ++g)
        printf(" `%s` |", t[g].name);
    printf("\n|---|---|");
    for (size_t g = 0; g < rows; ++g)
        printf("---|");
    printf("\n");
    for (size_t l = 0; l < course_lesson_count; ++l)
        for (size_t i = 0; i < *course_lessons[l].impl_count; ++i) {
            const hist_impl *impl = &course_lessons[l].impls[i];
            if (impl->where == HIST_HOST)
                continue;
            const page_preset *q = preset_of(presets, impl, t, rows);
            printf("| %s | `%s`%s%s%s |", course_lessons[l].folder, impl->name,
                   q != presets ? " (`" : "", q != presets ? q->name : "",
                   q != presets ? "`)" : "");
            for (size_t g = 0; g < rows; ++g) {
                hist_device dev;
                hist_device_of_limits(&t[g], &dev);
                const char *why = hist_impl_unsupported(impl, &q->p, &dev);
                if (why)
                    printf(" no (%zu) |", reason_number(&notes, why));
                else
                    printf(" runs |");
            }
            printf("\n");
        }
    printf("\nWhy not:\n\n");
    for (size_t i = 0; i < notes.count; ++i)
        printf("%zu. %s\n", i + 1, notes.text[i]);
}

/* 1 when @p impl runs on GPU @p g of the table, on the first preset it takes. */
static int runs_on(const page_preset *presets, const hist_impl *impl, const hist_gpu_limits *t,
                   size_t rows, size_t g) {
    hist_device dev;
    hist_device_of_limits(&t[g], &dev);
    return !hist_impl_unsupported(impl, &preset_of(presets, impl, t, rows)->p, &dev);
}

/** @brief The longest text of the GPUs an implementation does not run on, with the reasons. */
#define MISSING_TEXT 1024

/* The GPUs of the table @p impl does not run on, grouped by reason in the order they come:
   "not on `t4`, `a100` (why); not on `rtx5090` (why)" into @p out ("" where it runs on all). */
static void missing_gpus(const page_preset *presets, const hist_impl *impl,
                         const hist_gpu_limits *t, size_t rows, char *out) {
    footnotes reasons = {.count = 0};
    size_t reason_of[64] = {0}; /* per GPU: its reason's number, 0 where it runs */
    for (size_t g = 0; g < rows && g < 64; ++g) {
        hist_device dev;
        hist_device_of_limits(&t[g], &dev);
        const char *why = hist_impl_unsupported(impl, &preset_of(presets, impl, t, rows)->p, &dev);
        reason_of[g] = why ? reason_number(&reasons, why) : 0;
    }
    size_t len = 0;
    out[0] = '\0';
    for (size_t r = 1; r <= reasons.count; ++r) {
        len += (size_t)snprintf(out + len, MISSING_TEXT - len, "%snot on", r > 1 ? "; " : "");
        for (size_t g = 0, first = 1; g < rows && g < 64 && len < MISSING_TEXT; ++g)
            if (reason_of[g] == r) {
                len += (size_t)snprintf(out + len, MISSING_TEXT - len, "%s `%s`", first ? "" : ",",
                                        t[g].name);
                first = 0;
            }
        if (len < MISSING_TEXT)
            len += (size_t)snprintf(out + len, MISSING_TEXT - len, " (%s)", reasons.text[r - 1]);
        if (len >= MISSING_TEXT)
            return;
    }
}

/* One lesson's row of the per-lesson table: the GPUs of the table on which every GPU
   implementation of the lesson runs, then the implementations that do not run on every one
   (those with the same GPUs and reasons together), with the GPUs they do not run on and why. */
static void print_lesson_row(const page_preset *presets, const hist_lesson *lesson,
                             const hist_gpu_limits *t, size_t rows) {
    printf("| %s |", lesson->folder);
    size_t gpu_impls = 0, whole = 0;
    for (size_t i = 0; i < *lesson->impl_count; ++i)
        gpu_impls += lesson->impls[i].where != HIST_HOST;
    if (gpu_impls == 0) {
        printf(" no GPU: any CPU | |\n");
        return;
    }
    for (size_t g = 0; g < rows; ++g) {
        int all = 1;
        for (size_t i = 0; i < *lesson->impl_count && all; ++i)
            all = lesson->impls[i].where == HIST_HOST ||
                  runs_on(presets, &lesson->impls[i], t, rows, g);
        if (all)
            printf("%s `%s`", whole++ ? "," : "", t[g].name);
    }
    printf("%s |", whole == rows ? " (every GPU of the table)" : whole ? "" : " none");
    char missing[32][MISSING_TEXT];
    const size_t n = *lesson->impl_count < 32 ? *lesson->impl_count : 32;
    for (size_t i = 0; i < n; ++i)
        if (lesson->impls[i].where == HIST_HOST)
            missing[i][0] = '\0';
        else
            missing_gpus(presets, &lesson->impls[i], t, rows, missing[i]);
    const char *sep = " ";
    for (size_t i = 0; i < n; ++i) {
        int shown = missing[i][0] == '\0'; /* nothing to say, or said with an earlier one */
        for (size_t k = 0; k < i && !shown; ++k)
            shown = strcmp(missing[k], missing[i]) == 0;
        if (shown)
            continue;
        printf("%s`%s`", sep, lesson->impls[i].name);
        for (size_t k = i + 1; k < n; ++k)
            if (strcmp(missing[k], missing[i]) == 0)
                printf(", `%s`", lesson->impls[k].name);
        printf(": %s", missing[i]);
        sep = "; ";
    }
    printf(" |\n");
}

/* Which GPU each lesson needs, lesson by lesson (docs/DAY00.md). */
static void print_lessons(const page_preset *presets, const hist_gpu_limits *t, size_t rows) {
    printf("| lesson | every implementation runs on | what does not run on every GPU |\n"
           "|---|---|---|\n");
    for (size_t l = 0; l < course_lesson_count; ++l)
        print_lesson_row(presets, &course_lessons[l], t, rows);
}

/* 1 when implementations @p a and @p b choose the same plan on every GPU of the table. */
static int same_plans(const hist_impl *a, const hist_impl *b, const hist_gpu_limits *t, size_t rows,
                      const hist_problem *p) {
    for (size_t g = 0; g < rows; ++g) {
        hist_device dev;
        hist_device_of_limits(&t[g], &dev);
        char text[256];
        snprintf(text, sizeof text, "%s", a->plan(p, &dev)); /* plans may share a buffer */
        if (strcmp(text, b->plan(p, &dev)) != 0)
            return 0;
    }
    return 1;
}

/* Every implementation with a plan, in registry order (at most @p max). */
static size_t planned(const hist_impl **out, size_t max) {
    size_t n = 0;
    for (size_t l = 0; l < course_lesson_count; ++l)
        for (size_t i = 0; i < *course_lessons[l].impl_count && n < max; ++i)
            if (course_lessons[l].impls[i].plan)
                out[n++] = &course_lessons[l].impls[i];
    return n;
}

/* The plans, each on the first preset its implementation takes (named where it is not the main
   one). */
static void print_plans(const page_preset *presets, const hist_gpu_limits *t, size_t rows) {
    printf("\n### The plans\n\nWhat each implementation that chooses its configuration from the "
           "GPU chooses there (the runner prints the same line as `# plan on this GPU`).\n\n");
    const hist_impl *impls[64];
    const size_t n = planned(impls, 64);
    for (size_t i = 0; i < n; ++i) {
        const page_preset *q = preset_of(presets, impls[i], t, rows);
        int first = 1; /* the first of those with the same plans lists the others */
        for (size_t k = 0; k < i && first; ++k)
            first = !(preset_of(presets, impls[k], t, rows) == q &&
                      same_plans(impls[k], impls[i], t, rows, &q->p));
        if (!first)
            continue;
        printf("**`%s`**", impls[i]->name);
        for (size_t k = i + 1; k < n; ++k)
            if (preset_of(presets, impls[k], t, rows) == q &&
                same_plans(impls[i], impls[k], t, rows, &q->p))
                printf(", `%s`", impls[k]->name);
        if (q != presets)
            printf(" (on `--preset %s`, %llu x %u%s: it takes none of the main preset)", q->name,
                   (unsigned long long)q->p.rows, q->p.channels,
                   hist_sample_bits(&q->p) == 16 ? " 16-bit samples" : "");
        printf(":\n\n| GPU | plan |\n|---|---|\n");
        for (size_t g = 0; g < rows; ++g) {
            hist_device dev;
            hist_device_of_limits(&t[g], &dev);
            const char *why = hist_impl_unsupported(impls[i], &q->p, &dev);
            printf("| `%s` | %s |\n", t[g].name,
                   why ? "does not run" : impls[i]->plan(&q->p, &dev));
        }
        printf("\n");
    }
}

/**
 * @brief Print the page's generated tables (Markdown) to standard output; with `--lessons`, the
 *        table of docs/DAY00.md instead: which GPU each lesson needs.
 * @return 0, 2 on a usage error, or 3 if the registries are broken
 * @param argc argument count
 * @param argv the arguments: `--lessons`, `--help`
 */
int main(int argc, char **argv) {
    int lessons = 0;
    const hist_extra_option extra[] = {
        {.name = "lessons",
         .help = "print docs/DAY00.md's table instead: which GPU each lesson needs",
         .flag = &lessons},
    };
    const hist_program prog = {
        .name = "gpus_page",
        .about = "The tables of docs/GPUS.md (make tables), from the limits table and every "
                 "registry.",
        .refused = "preset bits rows channels lo hi width values dist seed input save-input impl "
                   "reps warmup threads output csv results require-gpu gpu-limits keep-sms list",
        .extra = extra,
        .n_extra = 1,
    };
    hist_options o;
    const int done = hist_program_options(&prog, argc, argv, &o);
    if (done >= 0)
        return done;
    if (hist_check_lessons(course_lessons, course_lesson_count) != HIST_OK) {
        fprintf(stderr, "gpus_page: broken lesson registry: %s\n", hist_last_error());
        return 3;
    }
    static const char *const names[PRESETS] = {"main", "pmpp", "u16", "u16x8"};
    page_preset presets[PRESETS];
    for (size_t k = 0; k < PRESETS; ++k) {
        hist_dataset d;
        if (hist_preset(names[k], &d) != HIST_OK)
            return 3;
        presets[k] = (page_preset){names[k], d.problem};
    }
    size_t rows = 0;
    const hist_gpu_limits *t = hist_gpu_limits_table(&rows);
    printf("<!-- generated by make tables (common/course/gpus_page.c): do not edit -->\n");
    if (lessons) {
        print_lessons(presets, t, rows);
        return 0;
    }
    print_limits(t, rows);
    print_runs(presets, t, rows);
    print_plans(presets, t, rows);
    return 0;
}
