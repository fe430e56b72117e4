"""Tournament night: brackets, leagues, ratings and the venue service that lets the tables fill
them in (issue 19; docs/tournament.md).

Functional core, imperative shell:
- pure, over plain data (no I/O, no clock): `seeding` (bracket order, random/rating/hand seeds,
  groups, names told apart), `brackets` (the match slots of each format), `advance` (results in,
  every match's players and status out), `races` (race per round, handicaps), `standings`
  (round robin and league tables), `glicko2` (the rating method), `ratings` (a fold of every
  finished match), `referee` (which table result counts for which assignment), `schedule`
  (which match goes to which free table), `queue` (winner stays on);
- edges: `store` (SQLite, every change committed before it is announced), `service` (the MQTT
  shell: `billiards venue run`), `pages` and `web` (TV bracket, director page, ratings),
  `ha` (Home Assistant discovery of the venue device), `cli` (`billiards tournament ...`).
"""
