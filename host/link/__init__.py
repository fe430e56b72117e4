"""Host side of the serial link: a pure receiver session and a thin port shell."""
