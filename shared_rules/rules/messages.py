"""What the referee says, one table per language: a key names a message, the table words it.

Each table is one string of `key: text` lines. A text is a format string with positional `{}`
fields; `say(key, *args)` gives the (English, Russian) pair an event carries (events.event).
Keys: plain ones are shared steps (common.py) and the foul codes of CONTRACT section 2;
`eb.`, `nb.`, `sp.` belong to eight-ball, nine-ball and straight pool; `refused.` words a
refused entry (`refusal`); `foul.`, `option.`, `pocket.`, `game.`, `group.`, `break_rule.` are
the vocabulary the pages show (`vocabulary`). A refusal's English text is the answer's `error`, which callers
have matched since the first release: its clause codes stay there and are taken out of the
players' text.
"""
from shared_rules.link import names

EN = """
hold_new_game: Hold the new-game button to start a new game
button_refused: Button refused: {}
sensor_pocket: pocket {}
sensor_rail: rail {}
sensor_other: sensor {}
sensor_back: {} works again
sensor_fault: Sensor fault: {} {}
fault_blocked: beam blocked
fault_silent: not responding
fault_other: fault
board_config: board configuration refused
board_restart: board restarted: {}
refused.entry_not_object: an entry must be a JSON object
refused.internal_error: internal error, nothing changed: {}
refused.unknown_source: unknown entry source: {}
refused.bad_sensor_event: sensor event needs integer kind, index, value, flags and t_us
refused.no_command_name: a command needs a name
refused.body_not_object: the body of '{}' must be a JSON object
refused.unknown_command: unknown command '{}'; known: {}
refused.no_game: no game is running; send new_game first
refused.game_over: the game is over
refused.balls_rolling: the balls are still rolling; wait until the shot ends
refused.decision_pending: a decision is pending: {} must choose one of {}
refused.identify_first: identify the pocketed ball first
refused.unknown_game: unknown game '{}'; choose one of {}
refused.bad_players: players must be a list of two names of 1 to {} characters
refused.bad_breaker: breaker must be 0 or 1
refused.bad_flag: {} must be true or false
refused.bad_setting: {} must be one of {}
refused.bad_shot_clock: shot_clock must be null or 10 to 600 seconds
refused.bad_target: target must be a whole number of points from 1 to 1000
refused.bad_race: race_to must be a whole number of games from 1 to 99, or each player's: [a, b]
refused.bad_assignment: assignment must be a text of 1 to 64 characters
refused.match_in_progress: a match is in progress at this table; a new one may begin when it is over
refused.unknown_pocket_call: no such pocket '{}'; pockets are {} or 0-5
refused.bad_call_ball: ball must be a number from 1 to 15
refused.ball_not_on_table: ball {} is not on the table
refused.call_nothing: call a ball, a pocket or both
refused.no_decision: there is no decision to make now
refused.not_an_option: '{}' is not an option now; choose one of {}
refused.balls_rolling_fact: the balls are still rolling; enter it when the shot has ended
refused.nothing_to_amend: there is no shot just played to amend (it was followed by a choice or another shot)
refused.unknown_foul: unknown foul code '{}'; known: {}
refused.jumped_needs_ball: jumped_ball needs the ball that left the table (0 for the cue ball)
refused.not_a_break: the last shot was not a break
refused.foul_entered: that foul is already entered
refused.jumped_entered: ball {} is already entered as jumped
refused.ball_not_there_then: ball {} was not on the table for that shot
refused.bad_stopped_ball: ball must be an object ball that was on the table for that shot
refused.stopped_ball_counted: ball {} is already counted as pocketed or jumped
refused.stopped_ball_pocket: say which pocket ball {} was heading to (pocket)
refused.break_ruled_legal: the break is already ruled legal
refused.illegal_break_entered: an illegal break was entered for that shot; undo it first
refused.unknown_pocket: no such pocket '{}'
refused.bad_identify_ball: ball must be a number from 0 (cue ball) to 15
refused.no_drop_there: no ball dropped in {} on the last shot
refused.ball_in_other_drop: ball {} is already counted in another drop of that shot
refused.ball_was_not_on_table: ball {} was not on the table
refused.no_shot_playing: no shot is being played
refused.balls_rolling_undo: the balls are still rolling; undo when the shot has ended
refused.nothing_to_undo: there is no shot to take back
refused.bad_player: player must be 0 or 1
refused.bad_name: name must be 1 to {} characters
refused.lag_too_late: the lag decides the break only before a game's first shot
refused.bad_lag_winner: winner must be 0 or 1
refused.bad_breaks: breaks must be true or false
refused.bad_spot_ball: ball must be an object ball pocketed on the last shot
refused.spotted_already: ball {} is already spotted
refused.rack_only_straight_pool: rack facts are entered only in straight pool
refused.stalemate_shooter: shooter (the lag winner, 0 or 1) is required
refused.nothing_to_confirm: there is no decision to confirm
refused.push_out_only_nine_ball: a push-out exists only in nine-ball
refused.not_between_racks: there is no next rack to start: a rack of the match must be over first
refused.lag_first: the deciding rack is lagged for: enter who won the lag first
refused.eb.break_not_called: the break is not a called shot (EB.BREAK-CONTINUE)
refused.eb.eight_too_early: the 8 may be called only when your group is cleared
refused.eb.call_the_eight: your group is cleared: call the 8
refused.eb.not_your_group: ball {} is not in your group ({})
refused.eb.no_safety_on_break: the break is not a called shot; there is no safety on the break
refused.nb.push_on_break: a push-out is allowed only on the first shot after the break, not on the break itself
refused.nb.push_after_foul: a push-out is allowed only on the first shot after a legal break; this break was a foul
refused.nb.push_too_late: a push-out is allowed only on the first shot after the break; that shot has been played
refused.nb.no_calls: nine-ball is played without calls (NB.NO-CALL): hit the lowest ball ({}) first; any ball may drop
refused.nb.no_safety: nine-ball has no declared safety (NB.NO-CALL): a legal shot that pockets nothing simply passes the table
refused.sp.call_pocket: straight pool calls the pocket too (SP.CALL): name the ball and the pocket
refused.sp.no_rerack: the last shot did not end the rack: there is nothing to re-rack
refused.sp.rack_where: say where the 15th ball ('fifteenth') and/or the cue ball ('cue') stopped
refused.sp.rack_unknown_key: unknown key '{}': use 'fifteenth' and 'cue'
refused.sp.bad_fifteenth: fifteenth must be one of {}
refused.sp.bad_cue_place: cue must be one of {}
refused.sp.both_racked: the 14th and 15th balls both dropped: all 15 are racked, only the cue ball's place matters
refused.host.bad_name: a command name is 1 to 32 lowercase letters, digits or '_', like 'call'
refused.host.bad_payload: {}
refused.host.cannot_journal: the command cannot be journaled ({})
refused.host.not_recorded: not recorded, nothing changed: {}
refused.host.internal: internal error: {}
refused.host.too_many: too many commands: the table takes {} a second; wait a moment and send it again
refused.host.retained: a retained command is never executed (the broker would replay it at every reconnect); it was cleared: publish commands without the retain flag
refused.host.no_answer: the referee did not answer in time; try again
refused.host.ha_unknown_game: unknown game {}
refused.host.ha_game_playing: {} is already being played: nothing changed (the New game button starts it again)
refused.host.ha_nothing_to_identify: no pocketed ball is waiting to be identified
shot_clock_up: Shot clock: time is up for {}
foul.cue_pocketed: scratch
foul.no_rail: no rail
foul.illegal_break: illegal break
foul.wrong_first_contact: wrong ball first
foul.no_contact: no contact
foul.jumped_ball: ball off the table
foul.double_hit: double hit
foul.push_shot: push shot
foul.touched_ball: touched a ball
foul.no_foot_on_floor: no foot on the floor
foul.bad_stroke: bad stroke
foul.near_ball: near-ball stroke
foul.moving_ball: ball still moving
foul.kitchen: kitchen
foul.interference: interference
foul.three_fouls: three fouls
option.accept: Play on from here
option.rebreak: Break again
option.rerack: Re-rack, I break
option.rerack_offender_breaks: Re-rack, the offender breaks
option.spot_eight: Spot the 8 and play on
option.pass_back: Pass the shot back
option.reshoot: Make them shoot again
pocket.head-left: head left corner
pocket.side-left: left side
pocket.foot-left: foot left corner
pocket.foot-right: foot right corner
pocket.side-right: right side
pocket.head-right: head right corner
pocket_short.head-left: head left
pocket_short.side-left: left side
pocket_short.foot-left: foot left
pocket_short.foot-right: foot right
pocket_short.side-right: right side
pocket_short.head-right: head right
game.eight-ball: Eight-ball
game.nine-ball: Nine-ball
game.straight-pool: Straight pool (14.1)
new_game: New {} game: {} v {}; {} breaks
call: {} calls {}{}
call_ball: ball {}
call_pocket:  in {}
safety: {} plays a safety
push_out: {} announces a push-out
choice_void: The late ball changed the shot: the earlier choice no longer applies
undo: Last shot taken back: {} to shoot
undo_new_game: New game taken back: the {} game goes on, {} to shoot
lag: {} won the lag; {} breaks
stalemate: Stalemate: balls re-racked; {} plays from the kitchen
hanging_early: A hanging ball dropped in time and counts for the last shot
hanging_late: Ball dropped {} s after the shot: put it back on the lip of {}
shot: {} is shooting
guessed: Play went on without identifying the ball: best guess used
implied_choice: Play went on: taken as '{}'
deciding_lag: Deciding game: lag for the break
lag_for_break: Lag for the break
break_rule.alternate: breaks alternate
break_rule.lag: the lag decides the break
break_rule.winner_breaks: the winner breaks
next_rack: Game {}: {} breaks
foul: Foul by {}: {}
turn: {} to shoot
ball_in_hand: {}: ball in hand
ball_in_hand_kitchen: {}: ball in hand from the kitchen
respot: Spot ball {} on the {}
pocketed: {} pocketed {}
over: {} wins the game: {}
identify: Which ball dropped in {}?
cue_pocketed: cue ball pocketed
no_rail: no ball reached a rail
illegal_break: illegal break
wrong_first_contact: wrong ball hit first
no_contact: cue ball hit no ball
jumped_ball: ball off the table
double_hit: double hit
push_shot: push shot
touched_ball: ball touched
no_foot_on_floor: no foot on the floor
bad_stroke: improper stroke
near_ball: improper near-ball stroke
moving_ball: shot before the balls stopped
kitchen: ball in hand from the kitchen misplayed
interference: opponent interfered
three_fouls: three fouls in a row
eb.solids: solids (1-7)
eb.stripes: stripes (9-15)
eb.group: {} takes {}; {} has {}
eb.rerack: Re-rack: {} breaks
eb.lose: {} {}
eb.loss_jumped: jumped the 8 off the table
eb.loss_on_foul: pocketed the 8 on a foul
eb.loss_with_last: pocketed the 8 with the last ball of the group
eb.loss_early: pocketed the 8 before clearing the group
eb.loss_on_safety: pocketed the 8 on a safety, with no pocket called
eb.loss_wrong_pocket: pocketed the 8 in a pocket that was not called ({})
eb.win: the 8 pocketed after clearing the group
eb.offer_break_8_scratch: {}: break again, or spot the 8 and shoot from the kitchen
eb.offer_break_8: {}: the 8 dropped on the break: break again or spot the 8 and play on
eb.offer_illegal_break: {}: play the table as it lies, re-rack and break, or make the breaker break again
eb.break_jump_bih: {}: play the cue ball where it lies or take it in hand in the kitchen
eb.accept: {} plays the table as it lies
eb.both_groups: Both groups dropped without a call: the table stays open; call a ball
nb.win: the 9 legally pocketed
nb.win_break: the 9 legally pocketed on the break
nb.push_no_foul: No foul: a push-out need not touch a ball or reach a rail
nb.offer_push: Push-out: {} plays the position or passes the shot back to {}
nb.break_continue: Legal break: {} shoots again (a push-out is allowed)
nb.three_fouls: three fouls in a row by {}
nb.two_fouls: {} has 2 fouls in a row: a third foul loses the game
nb.offer_miss: {} missed the lowest ball: {} plays the position or makes {} shoot again
nb.pass_back: {} passes the shot back: {} plays the push-out position
nb.reshoot: {} makes {} shoot again from the position
nb.accept: {} plays the position as it lies
sp.identify_called: Several balls dropped in {}: was ball {} one of them? Identify them
sp.any_first: No foul: in straight pool any ball may be hit first
sp.uncalled: No ball and pocket called: a safety; the balls are spotted
sp.two_fouls: {} has two fouls in a row: a third costs 1 + 15 points
sp.respot_pockets: Spot the ball(s) that dropped in {} on the foot spot
sp.offer_offender: {}: play the table as it lies, or re-rack all 15 and make {} break
sp.offer_rebreak: {}: play the table as it lies, or make {} break again
sp.win: reached {} points
sp.rerack_full: All 15 balls re-racked; {} goes on
sp.rerack_14: 14 balls re-racked, apex spot empty; ball {} and the cue ball stay; {} goes on
sp.fifteenth_head_spot: ball {} goes on the head spot
sp.cue_head_spot: the cue ball goes on the head spot (the centre spot if taken)
sp.rebreak: Balls re-racked: {} breaks again
sp.offender_breaks: All 15 balls re-racked: {} must break
sp.accept: {} plays the table as it lies
camera.fault.camera_stalled: the camera sends no pictures
camera.fault.camera_frozen: the camera's picture is frozen
camera.fault.camera_dropping_frames: the camera drops frames
camera.fault.camera_moved: the camera has moved: the table is not where it was
camera.fault.camera_flash: a flash or the lights changed the picture
camera.fault.camera_no_table: the camera cannot find the table
camera.fault.camera_error: the camera's analysis failed
camera.fault_on: Camera fault: {}; shots are judged without the camera until it is cleared
camera.fault_off: Camera fault cleared: {}
camera.online: Camera online: it judges contacts and cushions again
camera.offline: Camera offline: shots are judged without it
camera.fallback: Camera not used for this shot: {}; judged as without a camera
camera.why.fault: it had a fault during the shot
camera.why.offline: it was offline
camera.why.late: its view did not come within half a second of the balls stopping
camera.why.interrupted: the next stroke came before its view
camera.why.ended: the shot was ended before its view came
camera.why.strokes: it saw more than one stroke
camera.why.beams: the balls it saw drop do not match the pocket beams
camera.why.table: it saw a ball hit first that is not on the table
camera.unsure: Camera unsure of {}: judged as without a camera
camera.what.first_contact: the first ball hit
camera.what.rail: a cushion after the contact
camera.what.break: the balls at a cushion on the break
camera.saw: Camera: {}
camera.part.contact: the cue ball hit {} first
camera.part.no_contact: the cue ball hit no ball
camera.part.rail: a ball reached a cushion after the contact
camera.part.no_rail: no ball reached a cushion after the contact
camera.part.break_rails: {} balls reached a cushion
camera.part.identity: ball {} dropped
camera.what.kitchen: where the cue ball in hand lay (the kitchen)
camera.what.kitchen_ball: whether the ball hit first lay in the kitchen
camera.what.rack: where the last object ball and the cue ball stopped (the re-rack)
camera.part.kitchen_in: the cue ball lay behind the head string
camera.part.kitchen_out: the cue ball lay on or past the head string
camera.part.foot_in: every object ball lay in the kitchen and the cue ball behind the foot string (the temporary kitchen)
camera.part.foot_out: every object ball lay in the kitchen and the cue ball outside the temporary kitchen behind the foot string
camera.part.kitchen_ball: ball {} lay in the kitchen and the cue ball hit it without leaving the kitchen
camera.part.fifteenth_clear: the last object ball stopped clear of the rack
camera.part.fifteenth_rack: the last object ball stopped in the rack area
camera.part.fifteenth_apex: the last object ball stopped on the apex spot
camera.part.fifteenth_kitchen: the last object ball stopped in the kitchen
camera.part.cue_clear: the cue ball clear of the rack
camera.part.cue_rack: the cue ball in the rack area
camera.part.simultaneous: the cue ball hit {} and {} too close together to tell which was first: the shooter's way
refused.camera_entry: a camera '{}' entry of a shape or size the referee does not take
"""

RU = """
hold_new_game: Удерживайте кнопку, чтобы начать новую партию
button_refused: Кнопка не принята: {}
sensor_back: {}: датчик снова работает
sensor_fault: Неисправность датчика: {} ({})
sensor_pocket: луза «{}»
sensor_rail: {}
sensor_other: датчик {}
fault_blocked: луч перекрыт
fault_silent: не отвечает
fault_other: неисправность
rail.head: передний борт
rail.left-head: левый борт, половина у переднего
rail.left-foot: левый борт, половина у заднего
rail.foot: задний борт
rail.right-foot: правый борт, половина у заднего
rail.right-head: правый борт, половина у переднего
board_config: конфигурация платы отвергнута
board_restart: плата перезапустилась: {}
refused.entry_not_object: запись журнала должна быть объектом JSON
refused.internal_error: внутренняя ошибка, ничего не изменено: {}
refused.unknown_source: неизвестный источник записи: {}
refused.bad_sensor_event: событию датчика нужны целые kind, index, value, flags и t_us
refused.no_command_name: у команды нет имени
refused.body_not_object: тело команды «{}» должно быть объектом JSON
refused.unknown_command: неизвестная команда «{}»; известные: {}
refused.no_game: партия не начата: сначала начните новую партию
refused.game_over: партия окончена
refused.balls_rolling: шары ещё катятся: дождитесь конца удара
refused.decision_pending: ожидается выбор: {} выбирает одно из — {}
refused.identify_first: сначала укажите, какой шар упал в лузу
refused.unknown_game: неизвестная игра «{}»; выберите одну из: {}
refused.bad_players: нужны два имени игроков, каждое от 1 до {} символов
refused.bad_breaker: разбивающий — игрок 0 или 1
refused.bad_flag: настройка {} принимает только «да» или «нет»
refused.bad_setting: настройка {} принимает только: {}
refused.bad_shot_clock: время на удар: без ограничения или от 10 до 600 секунд
refused.bad_target: очки для победы: целое число от 1 до 1000
refused.bad_race: матч до: целое число побед от 1 до 99 или у каждого игрока своё: [a, b]
refused.bad_assignment: метка назначения (assignment) — текст от 1 до 64 символов
refused.match_in_progress: на столе идёт матч; новую партию можно начать, когда он закончится
refused.unknown_pocket_call: нет лузы «{}»; лузы: {} или 0-5
refused.bad_call_ball: номер шара: от 1 до 15
refused.ball_not_on_table: шара {} нет на столе
refused.call_nothing: закажите шар, лузу или и то и другое
refused.no_decision: сейчас нечего выбирать
refused.not_an_option: «{}» сейчас выбрать нельзя; можно: {}
refused.balls_rolling_fact: шары ещё катятся: отметьте это, когда удар закончится
refused.nothing_to_amend: нет только что сыгранного удара, который можно исправить (после него уже был выбор или другой удар)
refused.unknown_foul: неизвестный фол «{}»; известные: {}
refused.jumped_needs_ball: укажите, какой шар вылетел за борт (0 — биток)
refused.not_a_break: последний удар не был разбитием
refused.foul_entered: этот фол уже отмечен
refused.jumped_entered: шар {} уже отмечен как вылетевший за борт
refused.ball_not_there_then: шара {} не было на столе при этом ударе
refused.bad_stopped_ball: нужен прицельный шар, который был на столе при этом ударе
refused.stopped_ball_counted: шар {} уже засчитан как забитый или вылетевший
refused.stopped_ball_pocket: укажите лузу, в которую шёл шар {}
refused.break_ruled_legal: разбитие уже признано правильным
refused.illegal_break_entered: для этого удара отмечено неправильное разбитие: сначала отмените его
refused.unknown_pocket: нет лузы «{}»
refused.bad_identify_ball: номер шара: от 0 (биток) до 15
refused.no_drop_there: при последнем ударе в лузу «{}» шар не падал
refused.ball_in_other_drop: шар {} уже засчитан в другой лузе этого удара
refused.ball_was_not_on_table: шара {} не было на столе
refused.no_shot_playing: удар сейчас не выполняется
refused.balls_rolling_undo: шары ещё катятся: отменяйте, когда удар закончится
refused.nothing_to_undo: нет удара, который можно отменить
refused.bad_player: игрок — 0 или 1
refused.bad_name: имя: от 1 до {} символов
refused.lag_too_late: розыгрыш разбития возможен только до первого удара партии
refused.bad_lag_winner: победитель розыгрыша — игрок 0 или 1
refused.bad_breaks: «победитель разбивает» — только «да» или «нет»
refused.bad_spot_ball: нужен прицельный шар, забитый последним ударом
refused.spotted_already: шар {} уже выставлен
refused.rack_only_straight_pool: положение шаров при новой пирамиде отмечается только в прямом пуле
refused.stalemate_shooter: укажите, кто выиграл розыгрыш (игрок 0 или 1)
refused.nothing_to_confirm: подтверждать нечего: выбора нет
refused.push_out_only_nine_ball: выставка есть только в девятке
refused.not_between_racks: следующую партию матча можно начать, только когда закончена предыдущая
refused.lag_first: решающая партия: сначала отметьте, кто выиграл розыгрыш разбития
refused.eb.break_not_called: разбитие не заказывается
refused.eb.eight_too_early: восьмёрку можно заказать, только когда сыграны все шары своей группы
refused.eb.call_the_eight: все шары вашей группы сыграны: закажите восьмёрку
refused.eb.not_your_group: шар {} не из вашей группы ({})
refused.eb.no_safety_on_break: разбитие не заказывается, отыгрыша при разбитии нет
refused.nb.push_on_break: выставка разрешена первым ударом после разбития, а не самим разбитием
refused.nb.push_after_foul: выставка разрешена только после правильного разбития, а разбитие было с фолом
refused.nb.push_too_late: выставка разрешена только первым ударом после разбития, а он уже сыгран
refused.nb.no_calls: в девятке шары не заказываются: первым задевайте наименьший шар ({}); засчитывается любой шар, забитый правильным ударом
refused.nb.no_safety: в девятке отыгрыш не объявляется: правильный удар без забитого шара просто передаёт ход
refused.sp.call_pocket: в прямом пуле заказываются и шар, и луза: назовите обе
refused.sp.no_rerack: последний удар не закончил пирамиду: ставить нечего
refused.sp.rack_where: укажите, где остановились 15-й шар и (или) биток
refused.sp.rack_unknown_key: неизвестный ключ «{}»: используйте fifteenth и cue
refused.sp.bad_fifteenth: 15-й шар: одно из {}
refused.sp.bad_cue_place: биток: одно из {}
refused.sp.both_racked: упали и 14-й, и 15-й шары: в пирамиду ставятся все 15, важно только, где биток
refused.host.bad_name: нет такой команды: имя команды — от 1 до 32 строчных латинских букв, цифр или «_», например «call»
refused.host.bad_payload: команда не принята: её данные не читаются ({})
refused.host.cannot_journal: команду нельзя записать в журнал ({})
refused.host.not_recorded: команда не записана, ничего не изменилось: журнал стола не принимает записи
refused.host.internal: внутренняя ошибка, ничего не изменилось
refused.host.too_many: слишком много команд: стол принимает {} в секунду; подождите немного и отправьте снова
refused.host.retained: сохраняемая (retained) команда не выполняется: брокер повторял бы её при каждом подключении; отправляйте команды без флага retain
refused.host.no_answer: судья не ответил вовремя; попробуйте ещё раз
refused.host.ha_unknown_game: такой игры нет: {}
refused.host.ha_game_playing: {} уже идёт: ничего не изменилось (кнопка «Новая партия» начинает её заново)
refused.host.ha_nothing_to_identify: нет забитого шара, который нужно указать
shot_clock_up: Время на удар истекло: {}
foul.cue_pocketed: свой шар
foul.no_rail: нет борта
foul.illegal_break: неправильный разбой
foul.wrong_first_contact: не тот шар
foul.no_contact: нет касания
foul.jumped_ball: шар за бортом
foul.double_hit: двойной удар
foul.push_shot: толчок
foul.touched_ball: касание шара
foul.no_foot_on_floor: нет ноги на полу
foul.bad_stroke: неправильный удар
foul.near_ball: близкий шар
foul.moving_ball: шары в движении
foul.kitchen: дом
foul.interference: вмешательство
foul.three_fouls: три фола
option.accept: Играть с этой позиции
option.rebreak: Разбить заново
option.rerack: Новая пирамида, разбиваю я
option.rerack_offender_breaks: Новая пирамида, разбивает нарушитель
option.spot_eight: Выставить восьмёрку и играть
option.pass_back: Вернуть удар
option.reshoot: Пусть повторит удар
pocket.head-left: левая угловая у переднего борта
pocket.side-left: левая средняя
pocket.foot-left: левая угловая у заднего борта
pocket.foot-right: правая угловая у заднего борта
pocket.side-right: правая средняя
pocket.head-right: правая угловая у переднего борта
pocket_short.head-left: левая у дома
pocket_short.side-left: левая средняя
pocket_short.foot-left: левая дальняя
pocket_short.foot-right: правая дальняя
pocket_short.side-right: правая средняя
pocket_short.head-right: правая у дома
game.eight-ball: Восьмёрка
game.nine-ball: Девятка
game.straight-pool: Прямой пул (14.1)
new_game: Новая партия ({}): {} — {}; разбивает {}
call: {} заказывает {}{}
call_ball: шар {}
call_pocket:  в {}
safety: {} объявляет отыгрыш
push_out: {} объявляет пуш-аут
choice_void: Поздно упавший шар изменил удар: прежний выбор не действует
undo: Последний удар отменён: бьёт {}
undo_new_game: Новая партия отменена: прежняя партия ({}) продолжается, бьёт {}
lag: {} выиграл розыгрыш; разбивает {}
stalemate: Глухая позиция: шары в пирамиду; {} играет из дома
hanging_early: Зависший шар упал вовремя и засчитан за последний удар
hanging_late: Шар упал позже 5 с после удара: вернуть его на край лузы ({})
shot: Удар: {}
guessed: Игра продолжена без опознания шара: принят наиболее вероятный
implied_choice: Игра продолжена: выбран вариант '{}'
deciding_lag: Решающая партия: разыграйте право разбития
lag_for_break: Разыграйте право разбития
break_rule.alternate: разбивают по очереди
break_rule.lag: разбивает победитель розыгрыша
break_rule.winner_breaks: разбивает победитель партии
next_rack: Партия {}: разбивает {}
foul: Фол, {}: {}
turn: Ход переходит к игроку {}
ball_in_hand: {}: биток с руки
ball_in_hand_kitchen: {}: биток с руки из дома
respot: Выставить шар {} ({})
pocketed: {} забил {}
over: {} выиграл партию: {}
identify: Какой шар упал в лузу {}?
cue_pocketed: биток в лузе
no_rail: ни один шар не дошёл до борта
illegal_break: неправильное разбитие
wrong_first_contact: первым задет не тот шар
no_contact: биток не коснулся шаров
jumped_ball: шар вылетел за борт
double_hit: двойное касание
push_shot: удар пропихом
touched_ball: касание шара
no_foot_on_floor: нет ноги на полу
bad_stroke: неправильный удар
near_ball: неправильный удар по близкому шару
moving_ball: удар до остановки шаров
kitchen: нарушение при ударе из дома
interference: вмешательство соперника
three_fouls: три фола подряд
eb.solids: цветные (1-7)
eb.stripes: полосатые (9-15)
eb.group: {} играет {}; {} — {}
eb.rerack: Новая пирамида: разбивает {}
eb.lose: {} {}
eb.loss_jumped: выбил восьмёрку за борт
eb.loss_on_foul: забил восьмёрку с нарушением правил
eb.loss_with_last: забил восьмёрку вместе с последним шаром своей группы
eb.loss_early: забил восьмёрку, не сыграв все шары своей группы
eb.loss_on_safety: забил восьмёрку при отыгрыше, без заказа лузы
eb.loss_wrong_pocket: забил восьмёрку не в заказанную лузу ({})
eb.win: восьмёрка забита после своей группы
eb.offer_break_8_scratch: {}: разбить заново или выставить восьмёрку и бить с руки из дома
eb.offer_break_8: {}: восьмёрка упала при разбитии: разбить заново или выставить её и продолжить
eb.offer_illegal_break: {}: играть из позиции, разбить новую пирамиду самому или передать разбитие сопернику
eb.break_jump_bih: {}: играть с места или с руки из дома
eb.accept: {} играет из сложившейся позиции
eb.both_groups: Без заказа забиты шары обеих групп: стол остаётся открытым; закажите шар
nb.win: девятка забита правильным ударом
nb.win_break: девятка забита правильным ударом с разбития
nb.push_no_foul: Не фол: при выставке биток может не касаться шаров и не доходить до борта
nb.offer_push: Выставка: {} играет позицию или возвращает удар игроку {}
nb.break_continue: Правильное разбитие: {} бьёт снова (можно объявить выставку)
nb.three_fouls: три фола подряд у игрока {}
nb.two_fouls: У игрока {} 2 фола подряд: третий фол подряд — проигрыш партии
nb.offer_miss: {} не попал в наименьший шар: {} играет позицию или заставляет повторить удар
nb.pass_back: {} возвращает удар: {} играет позицию после выставки
nb.reshoot: {} заставляет игрока {} повторить удар
nb.accept: {} принимает позицию и бьёт
sp.identify_called: В лузу {} упало несколько шаров: был ли среди них шар {}? Опознайте их
sp.any_first: Не фол: в 14.1 первым можно задеть любой шар
sp.uncalled: Шар и луза не заказаны: отыгрыш; шары выставляются
sp.two_fouls: У игрока {} два фола подряд: третий стоит 1 + 15 очков
sp.respot_pockets: Выставить шар(ы) из лузы {} на заднюю отметку
sp.offer_offender: {}: играть позицию как есть или поставить пирамиду и заставить {} разбивать
sp.offer_rebreak: {}: играть позицию как есть или заставить {} разбить снова
sp.win: набрал {} очков
sp.rerack_full: Все 15 шаров ставятся в пирамиду; продолжает {}
sp.rerack_14: 14 шаров в пирамиду без шара на вершине; шар {} и биток остаются; продолжает {}
sp.fifteenth_head_spot: шар {} ставится на переднюю отметку
sp.cue_head_spot: биток ставится на переднюю отметку (на центральную, если занята)
sp.rebreak: Пирамида установлена заново: {} разбивает снова
sp.offender_breaks: Все 15 шаров в пирамиду: разбивает {}
sp.accept: {} играет позицию как есть
camera.fault.camera_stalled: камера не передаёт изображение
camera.fault.camera_frozen: изображение камеры застыло
camera.fault.camera_dropping_frames: камера теряет кадры
camera.fault.camera_moved: камера сдвинулась: стол не там, где был
camera.fault.camera_flash: вспышка или свет изменили картинку
camera.fault.camera_no_table: камера не находит стол
camera.fault.camera_error: анализ изображения камеры не удался
camera.fault_on: Неисправность камеры: {}; удары судятся без камеры, пока она не устранена
camera.fault_off: Камера снова в порядке: {}
camera.online: Камера работает: она снова судит касания и борта
camera.offline: Камера отключена: удары судятся без неё
camera.fallback: Камера не использована для этого удара: {}; удар судится как без камеры
camera.why.fault: во время удара она была неисправна
camera.why.offline: она была отключена
camera.why.late: её данные не пришли за полсекунды после остановки шаров
camera.why.interrupted: следующий удар был раньше её данных
camera.why.ended: удар завершён раньше, чем пришли её данные
camera.why.strokes: она увидела больше одного удара
camera.why.beams: забитые ею шары не совпадают с датчиками луз
camera.why.table: первым задет шар, которого нет на столе
camera.unsure: Камера не уверена: {}; удар судится как без камеры
camera.what.first_contact: какой шар задет первым
camera.what.rail: борт после касания
camera.what.break: шары у бортов при разбитии
camera.saw: Камера: {}
camera.part.contact: биток первым задел шар {}
camera.part.no_contact: биток не задел ни одного шара
camera.part.rail: шар дошёл до борта после касания
camera.part.no_rail: ни один шар не дошёл до борта после касания
camera.part.break_rails: шаров у бортов: {}
camera.part.identity: забит шар {}
camera.what.kitchen: где лежал биток с руки (дом)
camera.what.kitchen_ball: лежал ли в доме шар, задетый первым
camera.what.rack: где остановились последний прицельный шар и биток (установка пирамиды)
camera.part.kitchen_in: биток лежал в доме
camera.part.kitchen_out: биток лежал на линии дома или за ней
camera.part.foot_in: все прицельные шары лежали в доме, а биток — за задней линией (временный дом)
camera.part.foot_out: все прицельные шары лежали в доме, а биток — вне временного дома за задней линией
camera.part.kitchen_ball: шар {} лежал в доме, и биток задел его, не покидая дома
camera.part.fifteenth_clear: последний прицельный шар остановился вне места пирамиды
camera.part.fifteenth_rack: последний прицельный шар остановился в месте установки пирамиды
camera.part.fifteenth_apex: последний прицельный шар остановился на задней отметке
camera.part.fifteenth_kitchen: последний прицельный шар остановился в доме
camera.part.cue_clear: биток вне места пирамиды
camera.part.cue_rack: биток в месте установки пирамиды
camera.part.simultaneous: биток задел шары {} и {} почти одновременно, какой первым — не различить: в пользу бьющего
refused.camera_entry: запись камеры '{}' такой формы или размера судья не принимает
"""


def text(table, key):
    """The text of `key` in `table`, or None."""
    i = table.find("\n" + key + ": ")
    if i < 0:
        return None
    i += len(key) + 3
    j = table.find("\n", i)
    return table[i:j]


def say(key, *args):
    """The (English, Russian) texts of message `key` with `args` filled in."""
    return text(EN, key).format(*args), text(RU, key).format(*args)


def say_each(key, en_args, ru_args):
    """Like `say`, with each language's own arguments (texts already in that language)."""
    return text(EN, key).format(*en_args), text(RU, key).format(*ru_args)


def words(key):
    """A message without fields, as an (English, Russian) pair; an unknown key stands for itself
    (a foul code's name)."""
    return text(EN, key) or key, text(RU, key) or key


def word(key, lang):
    """The text of `key` in `lang` ("en" or "ru")."""
    return text(EN if lang == "en" else RU, key)


def sensor_label(index, lang):
    """A sensor's name in `lang`: pockets 0-5 and rails 16-21 of the link (names.POCKETS,
    names.RAILS). The English one is also the state's `faults[].what` (a state value, so it
    keeps the link's own names); the Russian one names the pocket or rail in words."""
    if 0 <= index <= 5:
        where = names.POCKETS[index]
        return word("sensor_pocket", lang).format(where if lang == "en" else word("pocket." + where, lang))
    if 16 <= index <= 21:
        where = names.RAILS[index - 16]
        return word("sensor_rail", lang).format(where if lang == "en" else word("rail." + where, lang))
    return word("sensor_other", lang).format(index)


# ------------------------------------------------------------------ refusals
def refusal(code, en_args=(), ru_args=None):
    """The answer to a refused entry: `error` is the English text callers have always matched,
    `code` a stable key (messages `refused.<code>`), `text` the players' words in each language."""
    error = text(EN, "refused." + code).format(*en_args)
    ru = text(RU, "refused." + code).format(*(en_args if ru_args is None else ru_args))
    return {"ok": False, "error": error, "code": code, "text": {"en": without_clauses(error), "ru": ru},
            "events": []}


def without_clauses(s):
    """`s` without its clause codes in brackets (" (EB.BREAK-CONTINUE)"): those are for referees."""
    i = s.find(" (")
    while i >= 0:
        j = s.find(")", i)
        if j > 0 and _is_clause(s[i + 2:j]):
            s = s[:i] + s[j + 1:]
            i = s.find(" (", i)
        else:
            i = s.find(" (", i + 1)
    return s


def _is_clause(s):
    """A clause ID: upper-case words joined by dots and hyphens, e.g. NB.NO-CALL."""
    if "." not in s or s[0] == "." or s[-1] == ".":
        return False
    for c in s:
        if not ("A" <= c <= "Z" or "0" <= c <= "9" or c in ".-"):
            return False
    return True


# ------------------------------------------------------------------ what the pages show
# Decision options (CONTRACT `decision`), in the order a page lists them.
OPTIONS = ("accept", "rebreak", "rerack", "rerack_offender_breaks", "spot_eight", "pass_back", "reshoot")
# Who breaks the next rack of a match (`next_break.rule`, rules/racks.py).
BREAK_RULES = ("alternate", "lag", "winner_breaks")


def names_of(prefix, key):
    return {"en": text(EN, prefix + key), "ru": text(RU, prefix + key)}


def vocabulary():
    """The words pages and outputs show, as JSON-able data, so none keeps its own copy.

    Each foul code (CONTRACT section 2, `interference` and `three_fouls` included) has its name
    as the referee's events say it, a short one for small displays and its clause. Pockets carry
    their button number and names a player understands at the table: the head is the breaking
    end (the seed's «передний борт», the kitchen's end), the foot the rack's («задний борт»).
    """
    from shared_rules.link.names import POCKETS
    from shared_rules.rules.common import MANUAL_FOULS
    from shared_rules.rules.games import GAMES
    fouls = {}
    for code in list(MANUAL_FOULS) + ["three_fouls"]:
        en, ru = words(code)
        fouls[code] = {"en": en, "ru": ru, "short": names_of("foul.", code),
                       "clause": MANUAL_FOULS.get(code, "SP.3-FOULS"), "entered_by_hand": code in MANUAL_FOULS}
    pockets = {}
    for i in range(len(POCKETS)):
        p = POCKETS[i]
        pockets[p] = {"index": i, "en": text(EN, "pocket." + p), "ru": text(RU, "pocket." + p),
                      "short": names_of("pocket_short.", p)}
    return {"fouls": fouls, "pockets": pockets,
            "options": dict((o, names_of("option.", o)) for o in OPTIONS),
            "games": dict((g, names_of("game.", g)) for g in GAMES),
            "groups": {"solids": names_of("eb.", "solids"), "stripes": names_of("eb.", "stripes")},
            "break_rules": dict((r, names_of("break_rule.", r)) for r in BREAK_RULES)}
