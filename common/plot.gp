# plot.gp: the course's two charts, from the runner's CSV files (columns found by name).
#   gnuplot -e "progression='results.csv'; sweep='sweep.csv'; outdir='docs/images'" common/plot.gp
# 1. progression.svg/.png: median time of every implementation that ran, in lesson order, on a
#    log scale, the read-only floor as a line, % of floor on each GPU bar.
# 2. sweep.svg/.png (if a sweep CSV is given): time against rows for every implementation.
set datafile separator ","
set datafile columnheaders
if (!exists("outdir")) outdir = "docs/images"

stats progression using (column("median_us")) nooutput
n = STATS_records
stats progression using (column("floor_median_us")) nooutput
floor_us = STATS_max
gpu = system(sprintf("awk -F, 'NR==2{for(i=1;i<=NF;i++) if(h[i]==\"gpu\") print $i} NR==1{for(i=1;i<=NF;i++) h[i]=$i}' '%s'", progression))

set style data boxes
set style fill solid 0.75 border -1
set boxwidth 0.7
set logscale y 10
set format y "%.0s %cs"
set ylabel "median time per call (log scale)"
set xtics rotate by -40 left font ",9" nomirror
set ytics nomirror
set grid ytics
set key top right
set title sprintf("The progression on %s: main preset (1,048,576 x 512 bytes), uniform", gpu)
set bmargin 9
set rmargin 6
time_s(c) = strcol("status") eq "ran" ? column("median_us") * 1e-6 : NaN
host_s(c) = strcol("where") eq "host" ? time_s(c) : NaN
device_s(c) = strcol("where") eq "device" ? time_s(c) : NaN
pct_label(c) = (strcol("status") eq "ran" && strcol("where") eq "device") ? sprintf("%.0f%%", column("pct_of_floor")) : ""

do for [fmt in "svg png"] {
    if (fmt eq "svg") { set terminal svg size 960,620 dynamic font "Helvetica,12" background "white" noenhanced }
    if (fmt eq "png") { set terminal pngcairo size 960,620 font "Helvetica,11" background "white" noenhanced }
    set output sprintf("%s/progression.%s", outdir, fmt)
    plot progression using 0:(host_s(0)):xtic(strcol("implementation")) title "CPU" lc rgb "#8c8c8c", \
         progression using 0:(device_s(0)) title "GPU" lc rgb "#3b7dd8", \
         progression using 0:(device_s(0) * 1.35):(pct_label(0)) with labels font ",9" notitle, \
         floor_us * 1e-6 with lines dt 2 lw 2 lc rgb "#d62728" title sprintf("read-only floor %.1f us (bars: %% of floor)", floor_us)
    unset output
}

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
    set key top left font ",9"
    set title "The 1-D lesson's question: from what size does the GPU win? (GPU: end to end, copies included)"
    impls = system(sprintf("awk -F, 'NR==1{for(i=1;i<=NF;i++){if($i==\"implementation\") k=i; if($i==\"status\") st=i}; next} $st==\"ran\" && !s[$k]++{printf \"%%s \", $k}' '%s'", sweep))
    # one series per implementation: "rows seconds" lines, in row order, from awk
    series(impl) = sprintf("< awk -F, -v impl=%s 'NR==1{for(i=1;i<=NF;i++) c[$i]=i; next} $c[\"implementation\"]==impl && $c[\"status\"]==\"ran\" {t = ($c[\"where\"]==\"device\") ? $c[\"e2e_median_us\"] : $c[\"median_us\"]; print $c[\"rows\"], t * 1e-6}' '%s' | sort -n", impl, sweep)
    set datafile separator whitespace
    unset datafile columnheaders
    do for [fmt in "svg png"] {
        if (fmt eq "svg") { set terminal svg size 960,580 dynamic font "Helvetica,12" background "white" noenhanced }
        if (fmt eq "png") { set terminal pngcairo size 960,580 font "Helvetica,11" background "white" noenhanced }
        set output sprintf("%s/sweep.%s", outdir, fmt)
        plot for [impl in impls] series(impl) using 1:2 with linespoints title impl
        unset output
    }
}
