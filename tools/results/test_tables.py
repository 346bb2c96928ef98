#!/usr/bin/env python3
"""test_tables.py: tables.py's markers on small fake data, in a folder of their own (make tables
runs it first). Day 07's table of both scalings (the `gpus` kind, the marker the lesson's page
takes once a machine of several GPUs has run `gpus`) from a CSV as `gpus --csv` writes it; the
figures below are made up for the test, not measured."""
import os
import io
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kept  # noqa: E402
import tables  # noqa: E402

# gpus --csv on four GPUs, as its code writes it (figures made up)
FAKE_GPUS = """\
# GPU, 2000-01-01T00:00:00Z, course 0000000: build/sm_90/day07_scale/gpus --reps 11
data,GPUs,median (ms),GB/s,speed-up,speed-up / N,copy only (ms),copy GB/s,check,scaling
on the GPUs (peer add),1,0.100,5000.0,1.00x,1.00,-,-,exact,weak
on the GPUs (peer add),2,0.101,10000.0,1.98x,0.99,-,-,exact,weak
on the GPUs (peer add),3,0.102,15000.0,2.94x,0.98,-,-,exact,weak
on the GPUs (peer add),4,0.103,20000.0,3.88x,0.97,-,-,exact,weak
on the GPUs (ncclAllReduce),1,0.100,5000.0,1.00x,1.00,-,-,exact,weak
on the GPUs (ncclAllReduce),4,0.110,18000.0,3.64x,0.91,-,-,exact,weak
on the host,1,10.000,50.0,1.00x,1.00,9.900,50.5,exact,weak
on the host,4,10.100,200.0,3.96x,0.99,10.000,200.0,exact,weak
split over the GPUs (peer add),1,0.100,5000.0,1.00x,1.00,-,-,exact,strong
split over the GPUs (peer add),2,0.052,9600.0,1.92x,0.96,-,-,exact,strong
split over the GPUs (peer add),3,0.036,14000.0,2.78x,0.93,-,-,exact,strong
split over the GPUs (peer add),4,0.028,18000.0,3.57x,0.89,-,-,exact,strong
split over the GPUs (ncclAllReduce),4,0.030,16700.0,3.33x,0.83,-,-,exact,strong
"""

# gpus' account of where a call's time goes, as its code prints it (figures made up)
FAKE_PHASES = """\
# GPU, 2000-01-01T00:00:00Z, course 0000000: build/sm_90/day07_scale/gpus --reps 11
# split over the GPUs (peer add), 1 GPU: the call 100.0 us (median of 11, events recorded); each GPU's medians (us): its count queued at, the count, the sum after it (waits included), its end seen at
#   GPU 0:      5.0     80.0      8.0     95.0
# split over the GPUs (peer add), 2 GPUs: the call 60.0 us (median of 11, events recorded); each GPU's medians (us): its count queued at, the count, the sum after it (waits included), its end seen at
#   GPU 0:      5.0     40.0     10.0     57.0
#   GPU 1:      6.5     41.5      9.0     58.5
"""

# the marker of day07_scale/README.md's table of both scalings (its file named by the machine)
MARKER = "<!-- table gpus file={file} gpus=1,2,4 -->"


class BothScalings(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.kept_data = kept.DATA
        kept.DATA = self.folder.name
        with open(os.path.join(self.folder.name, "fake_gpus.csv"), "w") as f:
            f.write(FAKE_GPUS)
        self.page = os.path.join(kept.ROOT, "day07_scale", "README.md")

    def tearDown(self):
        kept.DATA = self.kept_data
        self.folder.cleanup()

    def rows_of(self, text):
        """The table's lines between the marker and the provenance line."""
        lines = tables.rewrite(self.page, text + "\n<!-- /table -->").split("\n")
        return [line for line in lines[1:] if line.startswith("|")]

    def test_phases(self):
        with open(os.path.join(self.folder.name, "fake_phases.txt"), "w") as f:
            f.write(FAKE_PHASES)
        block = "split over the GPUs (peer add), 2 GPUs"
        self.assertEqual(kept.phase_value("fake_phases.txt", block, "call"), "60.0 us")
        self.assertEqual(kept.phase_value("fake_phases.txt", block, "count"), "41.5 us")
        self.assertEqual(kept.phase_value("fake_phases.txt", block, "sum"), "10.0 us")
        one = "split over the GPUs (peer add), 1 GPU"
        self.assertEqual(kept.phase_value("fake_phases.txt", one, "count"), "80.0 us")
        with self.assertRaises(kept.Error):
            kept.phase_value("fake_phases.txt", "on the GPUs (peer add), 4 GPUs", "count")
        with self.assertRaises(kept.Error):
            kept.phase_value("fake_phases.txt", block, "median")

    def test_phases_table(self):
        with open(os.path.join(self.folder.name, "fake_phases.txt"), "w") as f:
            f.write(FAKE_PHASES)
        rows = self.rows_of("<!-- table phases file=fake_phases.txt -->")
        self.assertEqual(rows[2:], [
            "| split over the GPUs (peer add), 1 GPU: 100.0 us | 0 | 5.0 | 80.0 | 8.0 | 95.0 |",
            "| split over the GPUs (peer add), 2 GPUs: 60.0 us | 0 | 5.0 | 40.0 | 10.0 | 57.0 |",
            "|  | 1 | 6.5 | 41.5 | 9.0 | 58.5 |"])

    def test_csv_where(self):
        rows = self.rows_of('<!-- table csv file=fake_gpus.csv "cols=data,GPUs,speed-up" '
                            'where=scaling:strong -->')
        self.assertEqual(rows[2:], ["| split over the GPUs (peer add) | 1 | 1.00x |",
                                    "| split over the GPUs (peer add) | 2 | 1.92x |",
                                    "| split over the GPUs (peer add) | 3 | 2.78x |",
                                    "| split over the GPUs (peer add) | 4 | 3.57x |",
                                    "| split over the GPUs (ncclAllReduce) | 4 | 3.33x |"])
        with self.assertRaises(kept.Error):
            self.rows_of("<!-- table csv file=fake_gpus.csv where=scaling:none -->")
        both = self.rows_of('<!-- table csv file=fake_gpus.csv "cols=data,GPUs" '
                            '"where=scaling:strong;GPUs:1|4" -->')
        self.assertEqual(both[2:], ["| split over the GPUs (peer add) | 1 |",
                                    "| split over the GPUs (peer add) | 4 |",
                                    "| split over the GPUs (ncclAllReduce) | 4 |"])
        with self.assertRaises(kept.Error):
            self.rows_of("<!-- table csv file=fake_gpus.csv where=nothing:1 -->")

    def test_both_scalings_side_by_side(self):
        rows = self.rows_of(MARKER.format(file="fake_gpus.csv"))
        self.assertEqual(rows[0], "| GPUs | weak: median | speed-up | strong: median | speed-up |")
        self.assertEqual(rows[2:], ["| 1 | 0.100 ms | 1.00x | 0.100 ms | 1.00x |",
                                    "| 2 | 0.101 ms | 1.98x | 0.052 ms | 1.92x |",
                                    "| 4 | 0.103 ms | 3.88x | 0.028 ms | 3.57x |"])
        nccl = self.rows_of(MARKER.format(file="fake_gpus.csv").replace("gpus=1,2,4", "sum=nccl "
                                                                       "gpus=4"))
        self.assertEqual(nccl[2:], ["| 4 | 0.110 ms | 3.64x | 0.030 ms | 3.33x |"])

    def test_every_gpu_count_of_the_file(self):
        rows = self.rows_of(MARKER.format(file="fake_gpus.csv").replace(" gpus=1,2,4", ""))
        self.assertEqual([r.split(" | ")[0] for r in rows[2:]], ["| 1", "| 2", "| 3", "| 4"])

    def test_a_gpu_count_the_file_lacks_is_an_error(self):
        with self.assertRaises(kept.Error):
            self.rows_of(MARKER.format(file="fake_gpus.csv").replace("gpus=1,2,4", "gpus=8"))
        with self.assertRaises(kept.Error):  # no row of 2 GPUs through NCCL
            self.rows_of(MARKER.format(file="fake_gpus.csv").replace("gpus=1,2,4", "sum=nccl "
                                                                     "gpus=2"))


if __name__ == "__main__":
    out = io.StringIO()
    result = unittest.TextTestRunner(stream=out, verbosity=0).run(
        unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__]))
    if not result.wasSuccessful():
        sys.stderr.write(out.getvalue())
        sys.exit(1)
    print(f"test_tables: {result.testsRun} tests of the markers on fake data passed")
