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
 *  (day 06's step 9 takes none of the main preset); u16 (day 08's 16-bit samples). */
#define PRESETS 3

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
 * @brief Print the page's generated tables (Markdown) to standard output.
 * @return 0, or 3 if the registries are broken
 */
int main(void) {
    if (hist_check_lessons(course_lessons, course_lesson_count) != HIST_OK) {
        fprintf(stderr, "gpus_page: broken lesson registry: %s\n", hist_last_error());
        return 3;
    }
    static const char *const names[PRESETS] = {"main", "pmpp", "u16"};
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
    print_limits(t, rows);
    print_runs(presets, t, rows);
    print_plans(presets, t, rows);
    return 0;
}
