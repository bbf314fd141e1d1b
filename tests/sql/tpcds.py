#!/usr/bin/env python3
"""TPC-DS's 99 queries on Iceberg tables floe writes, answered as DuckDB answers them (tpc.py).

Usage: tpcds.py FLOE --workdir DIR [--sf 0.1] [--set NAME=VALUE] [--keep] [QUERY ...]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tpc  # noqa: E402

if __name__ == "__main__":
    sys.exit(tpc.main("tpcds"))
