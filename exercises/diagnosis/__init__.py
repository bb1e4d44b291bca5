"""Diagnosis that generalises: solves written as chains of named steps, operator-level mistakes applied to any step,
and a search over single mistakes and pairs that names the wrong step behind an answer no solver foresaw."""
