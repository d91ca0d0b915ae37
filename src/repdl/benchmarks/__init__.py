"""Benchmark cases shared by the scripts in bench/ and `repdl bench`: each
case is a pair of callables (torch, RepDL) timed side by side in one process
(timing.py), and reported as the ratio torch time / RepDL time."""
