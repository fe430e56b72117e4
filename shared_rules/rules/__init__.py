"""The referee: a pure fold of sensor events and commands into the table state."""
