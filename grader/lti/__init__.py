"""LTI 1.3 Advantage: launches from an LMS, Deep Linking, grades sent back (AGS) and roster sync (NRPS)."""
