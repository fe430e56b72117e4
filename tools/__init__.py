"""Developer tools (calibration, test footage); never installed with the daemon."""
