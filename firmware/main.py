# Runs at power-up on the board: the configuration copied to /board.json picks the pins.
from tableboard.app import start

start("board.json")
