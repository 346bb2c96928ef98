# plot.gp: the course's two charts, from the runner's CSV files (columns found by name).
#   gnuplot -e "progression='results.csv'; sweep='sweep.csv'; outdir='docs/images'" tools/results/plot.gp
# formats='svg' draws SVG only (make charts: the course's own, compared in CI; SVG is text, the
# same bytes for the same data and gnuplot version); the default is "svg png".
# 1. progression.svg/.png: median time of every implementation that ran, in lesson order, on a
#    log scale, the read-only floor as a line, on each GPU bar its share of its floor: the read
#    floor of its run, or for a version that takes its input in host memory (day 07's, where
#    "h2d") the pinned-copy floor of its run. The share is computed from the two medians and
#    rounded once to a whole percent, as tools/results/tables.py rounds it (never from the CSV's
#    pct_of_floor, already rounded to two decimals). A lesson whose rows have preset_shown (make
#    charts: its rows from another preset's run, day 08's u16) has the preset beside its name.
# 2. sweep.svg/.png (if a sweep CSV is given): time against rows for every implementation.
set datafile separator ","
set datafile columnheaders
if (!exists("outdir")) outdir = "docs/images"
if (!exists("formats")) formats = "svg png"

stats progression using (column("median_us")) nooutput
n = STATS_records
tmax = STATS_max * 1e-6
# the dashed line: the read floor of the first row's run (the main preset's)
column_of(name) = sprintf("awk -F, 'NR==1{for(i=1;i<=NF;i++) h[i]=$i} NR==2{for(i=1;i<=NF;i++) if(h[i]==\"%s\") print $i}' '%s'", name, progression)
floor_us = real(system(column_of("floor_median_us")))
gpu = system(column_of("gpu"))
shown = system(sprintf("awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i==\"preset_shown\") k=i; next} k && $k != \"\" && !s[$k]++ {printf \"%%s%%s\", (n++ ? \", \" : \"\"), $k}' '%s'", progression))

# The bars grouped by lesson, every row that ran: awk gives each its x position (a gap of one bar
# between lessons), its time in the column of its kind (host, device, host input) and its share
# of its floor, and writes one label per lesson at the middle of its group (tab-separated: a
# name may hold a space).
bars = sprintf("< awk -F, 'BEGIN{OFS=\"\t\"} NR==1{for(i=1;i<=NF;i++) c[$i]=i; next} $c[\"status\"] != \"ran\" {next} {if ($c[\"lesson\"] != last) {g++; last = $c[\"lesson\"]}; x = n++ + g - 1; t = $c[\"median_us\"] * 1e-6; w = $c[\"where\"]; f = (w == \"h2d\") ? $c[\"copy_floor_median_us\"] : $c[\"floor_median_us\"]; pct = (w == \"host\") ? \"-\" : sprintf(\"%%.0f%%%%\", 100 * f / $c[\"median_us\"]); print x, (w == \"host\" ? t : \"NaN\"), (w == \"device\" ? t : \"NaN\"), (w == \"h2d\" ? t : \"NaN\"), $c[\"implementation\"], pct, t}' '%s'", progression)
groups = sprintf("< awk -F, 'BEGIN{OFS=\"\t\"} NR==1{for(i=1;i<=NF;i++) c[$i]=i; next} $c[\"status\"] != \"ran\" {next} {l = $c[\"lesson\"]; if (l != last) {g++; last = l; name[g] = substr(l, 1, 5); first[g] = n + g - 1}; if ((\"preset_shown\" in c) && $c[\"preset_shown\"] != \"\") on[g] = \" (\" $c[\"preset_shown\"] \")\"; end[g] = n + g - 1; n++} END {for (k = 1; k <= g; k++) print (first[k] + end[k]) / 2, name[k] on[k], first[k] - 1}' '%s'", progression)

set style data boxes
set style fill solid 0.75 border -1
set boxwidth 0.7
set logscale y 10
set format y "%.0s %cs"
set ylabel "median time per call (log scale)"
set xlabel "implementation, grouped by lesson (dayNN above each group)"
set xtics rotate by -40 left font ",9" nomirror
set ytics nomirror
set grid ytics
set key at graph 0.98, graph 0.8 right top box opaque
set title sprintf("The progression on %s: main preset (1,048,576 x 512 bytes), uniform%s", gpu, \
    shown eq "" ? "" : sprintf("; (%s): the same bytes as 16-bit samples", shown))
set bmargin 12
set tmargin 3
set rmargin 10
set datafile separator tab
unset datafile columnheaders
ylo = floor_us * 1e-6 / 2
yhi = tmax * 12
set yrange [ylo:yhi]

do for [fmt in formats] {
    if (fmt eq "svg") { set terminal svg size 1000,640 dynamic font "Helvetica,12" background "white" noenhanced }
    if (fmt eq "png") { set terminal pngcairo size 1000,640 font "Helvetica,11" background "white" noenhanced }
    set output sprintf("%s/progression.%s", outdir, fmt)
    plot bars using 1:2:xtic(5) title "CPU" lc rgb "#8c8c8c", \
         bars using 1:3 title "GPU: % of the read floor" lc rgb "#3b7dd8", \
         bars using 1:4 title "GPU, input in host memory: % of the pinned-copy floor" lc rgb "#e08a1e", \
         bars using 1:($7 * 1.35):(stringcolumn(6) eq "-" ? "" : stringcolumn(6)) with labels font ",9" notitle, \
         groups using 1:(tmax * 5):2 with labels font ",10" textcolor rgb "#444444" notitle, \
         groups using 3:(ylo):(0):(yhi - ylo) with vectors nohead dt 3 lc rgb "#999999" notitle, \
         floor_us * 1e-6 with lines dt 2 lw 2 lc rgb "#d62728" title sprintf("read-only floor %.1f us", floor_us)
    unset output
}
set autoscale y
unset yrange
unset xlabel

if (exists("sweep")) {
    unset xtics
    set xtics nomirror rotate by 0 font ",10"
    set style data linespoints
    set logscale xy 10
    set format x "%.0s%c"
    set format y "%.0s %cs"
    set xlabel "rows (small-binned: 1 channel, 5 bins of 20 over 1..100)"
    set ylabel "median time (log scale)"
    set bmargin 4
    set tmargin 4
    set rmargin
    set key outside right top vertical font ",9"
    skipped = system(sprintf("awk -F, 'NR==1{for(i=1;i<=NF;i++){if($i==\"implementation\") k=i; if($i==\"status\") st=i}; next} $st!=\"ran\" && !s[$k]++{n++} END{print n+0}' '%s'", sweep))
    set title sprintf("The 1-D lesson's question: from what size does the GPU win? (GPU: end to end, copies included)\n%s", \
        (skipped eq "0") ? "every implementation drawn" : sprintf("not drawn: the %s implementations that skip this binning (the runner's CSV says which)", skipped))
    set autoscale xfix
    set offsets 0, 0, 0, 0
    colours = "#000000 #1f77b4 #d62728 #2ca02c #9467bd #8c564b #e377c2 #17becf #7f7f7f #bcbd22"
    impls = system(sprintf("awk -F, 'NR==1{for(i=1;i<=NF;i++){if($i==\"implementation\") k=i; if($i==\"status\") st=i}; next} $st==\"ran\" && !s[$k]++{printf \"%%s \", $k}' '%s'", sweep))
    # one series per implementation: "rows seconds" lines, in row order, from awk
    series(impl) = sprintf("< awk -F, -v impl=%s 'NR==1{for(i=1;i<=NF;i++) c[$i]=i; next} $c[\"implementation\"]==impl && $c[\"status\"]==\"ran\" {t = ($c[\"where\"]==\"device\") ? $c[\"e2e_median_us\"] : $c[\"median_us\"]; print $c[\"rows\"], t * 1e-6}' '%s' | sort -n", impl, sweep)
    set datafile separator whitespace
    unset datafile columnheaders
    do for [fmt in formats] {
        if (fmt eq "svg") { set terminal svg size 1060,580 dynamic font "Helvetica,12" background "white" noenhanced }
        if (fmt eq "png") { set terminal pngcairo size 1060,580 font "Helvetica,11" background "white" noenhanced }
        set output sprintf("%s/sweep.%s", outdir, fmt)
        # distinct dark colours, and dash and point types that tell apart lines lying on each other
        plot for [k = 1:words(impls)] series(word(impls, k)) using 1:2 with linespoints \
            lw 2 dt 1 + k % 4 pt k + 3 ps 0.8 lc rgb word(colours, (k - 1) % words(colours) + 1) \
            title word(impls, k)
        unset output
    }
}
