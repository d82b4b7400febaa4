"""Kernels shared by every game (random streams)."""
