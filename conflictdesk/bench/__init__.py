"""Ragability (Gross, Petrak and Krenn): benchmark testees on inter-context conflicts.

corpus → cases → testees → checkers → metrics → report; the runner records every prompt,
response and check through a `BenchRecorder` the store implements."""
