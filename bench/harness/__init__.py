"""Shared pieces of the benchmark scripts: the fair-ceiling workload, the ceiling, the peers, timing.

`bench/*.py` are the scripts (`make bench` runs each, `tests/bench` runs each in smoke mode); this
package holds what more than one of them uses, so that it is not a script itself.
"""
