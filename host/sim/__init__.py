"""A simulated table board: plausible eight-ball play sent as real frames over a pty."""
