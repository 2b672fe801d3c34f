"""Model back-ends behind small protocols (see base.py); real ones load lazily."""
