"""Table board firmware: sensors to events, events to the reliable link (CONTRACT section 1)."""
VERSION = (1, 0)
