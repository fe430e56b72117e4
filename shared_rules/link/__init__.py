"""The board-to-host serial link of CONTRACT section 1, shared by firmware and daemon."""
