"""Table board firmware: sensors to events, events to the reliable link (CONTRACT section 1).

VERSION is what HELLO says: the newest addition to the link this firmware offers
(shared_rules/link/names.py FW_*; tests/firmware/test_board_reports.py holds them together).
"""
VERSION = (1, 2)
