"""Engine logs, calibration against them, validation against engine cases."""
